#include "core/eval/launch_spec.h"

#include <filesystem>
#include <fstream>

namespace sassx::eval {

using nlohmann::json;

uint32_t ParamSpec::bankSize() const
{
    return kind == ParamKind::Scalar ? uint32_t(dtypeSize(dtype)) : 8u;
}

std::string LaunchSpec::cubinPath() const
{
    if (cubin.empty()) return {};
    std::filesystem::path p(cubin);
    if (p.is_relative() && !specDir.empty()) p = std::filesystem::path(specDir) / p;
    return p.lexically_normal().string();
}

namespace {

Error paramError(size_t index, const std::string& name, const std::string& what)
{
    return makeError("launch spec: params[" + std::to_string(index) + "] (" +
                     (name.empty() ? "unnamed" : name) + "): " + what);
}

Result<std::array<uint32_t, 3>> parseDims(const json& j, const char* field)
{
    std::array<uint32_t, 3> dims{1, 1, 1};
    if (!j.contains(field)) return makeError(std::string("launch spec: missing \"") + field + "\"");
    const json& v = j.at(field);
    if (v.is_number_integer()) {
        if (v.get<int64_t>() < 1)
            return makeError(std::string("launch spec: \"") + field + "\" must be >= 1");
        dims[0] = v.get<uint32_t>();
        return dims;
    }
    if (!v.is_array() || v.empty() || v.size() > 3)
        return makeError(std::string("launch spec: \"") + field + "\" must be 1 to 3 positive integers");
    for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number_integer() || v[i].get<int64_t>() < 1 || v[i].get<int64_t>() > 0x7fffffff)
            return makeError(std::string("launch spec: \"") + field + "\" must be 1 to 3 positive integers");
        dims[i] = v[i].get<uint32_t>();
    }
    return dims;
}

Result<InitSpec> parseInit(const json& j, size_t index, const std::string& name)
{
    InitSpec init;
    if (!j.is_object() || !j.contains("kind") || !j.at("kind").is_string())
        return paramError(index, name, "\"init\" must be an object with a \"kind\"");
    const std::string kind = j.at("kind").get<std::string>();
    auto num = [&](const char* key, double& out) -> bool {
        if (!j.contains(key) || !j.at(key).is_number()) return false;
        out = j.at(key).get<double>();
        return true;
    };
    if (kind == "zeros") {
        init.kind = InitKind::Zeros;
    } else if (kind == "constant") {
        init.kind = InitKind::Constant;
        if (!num("value", init.value))
            return paramError(index, name, "init constant needs a numeric \"value\"");
    } else if (kind == "uniform") {
        init.kind = InitKind::Uniform;
        if (!num("low", init.low) || !num("high", init.high))
            return paramError(index, name, "init uniform needs numeric \"low\" and \"high\"");
        if (!(init.low <= init.high)) return paramError(index, name, "init uniform needs low <= high");
    } else if (kind == "normal") {
        init.kind = InitKind::Normal;
        if (!num("mean", init.mean) || !num("std", init.std))
            return paramError(index, name, "init normal needs numeric \"mean\" and \"std\"");
        if (!(init.std >= 0)) return paramError(index, name, "init normal needs std >= 0");
    } else if (kind == "randint") {
        init.kind = InitKind::RandInt;
        if (!num("low", init.low) || !num("high", init.high))
            return paramError(index, name, "init randint needs numeric \"low\" and \"high\"");
        if (!(init.low < init.high))
            return paramError(index, name, "init randint needs low < high (high is excluded)");
    } else if (kind == "iota") {
        init.kind = InitKind::Iota;
    } else {
        return paramError(index, name,
                          "unknown init kind \"" + kind +
                              "\" (zeros, constant, uniform, normal, randint, iota)");
    }
    return init;
}

