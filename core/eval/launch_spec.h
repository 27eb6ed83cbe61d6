#pragma once
// The launch spec (docs/launch-spec.md): how to run one kernel so that its variants can be checked
// and timed. Parsing is strict: an unknown dtype, a missing count or a buffer without a role is an
// error with the parameter's name in it, never a silently defaulted launch.
//
// Allocations are addressed by *slot*: the parameters in order, then the spec's `memory` entries
// (device allocations no parameter is, reached through pointers inside `bytes` parameters).
#include "core/common/result.h"
#include "core/cubin/cubin.h"
#include "core/eval/dtype.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sassx::eval {

enum class ParamKind
{
    Buffer,
    Scalar,
    Null,
    Bytes, // by value, as exact bytes (a struct, scalar or array), device addresses patched in
};

// The driver's limit on a kernel's parameters (4 KiB before CUDA 12.1, 32764 bytes since).
inline constexpr uint32_t kMaxParamBytes = 32764;

// Blocks in one thread-block cluster: 8 is the portable limit every cluster-capable GPU launches. Hopper
// (sm_90) launches up to 16 once the kernel carries CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
// which a program may set (CUTLASS allows it for its SM90 kernels), so a captured spec may hold 16.
inline constexpr uint32_t kMaxPortableClusterBlocks = 8;
inline constexpr uint32_t kMaxClusterBlocks = 16;

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
    Recorded,
};

// How a recorded-values file is stored: zlib (what the capture writes) or raw bytes.
enum class ValuesEncoding
{
    Zlib,
    Raw,
};

struct InitSpec
{
    InitKind kind = InitKind::Zeros;
    double value = 0.0; // constant
    double low = 0.0;   // uniform, randint (randint draws integers in [low, high))
    double high = 1.0;
    double mean = 0.0; // normal
    double std = 1.0;
    // recorded: the bytes come from a file beside the spec, checked against their size and SHA-256.
    std::string file; // resolved against the spec's directory at parse time
    ValuesEncoding encoding = ValuesEncoding::Zlib;
    uint64_t bytes = 0;
    std::string sha256; // 64 lower-case hex digits of the decompressed bytes
};

// A device address a `bytes` parameter holds: 8 little-endian bytes at `at`, pointing `offset` bytes
// into `to` (a memory entry or a buffer parameter), resolved to the slot owning that allocation.
struct PointerPatch
{
    uint32_t at = 0;
    std::string to;
    uint64_t offset = 0;
    int root = -1;           // the slot owning the allocation
    uint64_t rootOffset = 0; // bytes into it: `to`'s own offset into its root plus `offset`
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
    // An alias is a pointer into another buffer parameter's allocation (in-place kernels, views):
    // as written (`aliasOf` at `aliasOffset` bytes), and resolved through any chain to the parameter
    // that owns the allocation (`aliasRoot`, -1 for none) at `rootOffset` bytes. The root's role and
    // init describe the shared memory; an alias is never initialised or compared on its own.
    std::string aliasOf;
    uint64_t aliasOffset = 0;
    int aliasRoot = -1;
    uint64_t rootOffset = 0;
    // bytes: the parameter's exact bytes and the device addresses written over them at launch.
    std::vector<uint8_t> raw;
    std::vector<PointerPatch> pointers;
    // A root's contents in the program itself after the launch (SHA-256, 64 lower-case hex digits),
    // when the capture recorded them: the worker says whether the replay reproduces them.
    std::string referenceSha256;

    // Bytes this parameter occupies in the kernel's parameter bank (pointers are 8 bytes).
    uint32_t bankSize() const;
    uint64_t bufferBytes() const { return count * dtypeSize(dtype); }
    bool isAlias() const { return kind == ParamKind::Buffer && aliasRoot >= 0; }
    bool ownsAllocation() const { return kind == ParamKind::Buffer && aliasRoot < 0; }
    bool compared() const { return ownsAllocation() && role != ParamRole::Input; }
    bool initialised() const { return ownsAllocation() && role != ParamRole::Output; }
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
    // Blocks per thread-block cluster in x, y, z, when the program launched the kernel with a cluster
    // dimension (each divides the grid's); none: an ordinary launch.
    std::optional<std::array<uint32_t, 3>> cluster;
    uint32_t dynamicShared = 0;
    std::vector<ParamSpec> params;
    // Allocations that are not parameters: buffers (kind Buffer, never aliases) that `bytes`
    // parameters point into.
    std::vector<ParamSpec> memory;
    double flops = 0.0;
    double bytes = 0.0;
    Tolerance tolerance;

    // Absolute path of the original cubin, or empty when the spec names none.
    std::string cubinPath() const;
    // Blocks in one cluster (0 without a cluster).
    uint32_t clusterBlocks() const { return cluster ? (*cluster)[0] * (*cluster)[1] * (*cluster)[2] : 0u; }
    // Parameters, then memory entries (the allocation plan's index space).
    size_t slotCount() const { return params.size() + memory.size(); }
    const ParamSpec& slot(size_t i) const
    {
        return i < params.size() ? params[i] : memory[i - params.size()];
    }
};

// Parses a spec object; `specDir` resolves the relative cubin path.
Result<LaunchSpec> parseLaunchSpec(const nlohmann::json& j, const std::string& specDir = {});
// Parses the file and checks every recorded-values file it names (present, size, SHA-256).
Result<LaunchSpec> loadLaunchSpec(const std::string& path);
// The decompressed bytes of a `recorded` init, checked against the spec's size and hash; the error
// names the parameter and the problem in one line.
Result<std::vector<uint8_t>> readRecordedValues(const ParamSpec& param);
// Every recorded-values file of the spec read and checked (readRecordedValues).
Status checkRecordedValues(const LaunchSpec& spec);
// Slots (LaunchSpec::slot) of the buffers that own an allocation (aliases share their root's), and of
// the buffers compared after a run (each shared allocation once, through its root).
std::vector<int> allocatedParams(const LaunchSpec& spec);
std::vector<int> comparedParams(const LaunchSpec& spec);
// The canonical JSON form (what the worker protocol carries); parseLaunchSpec(toJson(s)) == s.
nlohmann::json toJson(const LaunchSpec& spec);

// Checks the spec's parameters against the kernel's KPARAM_INFO: same count, and each parameter's
// size in the bank equals what the spec passes. The error names the first mismatching parameter.
Status validateParams(const LaunchSpec& spec, const std::vector<KernelParam>& params);
// Finds spec.kernel in the cubin and validates its parameters.
Status validateAgainstCubin(const LaunchSpec& spec, const Cubin& cubin);

// The worker's answer about the spec's `reference` digests (load_baseline's "reference": {"matched":
// [...], "differs": [...]}, whether the original, replayed, left the bytes the program itself had after
// the launch) as one line for a person; empty when the spec carried none.
std::string programReferenceLine(const nlohmann::json& baselineAnswer);

} // namespace sassx::eval
