#include "core/session/search_policy.h"

#include "core/common/atomic_file.h"
#include "core/search/agent_loader.h"
#include "core/search/ppo_config.h"
#include "core/search/schedule_features.h"
#include "core/search/search_space.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sassx {

namespace fs = std::filesystem;
using search::FeatureExtractor;

Result<std::unique_ptr<search::ScheduleAgent>> makeSearchAgent(const search::SearchConfig& config,
                                                               const std::string& policyPath)
{
    if (policyPath.empty())
        return search::makePpoAgent(config.ppo, FeatureExtractor::kActionDim, FeatureExtractor::kStateDim,
                                    config.seed);
    return search::makePpoAgentFromFile(policyPath, config.ppo, FeatureExtractor::kActionDim,
                                        FeatureExtractor::kStateDim, config.seed);
}

Status writePolicy(const std::string& dir, const search::SearchState& state)
{
    if (state.config.algorithm != search::Algorithm::Ppo || state.agentBytes.empty()) return Ok{};
    return writeFileAtomically((fs::path(dir) / "policy.pt").string(), state.agentBytes);
}

Status readPolicy(const std::string& dir, search::SearchState& state)
{
    if (state.config.algorithm != search::Algorithm::Ppo) return Ok{};
    const std::string path = (fs::path(dir) / "policy.pt").string();
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("the PPO checkpoint's policy " + path + " is missing");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    state.agentBytes = bytes.str();
    return Ok{};
}

nlohmann::json agentReport(const std::string& dir, const search::SearchState& state,
                           const std::string& warmStart)
{
    if (state.config.algorithm != search::Algorithm::Ppo) return nullptr;
    if (!state.agent) return nullptr; // stopped before the strategy began
    const search::PpoState& a = *state.agent;
    nlohmann::json j{{"agent", a.agent},
                     {"preset", state.config.ppoPreset},
                     {"settings", search::toJson(state.config.ppo)},
                     {"updates", a.updates},
                     {"episodes", a.episodes},
                     // num_envs as the run resolved it (settings' 0: automatic; docs/ppo.md).
                     {"num_envs", a.numEnvs},
                     {"policy", (fs::path(dir) / "policy.pt").string()},
                     {"warm_start", warmStart.empty() ? nlohmann::json(nullptr) : nlohmann::json(warmStart)}};
    j["learning"] = a.learning;
    // What one reward unit is: 1 / the noise floor on a GPU, reward_scale on the estimate (docs/ppo.md).
    if (a.rewardUnit) {
        j["reward_unit"] = *a.rewardUnit;
        j["reward_unit_is"] = a.rewardUnitIs.empty() ? std::string("reward_scale") : a.rewardUnitIs;
    }
    return j;
}

} // namespace sassx