Result<ParamSpec> parseParam(const json& j, size_t index)
{
    ParamSpec p;
    if (!j.is_object()) return paramError(index, "", "must be an object");
    if (j.contains("name") && j.at("name").is_string()) p.name = j.at("name").get<std::string>();
    if (!j.contains("kind") || !j.at("kind").is_string())
        return paramError(index, p.name, "missing \"kind\" (buffer, scalar, null)");
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "null") {
        p.kind = ParamKind::Null;
        return p;
    }
    if (kind != "buffer" && kind != "scalar")
        return paramError(index, p.name, "unknown kind \"" + kind + "\" (buffer, scalar, null)");
    p.kind = kind == "buffer" ? ParamKind::Buffer : ParamKind::Scalar;
    if (!j.contains("dtype") || !j.at("dtype").is_string())
        return paramError(index, p.name, "missing \"dtype\"");
    auto dt = parseDType(j.at("dtype").get<std::string>());
    if (!dt)
        return paramError(index, p.name,
                          "unknown dtype \"" + j.at("dtype").get<std::string>() +
                              "\" (f16 bf16 f32 f64 i8 u8 i16 u16 i32 u32 i64 u64)");
    p.dtype = *dt;
    if (p.kind == ParamKind::Scalar) {
        if (!j.contains("value") || !j.at("value").is_number())
            return paramError(index, p.name, "scalar needs a numeric \"value\"");
        p.value = j.at("value").get<double>();
        return p;
    }
    if (!j.contains("count") || !j.at("count").is_number_integer() || j.at("count").get<int64_t>() < 1)
        return paramError(index, p.name, "buffer needs a positive integer \"count\"");
    p.count = j.at("count").get<uint64_t>();
    if (p.count > (uint64_t(1) << 36))
        return paramError(index, p.name, "buffer \"count\" is implausibly large");
    const std::string role = j.value("role", std::string("input"));
    if (role == "input")
        p.role = ParamRole::Input;
    else if (role == "output")
        p.role = ParamRole::Output;
    else if (role == "inout")
        p.role = ParamRole::InOut;
    else
        return paramError(index, p.name, "unknown role \"" + role + "\" (input, output, inout)");
    if (j.contains("init")) {
        auto init = parseInit(j.at("init"), index, p.name);
        if (!init) return init.error();
        p.init = init.value();
    } else if (p.role != ParamRole::Output) {
        return paramError(index, p.name, "an input/inout buffer needs an \"init\"");
    }
    return p;
}

const char* initName(InitKind k)
{
    switch (k) {
    case InitKind::Zeros:
        return "zeros";
    case InitKind::Constant:
        return "constant";
    case InitKind::Uniform:
        return "uniform";
    case InitKind::Normal:
        return "normal";
    case InitKind::RandInt:
        return "randint";
    case InitKind::Iota:
        return "iota";
    }
    return "zeros";
}

} // namespace

Result<LaunchSpec> parseLaunchSpec(const json& j, const std::string& specDir)
{
    if (!j.is_object()) return makeError("launch spec: top level must be a JSON object");
    LaunchSpec s;
    s.specDir = specDir;
    if (!j.contains("kernel") || !j.at("kernel").is_string() || j.at("kernel").get<std::string>().empty())
        return makeError("launch spec: missing \"kernel\" (the kernel's symbol name)");
    s.kernel = j.at("kernel").get<std::string>();
    s.name = j.contains("name") && j.at("name").is_string() ? j.at("name").get<std::string>() : s.kernel;
    if (j.contains("cubin") && j.at("cubin").is_string()) s.cubin = j.at("cubin").get<std::string>();
    auto grid = parseDims(j, "grid");
    if (!grid) return grid.error();
    s.grid = grid.value();
    auto block = parseDims(j, "block");
    if (!block) return block.error();
    s.block = block.value();
    if (uint64_t(s.block[0]) * s.block[1] * s.block[2] > 1024)
        return makeError("launch spec: \"block\" has more than 1024 threads");
    if (j.contains("dynamic_shared")) {
        if (!j.at("dynamic_shared").is_number_integer() || j.at("dynamic_shared").get<int64_t>() < 0)
            return makeError("launch spec: \"dynamic_shared\" must be a non-negative integer");
        s.dynamicShared = j.at("dynamic_shared").get<uint32_t>();
    }
    if (!j.contains("params") || !j.at("params").is_array())
        return makeError("launch spec: missing \"params\" array");
    const json& params = j.at("params");
    for (size_t i = 0; i < params.size(); ++i) {
        auto p = parseParam(params[i], i);
        if (!p) return p.error();
        s.params.push_back(std::move(p.value()));
    }
    if (j.contains("flops") && j.at("flops").is_number()) s.flops = j.at("flops").get<double>();
    if (j.contains("bytes") && j.at("bytes").is_number()) s.bytes = j.at("bytes").get<double>();
    if (j.contains("tolerance") && !j.at("tolerance").is_null()) {
        const json& t = j.at("tolerance");
        if (!t.is_object()) return makeError("launch spec: \"tolerance\" must be an object {atol, rtol}");
        s.tolerance.atol = t.value("atol", 0.0);
        s.tolerance.rtol = t.value("rtol", 0.0);
        if (s.tolerance.atol < 0 || s.tolerance.rtol < 0)
            return makeError("launch spec: tolerance atol/rtol must be >= 0");
    }
    return s;
}

