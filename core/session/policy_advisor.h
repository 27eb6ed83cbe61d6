#pragma once
// The policy of a PPO run (its policy.pt) asked which edits of one instruction it prefers: what the GUI
// offers as suggestions (docs/ppo.md). Asking about instruction after instruction of one schedule is the
// GUI's pattern, so the advisor keeps the policy it loaded (until the file's bytes change) and the policy's
// scores of the last schedule's legal actions (one forward pass serves every instruction of it).
#include "core/common/result.h"
#include "core/rewrite/variant.h"
#include "core/search/agent.h"
#include "core/search/search_config.h"
#include "core/session/workspace.h"

#include <memory>
#include <string>
#include <vector>

namespace sassx {

// One of the policy's preferred edits of one instruction.
struct PolicySuggestion
{
    Edit edit;
    double share = 0; // the policy's probability of this edit among the instruction's legal edits
};

class PolicyAdvisor
{
public:
    // The `top` edits of the instruction at `position` that the saved policy (a PPO run's policy.pt, its
    // configuration `config`) prefers from `current`, most likely first; empty when the instruction has
    // no legal edit in the run's space.
    Result<std::vector<PolicySuggestion>> suggestions(const KernelWorkspace& kernel,
                                                      const search::SearchConfig& config,
                                                      const std::string& policyPath, const Schedule& current,
                                                      Position position, int top = 3);

private:
    Status loadPolicy(const search::SearchConfig& config, const std::string& policyPath);
    Status scoreActions(const KernelWorkspace& kernel, const search::SearchConfig& config,
                        const Schedule& current);

    // The loaded policy and what it was loaded from.
    std::unique_ptr<search::ScheduleAgent> m_agent;
    std::string m_bytes;    // the policy file it was loaded from
    std::string m_settings; // the PPO settings it was made with, as JSON
    // The legal actions of the last schedule scored and the policy's probability of each.
    std::shared_ptr<const KernelAnalysis> m_analysis; // held, so that no other kernel can take its address
    search::SearchSpace m_space{};
    Schedule m_schedule;
    std::vector<Edit> m_actions;
    std::vector<double> m_probabilities;
};

// A one-off PolicyAdvisor::suggestions (loads the policy each call).
Result<std::vector<PolicySuggestion>>
policySuggestions(const KernelWorkspace& kernel, const search::SearchConfig& config,
                  const std::string& policyPath, const Schedule& current, Position position, int top = 3);

} // namespace sassx
