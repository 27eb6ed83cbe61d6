#pragma once
// The learning agent of a PPO search run (issue 14) as the search run keeps it: the agent made from the
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

// One of the policy's preferred edits of one instruction: what the GUI offers as a suggestion.
struct PolicySuggestion
{
    Edit edit;
    double share = 0; // the policy's probability of this edit among the instruction's legal edits
};
// The `top` edits of the instruction at `position` that the saved policy (a PPO run's policy.pt, its
// configuration `config`) prefers from `current`, most likely first; empty when the instruction has no
// legal edit in the run's space.
Result<std::vector<PolicySuggestion>>
policySuggestions(const KernelWorkspace& kernel, const search::SearchConfig& config,
                  const std::string& policyPath, const Schedule& current, uint32_t position, int top = 3);

} // namespace sassx
