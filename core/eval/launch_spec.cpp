#include "core/eval/launch_spec.h"

#include "core/eval/launch_spec_parse.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>

namespace sassx::eval {

using nlohmann::json;
using spec_parse::EntryAt;
using spec_parse::entryError;

uint32_t ParamSpec::bankSize() const
{
    switch (kind) {
    case ParamKind::Scalar:
        return uint32_t(dtypeSize(dtype));
    case ParamKind::Bytes:
        return uint32_t(raw.size());
    case ParamKind::Buffer:
    case ParamKind::Null:
        break;
    }
    return 8u;
}

std::string LaunchSpec::cubinPath() const
{
    if (cubin.empty()) return {};
    std::filesystem::path p(cubin);
    if (p.is_relative() && !specDir.empty()) p = std::filesystem::path(specDir) / p;
    return p.lexically_normal().string();
}

Error spec_parse::entryError(EntryAt at, const std::string& name, const std::string& what)
{
    return makeError("launch spec: " + std::string(at.list) + "[" + std::to_string(at.index) + "] (" +
                     (name.empty() ? "unnamed" : name) + "): " + what);
}

bool spec_parse::isSha256Hex(const std::string& s)
{
    if (s.size() != 64) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

namespace {

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

Result<InitSpec> parseInit(const json& j, EntryAt index, const std::string& name, const std::string& specDir)
{
    InitSpec init;
    if (!j.is_object() || !j.contains("kind") || !j.at("kind").is_string())
        return entryError(index, name, "\"init\" must be an object with a \"kind\"");
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
            return entryError(index, name, "init constant needs a numeric \"value\"");
    } else if (kind == "uniform") {
        init.kind = InitKind::Uniform;
        if (!num("low", init.low) || !num("high", init.high))
            return entryError(index, name, "init uniform needs numeric \"low\" and \"high\"");
        if (!(init.low <= init.high)) return entryError(index, name, "init uniform needs low <= high");
    } else if (kind == "normal") {
        init.kind = InitKind::Normal;
        if (!num("mean", init.mean) || !num("std", init.std))
            return entryError(index, name, "init normal needs numeric \"mean\" and \"std\"");
        if (!(init.std >= 0)) return entryError(index, name, "init normal needs std >= 0");
    } else if (kind == "randint") {
        init.kind = InitKind::RandInt;
        if (!num("low", init.low) || !num("high", init.high))
            return entryError(index, name, "init randint needs numeric \"low\" and \"high\"");
        if (!(init.low < init.high))
            return entryError(index, name, "init randint needs low < high (high is excluded)");
    } else if (kind == "iota") {
        init.kind = InitKind::Iota;
    } else if (kind == "recorded") {
        init.kind = InitKind::Recorded;
        if (!j.contains("file") || !j.at("file").is_string() || j.at("file").get<std::string>().empty())
            return entryError(index, name, "init recorded needs a \"file\" (relative to the spec)");
        std::filesystem::path file(j.at("file").get<std::string>());
        if (file.is_relative() && !specDir.empty()) file = std::filesystem::path(specDir) / file;
        init.file = file.lexically_normal().string();
        const std::string encoding = j.contains("encoding") && j.at("encoding").is_string()
                                         ? j.at("encoding").get<std::string>()
                                         : std::string("zlib");
        if (encoding == "zlib")
            init.encoding = ValuesEncoding::Zlib;
        else if (encoding == "raw")
            init.encoding = ValuesEncoding::Raw;
        else
            return entryError(index, name, "unknown recorded encoding \"" + encoding + "\" (zlib, raw)");
        if (!j.contains("bytes") || !j.at("bytes").is_number_integer() || j.at("bytes").get<int64_t>() < 1)
            return entryError(index, name, "init recorded needs a positive integer \"bytes\"");
        init.bytes = j.at("bytes").get<uint64_t>();
        if (!j.contains("sha256") || !j.at("sha256").is_string() ||
            !spec_parse::isSha256Hex(j.at("sha256").get<std::string>()))
            return entryError(index, name, "init recorded needs \"sha256\": 64 lower-case hex digits");
        init.sha256 = j.at("sha256").get<std::string>();
    } else {
        return entryError(index, name,
                          "unknown init kind \"" + kind +
                              "\" (zeros, constant, uniform, normal, randint, iota, recorded)");
    }
    return init;
}

// The fields every buffer root has, parameter or memory entry: role, init and the program's reference.
Status parseRootFields(const json& j, EntryAt at, ParamSpec& p, const std::string& specDir)
{
    const std::string role = j.value("role", std::string("input"));
    if (role == "input")
        p.role = ParamRole::Input;
    else if (role == "output")
        p.role = ParamRole::Output;
    else if (role == "inout")
        p.role = ParamRole::InOut;
    else
        return entryError(at, p.name, "unknown role \"" + role + "\" (input, output, inout)");
    if (j.contains("init")) {
        auto init = parseInit(j.at("init"), at, p.name, specDir);
        if (!init) return init.error();
        p.init = init.value();
        if (p.init.kind == InitKind::Recorded && p.init.bytes != p.bufferBytes())
            return entryError(at, p.name,
                              "recorded values hold " + std::to_string(p.init.bytes) + " bytes, the buffer " +
                                  std::to_string(p.bufferBytes()));
    } else if (p.role != ParamRole::Output) {
        return entryError(at, p.name, "an input/inout buffer needs an \"init\"");
    }
    if (j.contains("reference")) {
        const json& r = j.at("reference");
        if (!r.is_object() || !r.contains("sha256") || !r.at("sha256").is_string() ||
            !spec_parse::isSha256Hex(r.at("sha256").get<std::string>()))
            return entryError(at, p.name, "\"reference\" must be {\"sha256\": 64 lower-case hex digits}");
        p.referenceSha256 = r.at("sha256").get<std::string>();
    }
    return Ok{};
}

// dtype and count, then an alias (parameters only) or the root's fields.
Status parseBufferFields(const json& j, EntryAt at, ParamSpec& p, const std::string& specDir)
{
    if (!j.contains("count") || !j.at("count").is_number_integer() || j.at("count").get<int64_t>() < 1)
        return entryError(at, p.name, "buffer needs a positive integer \"count\"");
    p.count = j.at("count").get<uint64_t>();
    if (p.count > (uint64_t(1) << 36)) return entryError(at, p.name, "buffer \"count\" is implausibly large");
    if (!j.contains("alias")) return parseRootFields(j, at, p, specDir);
    if (std::string(at.list) == "memory")
        return entryError(at, p.name,
                          "a memory entry owns its allocation: it may be an alias target, not an alias");
    const json& a = j.at("alias");
    if (!a.is_object() || !a.contains("of") || !a.at("of").is_string() ||
        a.at("of").get<std::string>().empty())
        return entryError(at, p.name, "\"alias\" must be an object {\"of\": NAME, \"offset\": BYTES}");
    p.aliasOf = a.at("of").get<std::string>();
    if (a.contains("offset")) {
        if (!a.at("offset").is_number_integer() || a.at("offset").get<int64_t>() < 0)
            return entryError(at, p.name, "alias \"offset\" must be a non-negative integer (bytes)");
        p.aliasOffset = a.at("offset").get<uint64_t>();
    }
    // The root's role and init describe the shared memory: an alias saying otherwise is ambiguous.
    if (j.contains("init") || j.contains("role"))
        return entryError(at, p.name,
                          "an alias of " + p.aliasOf +
                              " takes its contents and role from it; drop its "
                              "\"init\" and \"role\"");
    if (j.contains("reference"))
        return entryError(at, p.name,
                          "an alias of " + p.aliasOf + " has no \"reference\": its root's covers the memory");
    p.aliasRoot = int(at.index); // resolved once every parameter is known
    return Ok{};
}

Status readDType(const json& j, EntryAt at, ParamSpec& p)
{
    if (!j.contains("dtype") || !j.at("dtype").is_string())
        return entryError(at, p.name, "missing \"dtype\"");
    auto dt = parseDType(j.at("dtype").get<std::string>());
    if (!dt)
        return entryError(at, p.name,
                          "unknown dtype \"" + j.at("dtype").get<std::string>() +
                              "\" (f16 bf16 f32 f64 i8 u8 i16 u16 i32 u32 i64 u64)");
    p.dtype = *dt;
    return Ok{};
}

Result<ParamSpec> parseParam(const json& j, size_t index, const std::string& specDir)
{
    const EntryAt at{"params", index};
    ParamSpec p;
    if (!j.is_object()) return entryError(at, "", "must be an object");
    if (j.contains("name") && j.at("name").is_string()) p.name = j.at("name").get<std::string>();
    if (!j.contains("kind") || !j.at("kind").is_string())
        return entryError(at, p.name, "missing \"kind\" (buffer, scalar, null, bytes)");
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "null") {
        p.kind = ParamKind::Null;
        return p;
    }
    if (kind == "bytes") {
        p.kind = ParamKind::Bytes;
        if (Status st = spec_parse::parseBytes(j, at, p); !st) return st.error();
        return p;
    }
    if (kind != "buffer" && kind != "scalar")
        return entryError(at, p.name, "unknown kind \"" + kind + "\" (buffer, scalar, null, bytes)");
    p.kind = kind == "buffer" ? ParamKind::Buffer : ParamKind::Scalar;
    if (Status st = readDType(j, at, p); !st) return st.error();
    if (p.kind == ParamKind::Scalar) {
        if (!j.contains("value") || !j.at("value").is_number())
            return entryError(at, p.name, "scalar needs a numeric \"value\"");
        p.value = j.at("value").get<double>();
        return p;
    }
    if (Status st = parseBufferFields(j, at, p, specDir); !st) return st.error();
    return p;
}

// A memory entry: a buffer root that is not a parameter (no "kind", or "buffer").
Result<ParamSpec> parseMemory(const json& j, size_t index, const std::string& specDir)
{
    const EntryAt at{"memory", index};
    ParamSpec p;
    p.kind = ParamKind::Buffer;
    if (!j.is_object()) return entryError(at, "", "must be an object");
    if (!j.contains("name") || !j.at("name").is_string() || j.at("name").get<std::string>().empty())
        return entryError(at, "", "needs a \"name\" (what pointers and aliases call it)");
    p.name = j.at("name").get<std::string>();
    if (j.contains("kind") && j.at("kind") != "buffer")
        return entryError(at, p.name, "a memory entry is a buffer (leave out \"kind\")");
    if (Status st = readDType(j, at, p); !st) return st.error();
    if (Status st = parseBufferFields(j, at, p, specDir); !st) return st.error();
    return p;
}

// Pointers and aliases find their targets by name: a name may stand for one allocation only.
Status checkNamesUnique(const LaunchSpec& s)
{
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < s.slotCount(); ++i) {
        const ParamSpec& p = s.slot(i);
        if (p.name.empty()) continue;
        auto [it, fresh] = seen.emplace(p.name, i);
        if (fresh) continue;
        auto where = [&](size_t slot) {
            return slot < s.params.size() ? EntryAt{"params", slot}
                                          : EntryAt{"memory", slot - s.params.size()};
        };
        const EntryAt first = where(it->second);
        return entryError(where(i), p.name,
                          "the name is taken by " + std::string(first.list) + "[" +
                              std::to_string(first.index) + "] (names are unique across params and memory)");
    }
    return Ok{};
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
    case InitKind::Recorded:
        return "recorded";
    }
    return "zeros";
}

