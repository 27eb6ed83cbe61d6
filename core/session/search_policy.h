#pragma once
// The learning agent of a PPO search run (docs/ppo.md) as the search run keeps it: the agent made from the
// plug-in (fresh, or warm-started from a saved policy), DIR/policy.pt written beside every checkpoint,
// and what the report says about the learning.
#include "core/common/result.h"
#include "core/search/agent.h"
#include "core/search/search_state.h"
#include "core/session/workspace.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace sassx {

// An agent for `config` (algorithm ppo); `policyPath` non-empty: warm-started from that file.
Result<std::unique_ptr<search::ScheduleAgent>> makeSearchAgent(const search::SearchConfig& config,
                                                               const std::string& policyPath);
// DIR/policy.pt: the agent after its last update (SearchState::agentBytes); nothing for other algorithms.
Status writePolicy(const std::string& dir, const search::SearchState& state);
// Reads DIR/policy.pt into state.agentBytes for a resumed PPO run.
Status readPolicy(const std::string& dir, search::SearchState& state);
// report.json's "agent": the agent, updates, episodes, learning curve, where the policy is.
nlohmann::json agentReport(const std::string& dir, const search::SearchState& state,
                           const std::string& warmStart);

} // namespace sassx
