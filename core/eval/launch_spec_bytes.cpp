// By-value `bytes` parameters (docs/launch-spec.md, "By-value bytes and memory"): a kernel captured at
// the driver has no dtypes, only its parameter bank, and may take structs holding device pointers
// (FlashAttention's params). Such a parameter is its exact bytes plus the pointers written into them;
// the allocations they point into are the spec's memory entries, whose `reference` digests say whether
// the replay reproduces the program.
#include "core/eval/launch_spec_parse.h"

#include <algorithm>

namespace sassx::eval::spec_parse {

using nlohmann::json;

namespace {

int hexDigit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool isNonNegativeInteger(const json& j)
{
    return j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0);
}

Status parsePointer(const json& j, EntryAt at, const ParamSpec& p, size_t k, PointerPatch& out)
{
    const std::string where = "pointers[" + std::to_string(k) + "]: ";
    if (!j.is_object() || !j.contains("at") || !j.contains("to"))
        return entryError(at, p.name,
                          where + "must be an object {\"at\": BYTE, \"to\": NAME, \"offset\": BYTES}");
    if (!isNonNegativeInteger(j.at("at")))
        return entryError(at, p.name, where + "\"at\" must be a non-negative integer (a byte offset)");
    const uint64_t byte = j.at("at").get<uint64_t>();
    if (byte % 8 != 0)
        return entryError(at, p.name, where + "\"at\" " + std::to_string(byte) + " is not 8-byte aligned");
    if (byte + 8 > p.raw.size())
        return entryError(at, p.name,
                          where + "8 bytes at " + std::to_string(byte) + " reach past the parameter's " +
                              std::to_string(p.raw.size()) + " bytes");
    if (!j.at("to").is_string() || j.at("to").get<std::string>().empty())
        return entryError(at, p.name, where + "\"to\" must name a memory entry or a buffer parameter");
    out.at = uint32_t(byte);
    out.to = j.at("to").get<std::string>();
    if (j.contains("offset")) {
        if (!isNonNegativeInteger(j.at("offset")))
            return entryError(at, p.name, where + "\"offset\" must be a non-negative integer (bytes)");
        out.offset = j.at("offset").get<uint64_t>();
    }
    return Ok{};
}

} // namespace

Status parseBytes(const json& j, EntryAt at, ParamSpec& p)
{
    if (!j.contains("size") || !isNonNegativeInteger(j.at("size")) || j.at("size").get<uint64_t>() < 1 ||
        j.at("size").get<uint64_t>() > kMaxParamBytes)
        return entryError(at, p.name,
                          "bytes needs an integer \"size\" from 1 to " + std::to_string(kMaxParamBytes) +
                              " (the driver's parameter limit)");
    const size_t size = j.at("size").get<size_t>();
    if (!j.contains("hex") || !j.at("hex").is_string())
        return entryError(at, p.name,
                          "bytes needs \"hex\": its " + std::to_string(size) + " bytes as hex digits");
    const std::string& hex = j.at("hex").get_ref<const std::string&>();
    if (hex.size() != 2 * size)
        return entryError(at, p.name,
                          "\"hex\" holds " + std::to_string(hex.size()) + " digits; size " +
                              std::to_string(size) + " needs " + std::to_string(2 * size));
    p.raw.resize(size);
    for (size_t i = 0; i < size; ++i) {
        const int hi = hexDigit(hex[2 * i]), lo = hexDigit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return entryError(at, p.name,
                              "\"hex\" has a character that is not a hex digit at " +
                                  std::to_string(hi < 0 ? 2 * i : 2 * i + 1));
        p.raw[i] = uint8_t(hi << 4 | lo);
    }
    if (!j.contains("pointers")) return Ok{};
    const json& pointers = j.at("pointers");
    if (!pointers.is_array()) return entryError(at, p.name, "\"pointers\" must be an array");
    for (size_t k = 0; k < pointers.size(); ++k) {
        PointerPatch patch;
        if (Status st = parsePointer(pointers[k], at, p, k, patch); !st) return st;
        for (const PointerPatch& other : p.pointers)
            if (other.at == patch.at)
                return entryError(at, p.name,
                                  "pointers[" + std::to_string(k) + "]: a second pointer at byte " +
                                      std::to_string(patch.at));
        p.pointers.push_back(std::move(patch));
    }
    return Ok{};
}

Status resolvePointers(LaunchSpec& spec)
{
    for (size_t i = 0; i < spec.params.size(); ++i) {
        ParamSpec& p = spec.params[i];
        for (size_t k = 0; k < p.pointers.size(); ++k) {
            PointerPatch& patch = p.pointers[k];
            const std::string where = "pointers[" + std::to_string(k) + "]: ";
            size_t target = spec.slotCount();
            for (size_t s = 0; s < spec.slotCount() && target == spec.slotCount(); ++s)
                if (spec.slot(s).name == patch.to) target = s;
            if (target == spec.slotCount())
                return entryError({"params", i}, p.name,
                                  where + "its target " + patch.to + " is not a parameter or memory entry");
            const ParamSpec& t = spec.slot(target);
            if (t.kind != ParamKind::Buffer)
                return entryError({"params", i}, p.name,
                                  where + "its target " + patch.to + " is not a buffer or memory entry");
            if (patch.offset >= t.bufferBytes())
                return entryError({"params", i}, p.name,
                                  where + "offset " + std::to_string(patch.offset) + " is outside " +
                                      patch.to + "'s " + std::to_string(t.bufferBytes()) + " bytes");
            patch.root = t.isAlias() ? t.aliasRoot : int(target);
            patch.rootOffset = (t.isAlias() ? t.rootOffset : 0) + patch.offset;
        }
    }
    return Ok{};
}

void bytesToJson(const ParamSpec& p, json& e)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * p.raw.size());
    for (uint8_t b : p.raw) {
        hex += kDigits[b >> 4];
        hex += kDigits[b & 15];
    }
    e["kind"] = "bytes";
    e["size"] = p.raw.size();
    e["hex"] = std::move(hex);
    if (p.pointers.empty()) return;
    json pointers = json::array();
    for (const PointerPatch& patch : p.pointers)
        pointers.push_back({{"at", patch.at}, {"to", patch.to}, {"offset", patch.offset}});
    e["pointers"] = std::move(pointers);
}

} // namespace sassx::eval::spec_parse

namespace sassx::eval {

std::string programReferenceLine(const nlohmann::json& answer)
{
    if (!answer.is_object() || !answer.contains("reference") || !answer.at("reference").is_object())
        return {};
    const nlohmann::json& r = answer.at("reference");
    auto names = [&](const char* key) {
        std::string out;
        if (r.contains(key) && r.at(key).is_array())
            for (const nlohmann::json& n : r.at(key))
                if (n.is_string()) out += (out.empty() ? "" : ", ") + n.get<std::string>();
        return out;
    };
    const std::string differs = names("differs"), matched = names("matched");
    if (!differs.empty())
        return "the replay differs from the program's for " + differs +
               ": the kernel may read memory the capture did not record";
    if (matched.empty()) return {};
    return "the replay reproduces the program's outputs (" + matched + ")";
}

} // namespace sassx::eval
