#pragma once
// The launch spec (docs/launch-spec.md): how to run one kernel so that its variants can be checked
// and timed. Parsing is strict: an unknown dtype, a missing count or a buffer without a role is an
// error with the parameter's name in it, never a silently defaulted launch.
#include "core/common/result.h"
#include "core/cubin/cubin.h"
#include "core/eval/dtype.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sassx::eval {

enum class ParamKind
{
    Buffer,
    Scalar,
    Null,
};

enum class ParamRole
{
    Input,
    Output,
    InOut,
};

enum class InitKind
{
    Zeros,
    Constant,
    Uniform,
    Normal,
    RandInt,
    Iota,
};

struct InitSpec
{
    InitKind kind = InitKind::Zeros;
    double value = 0.0; // constant
    double low = 0.0;   // uniform, randint (randint draws integers in [low, high))
    double high = 1.0;
    double mean = 0.0; // normal
    double std = 1.0;
};

struct ParamSpec
{
    std::string name;
    ParamKind kind = ParamKind::Null;
    DType dtype = DType::F32;
    uint64_t count = 0; // buffer elements
    InitSpec init;
    ParamRole role = ParamRole::Input;
    double value = 0.0; // scalar

    // Bytes this parameter occupies in the kernel's parameter bank (pointers are 8 bytes).
    uint32_t bankSize() const;
    uint64_t bufferBytes() const { return count * dtypeSize(dtype); }
    bool compared() const { return kind == ParamKind::Buffer && role != ParamRole::Input; }
    bool initialised() const { return kind == ParamKind::Buffer && role != ParamRole::Output; }
};

struct Tolerance
{
    double atol = 0.0;
    double rtol = 0.0;
    bool bitwise() const { return atol == 0.0 && rtol == 0.0; }
};

struct LaunchSpec
{
    std::string name;
    std::string kernel;
    std::string cubin; // as written in the spec (relative to specDir)
    std::string specDir;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t dynamicShared = 0;
    std::vector<ParamSpec> params;
    double flops = 0.0;
    double bytes = 0.0;
    Tolerance tolerance;

    // Absolute path of the original cubin, or empty when the spec names none.
    std::string cubinPath() const;
};

// Parses a spec object; `specDir` resolves the relative cubin path.
Result<LaunchSpec> parseLaunchSpec(const nlohmann::json& j, const std::string& specDir = {});
Result<LaunchSpec> loadLaunchSpec(const std::string& path);
// The canonical JSON form (what the worker protocol carries); parseLaunchSpec(toJson(s)) == s.
nlohmann::json toJson(const LaunchSpec& spec);

// Checks the spec's parameters against the kernel's KPARAM_INFO: same count, and each parameter's
// size in the bank equals what the spec passes. The error names the first mismatching parameter.
Status validateParams(const LaunchSpec& spec, const std::vector<KernelParam>& params);
// Finds spec.kernel in the cubin and validates its parameters.
Status validateAgainstCubin(const LaunchSpec& spec, const Cubin& cubin);

} // namespace sassx::eval