// Resolves every alias to the slot owning its allocation (a buffer parameter or a memory entry),
// refusing unknown targets, targets that are not buffers, cycles and views reaching past the end of the
// allocation. Names are unique by now.
Status resolveAliases(LaunchSpec& s)
{
    auto byName = [&](const std::string& name, size_t self, size_t& found) -> std::string {
        found = s.slotCount();
        for (size_t k = 0; k < s.slotCount() && found == s.slotCount(); ++k)
            if (s.slot(k).name == name) found = k;
        if (found == s.slotCount())
            return "its target " + name + " is not a parameter or memory entry of the spec";
        if (s.slot(found).kind != ParamKind::Buffer) return "its target " + name + " is not a buffer";
        if (found == self) return "it names itself";
        return {};
    };
    for (size_t i = 0; i < s.params.size(); ++i) {
        ParamSpec& p = s.params[i];
        if (p.kind != ParamKind::Buffer || p.aliasOf.empty()) continue;
        std::vector<size_t> chain{i};
        uint64_t offset = p.aliasOffset;
        size_t at = i;
        while (!s.slot(at).aliasOf.empty()) {
            size_t next = 0;
            std::string problem = byName(s.slot(at).aliasOf, at, next);
            if (!problem.empty()) return entryError({"params", i}, p.name, "bad alias: " + problem);
            if (std::find(chain.begin(), chain.end(), next) != chain.end()) {
                std::string names;
                for (size_t c : chain)
                    names += s.slot(c).name + " -> ";
                return entryError({"params", i}, p.name,
                                  "bad alias: a cycle (" + names + s.slot(next).name + ")");
            }
            chain.push_back(next);
            at = next;
            if (!s.slot(at).aliasOf.empty()) offset += s.slot(at).aliasOffset;
        }
        const ParamSpec& root = s.slot(at);
        if (offset > root.bufferBytes() || p.bufferBytes() > root.bufferBytes() - offset)
            return entryError({"params", i}, p.name,
                              "bad alias: " + std::to_string(p.bufferBytes()) + " bytes at offset " +
                                  std::to_string(offset) + " of " + root.name + " reach past its " +
                                  std::to_string(root.bufferBytes()) + " bytes");
        p.aliasRoot = int(at);
        p.rootOffset = offset;
    }
    return Ok{};
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
    if (Status st = spec_parse::parseCluster(j, s); !st) return st.error();
    if (j.contains("dynamic_shared")) {
        if (!j.at("dynamic_shared").is_number_integer() || j.at("dynamic_shared").get<int64_t>() < 0)
            return makeError("launch spec: \"dynamic_shared\" must be a non-negative integer");
        s.dynamicShared = j.at("dynamic_shared").get<uint32_t>();
    }
    if (!j.contains("params") || !j.at("params").is_array())
        return makeError("launch spec: missing \"params\" array");
    const json& params = j.at("params");
    for (size_t i = 0; i < params.size(); ++i) {
        auto p = parseParam(params[i], i, specDir);
        if (!p) return p.error();
        s.params.push_back(std::move(p.value()));
    }
    if (j.contains("memory")) {
        const json& memory = j.at("memory");
        if (!memory.is_array()) return makeError("launch spec: \"memory\" must be an array");
        for (size_t i = 0; i < memory.size(); ++i) {
            auto m = parseMemory(memory[i], i, specDir);
            if (!m) return m.error();
            s.memory.push_back(std::move(m.value()));
        }
    }
    if (Status st = checkNamesUnique(s); !st) return st.error();
    if (Status st = resolveAliases(s); !st) return st.error();
    if (Status st = spec_parse::resolvePointers(s); !st) return st.error();
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
    if (Status st = checkRecordedValues(spec.value()); !st)
        return makeError(st.message() + " [" + path + "]");
    return spec;
}

