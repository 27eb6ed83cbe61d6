#include "core/tune/capture_origins.h"

#include "core/common/read_file.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace sassx::tune {

using nlohmann::json;

std::map<std::string, inject::ModuleOrigin> captureOrigins(const std::string& dir)
{
    std::map<std::string, inject::ModuleOrigin> out;
    auto bytes = readRegularFile((std::filesystem::path(dir) / "capture.json").string());
    if (!bytes) return out;
    const json j = json::parse(bytes->begin(), bytes->end(), nullptr, false);
    if (!j.is_object()) return out;
    for (const char* list : {"kernels", "skipped"}) {
        const json entries = j.value(list, json());
        if (!entries.is_array()) continue;
        for (const json& e : entries) {
            if (!e.is_object() || !e.value("name", json()).is_string() ||
                !e.value("origin", json()).is_string())
                continue;
            const auto kind = parseEnum(inject::kOriginKindNames, e["origin"].get<std::string>());
            if (!kind) continue;
            const json lib = e.value("library", json());
            out[e["name"].get<std::string>()] = {*kind,
                                                 lib.is_string() ? lib.get<std::string>() : std::string()};
        }
    }
    return out;
}

std::string originText(const inject::ModuleOrigin& origin)
{
    const std::string kind(enumName(inject::kOriginKindNames, origin.kind));
    if (origin.file.empty() || origin.kind == inject::OriginKind::Triton) return kind;
    const std::string name = std::filesystem::path(origin.file).filename().string();
    return origin.kind == inject::OriginKind::Library ? kind + " " + name : kind + ", loaded by " + name;
}

} // namespace sassx::tune
