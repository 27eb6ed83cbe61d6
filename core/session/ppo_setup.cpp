#include "core/session/ppo_setup.h"

#include "core/common/read_file.h"
#include "core/search/agent_loader.h"
#include "core/search/ppo_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace sassx {

Result<std::string> ppoPluginPath()
{
    return search::ppoPluginPath();
}

Status readPpoSettings(const std::string& path, search::SearchConfig& config)
{
    auto bytes = readRegularFile(path);
    if (!bytes) return bytes.error();
    auto j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
    if (j.is_discarded()) return makeError(path + " is not JSON");
    config.ppoPreset = j.is_object() ? j.value("preset", std::string("sassx")) : "sassx";
    auto preset = search::ppoPreset(config.ppoPreset);
    if (!preset) return makeError(path + ": " + preset.message());
    auto settings = search::ppoSettingsFromJson(j, *preset);
    if (!settings) return makeError(path + ": " + settings.message());
    config.ppo = *settings;
    return Ok{};
}

} // namespace sassx
