#pragma once
// What a front end needs of PPO before a run (docs/ppo.md): whether the libtorch plug-in loads here, and
// a settings file read over its preset. The agent itself is made by the run (search_policy.h).
#include "core/common/result.h"
#include "core/search/search_config.h"

#include <string>

namespace sassx {

// The plug-in's path, or why none can be loaded (one line, naming where it looked).
Result<std::string> ppoPluginPath();

// A settings file: any subset of the keys of docs/ppo.md over a preset ("preset", default sassx), into
// `config`'s PPO settings and preset name. An error names the file.
Status readPpoSettings(const std::string& path, search::SearchConfig& config);

} // namespace sassx
