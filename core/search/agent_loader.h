#pragma once
// Finds and loads the PPO plug-in (libsassx_ppo.so, built when libtorch is found: core/search/rl) and
// makes agents from it. Looked for in $SASSX_PPO_PLUGIN (a file), beside the executable, in ../lib from
// it, then where this build put it. The plug-in stays loaded for the life of the process.
#include "core/common/result.h"
#include "core/search/agent.h"

#include <memory>
#include <string>

namespace sassx::search {

// The plug-in's path, or why none can be loaded (one line, naming where it looked).
Result<std::string> ppoPluginPath();
// A fresh agent with the seeded initialisation of `settings`.
Result<std::unique_ptr<ScheduleAgent>> makePpoAgent(const PpoSettings& settings, int actionDim, int stateDim,
                                                    uint64_t seed);
// An agent whose weights come from a saved policy (a search's policy.pt; --policy FILE): the warm
// start. The file must have been saved for the same feature dimensions and width.
Result<std::unique_ptr<ScheduleAgent>> makePpoAgentFromFile(const std::string& path,
                                                            const PpoSettings& settings, int actionDim,
                                                            int stateDim, uint64_t seed);

} // namespace sassx::search