std::vector<int> allocatedParams(const LaunchSpec& spec)
{
    std::vector<int> out;
    for (size_t i = 0; i < spec.slotCount(); ++i)
        if (spec.slot(i).ownsAllocation()) out.push_back(int(i));
    return out;
}

std::vector<int> comparedParams(const LaunchSpec& spec)
{
    std::vector<int> out;
    for (size_t i = 0; i < spec.slotCount(); ++i)
        if (spec.slot(i).compared()) out.push_back(int(i));
    return out;
}

namespace {

// dtype, count and either the alias or the root's role, init and reference.
void bufferToJson(const ParamSpec& p, json& e)
{
    e["dtype"] = dtypeName(p.dtype);
    e["count"] = p.count;
    if (!p.aliasOf.empty()) {
        e["alias"] = {{"of", p.aliasOf}, {"offset", p.aliasOffset}};
        return;
    }
    e["role"] = p.role == ParamRole::Input ? "input" : p.role == ParamRole::Output ? "output" : "inout";
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
    if (p.init.kind == InitKind::Recorded) {
        init["file"] = p.init.file;
        init["encoding"] = p.init.encoding == ValuesEncoding::Raw ? "raw" : "zlib";
        init["bytes"] = p.init.bytes;
        init["sha256"] = p.init.sha256;
    }
    e["init"] = init;
    if (!p.referenceSha256.empty()) e["reference"] = {{"sha256", p.referenceSha256}};
}

} // namespace

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
        case ParamKind::Bytes:
            spec_parse::bytesToJson(p, e);
            break;
        case ParamKind::Buffer:
            e["kind"] = "buffer";
            bufferToJson(p, e);
            break;
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
    if (!s.memory.empty()) {
        json memory = json::array();
        for (const ParamSpec& m : s.memory) {
            json e{{"name", m.name}};
            bufferToJson(m, e);
            memory.push_back(e);
        }
        j["memory"] = std::move(memory);
    }
    if (s.cluster) j["cluster"] = *s.cluster;
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
                               : p.kind == ParamKind::Bytes ? std::string("its bytes by value")
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