Result<LaunchSpec> loadLaunchSpec(const std::string& path)
{
    std::ifstream in(path);
    if (!in) return makeError("launch spec: cannot open " + path);
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) return makeError("launch spec: " + path + " is not valid JSON");
    auto dir = std::filesystem::absolute(std::filesystem::path(path)).parent_path().string();
    auto spec = parseLaunchSpec(j, dir);
    if (!spec) return makeError(spec.message() + " [" + path + "]");
    return spec;
}

json toJson(const LaunchSpec& s)
{
    json params = json::array();
    for (const ParamSpec& p : s.params) {
        json e{{"name", p.name}};
        switch (p.kind) {
        case ParamKind::Null:
            e["kind"] = "null";
            break;
        case ParamKind::Scalar:
            e["kind"] = "scalar";
            e["dtype"] = dtypeName(p.dtype);
            e["value"] = p.value;
            break;
        case ParamKind::Buffer: {
            e["kind"] = "buffer";
            e["dtype"] = dtypeName(p.dtype);
            e["count"] = p.count;
            e["role"] = p.role == ParamRole::Input    ? "input"
                        : p.role == ParamRole::Output ? "output"
                                                      : "inout";
            json init{{"kind", initName(p.init.kind)}};
            if (p.init.kind == InitKind::Constant) init["value"] = p.init.value;
            if (p.init.kind == InitKind::Uniform || p.init.kind == InitKind::RandInt) {
                init["low"] = p.init.low;
                init["high"] = p.init.high;
            }
            if (p.init.kind == InitKind::Normal) {
                init["mean"] = p.init.mean;
                init["std"] = p.init.std;
            }
            e["init"] = init;
            break;
        }
        }
        params.push_back(e);
    }
    json j{{"name", s.name},
           {"kernel", s.kernel},
           {"grid", s.grid},
           {"block", s.block},
           {"dynamic_shared", s.dynamicShared},
           {"params", params},
           {"flops", s.flops},
           {"bytes", s.bytes},
           {"tolerance", {{"atol", s.tolerance.atol}, {"rtol", s.tolerance.rtol}}}};
    if (!s.cubin.empty()) j["cubin"] = s.cubinPath();
    return j;
}

Status validateParams(const LaunchSpec& spec, const std::vector<KernelParam>& params)
{
    if (params.size() != spec.params.size())
        return makeError("kernel " + spec.kernel + " takes " + std::to_string(params.size()) +
                         " parameters (KPARAM_INFO) but the launch spec lists " +
                         std::to_string(spec.params.size()));
    for (size_t i = 0; i < params.size(); ++i) {
        const ParamSpec& p = spec.params[i];
        const uint32_t want = p.bankSize();
        if (params[i].size != want) {
            std::string what = p.kind == ParamKind::Scalar
                                   ? "a " + std::string(dtypeName(p.dtype)) + " scalar"
                                   : std::string("a pointer");
            return makeError("kernel " + spec.kernel + " parameter " + std::to_string(i) + " (" + p.name +
                             ") is " + std::to_string(params[i].size) +
                             " bytes in KPARAM_INFO, but the launch spec passes " + what + " (" +
                             std::to_string(want) + " bytes)");
        }
    }
    return Ok{};
}

Status validateAgainstCubin(const LaunchSpec& spec, const Cubin& cubin)
{
    const Kernel* k = cubin.findKernel(spec.kernel);
    if (!k) {
        std::string names;
        for (const Kernel& kk : cubin.kernels())
            names += (names.empty() ? "" : ", ") + kk.name;
        return makeError("kernel " + spec.kernel + " is not in the cubin (it holds: " +
                         (names.empty() ? std::string("no kernels") : names) + ")");
    }
    return validateParams(spec, k->params);
}

} // namespace sassx::eval
