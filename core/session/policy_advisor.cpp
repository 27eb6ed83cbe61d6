#include "core/session/policy_advisor.h"

#include "core/search/agent_loader.h"
#include "core/search/ppo_config.h"
#include "core/search/schedule_features.h"
#include "core/search/search_space.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace sassx {

using search::FeatureExtractor;

Status PolicyAdvisor::loadPolicy(const search::SearchConfig& config, const std::string& policyPath)
{
    // A run that goes on rewrites its policy.pt after every update: the file's bytes say whether the
    // loaded policy is still the file's (a timestamp can miss a rewrite within its granularity).
    std::ifstream in(policyPath, std::ios::binary);
    std::ostringstream bytes;
    if (in) bytes << in.rdbuf();
    const std::string settings = search::toJson(config.ppo).dump();
    if (m_agent && in && bytes.str() == m_bytes && settings == m_settings) return Ok{};
    m_agent.reset();
    m_analysis.reset(); // the scores were the old policy's
    auto agent = search::makePpoAgentFromFile(policyPath, config.ppo, FeatureExtractor::kActionDim,
                                              FeatureExtractor::kStateDim, config.seed);
    if (!agent) return agent.error();
    m_agent = std::move(*agent);
    m_bytes = bytes.str();
    m_settings = settings;
    return Ok{};
}

Status PolicyAdvisor::scoreActions(const KernelWorkspace& kernel, const search::SearchConfig& config,
                                   const Schedule& current)
{
    if (m_analysis && m_analysis == kernel.analysisPtr() && m_space == config.space &&
        m_schedule.order == current.order && m_schedule.control == current.control)
        return Ok{};
    const search::EditProposer proposer(kernel.checker(), config.space);
    m_actions = proposer.legalActions(current);
    // The policy scores every legal action of the schedule, as in a search step at its start.
    m_probabilities =
        m_agent->probabilities(FeatureExtractor(kernel.analysis()).observe(current, m_actions, 0.0, 1.0));
    if (m_probabilities.size() != m_actions.size()) {
        m_analysis.reset();
        return makeError("the policy scored " + std::to_string(m_probabilities.size()) + " of " +
                         std::to_string(m_actions.size()) + " legal edits");
    }
    m_analysis = kernel.analysisPtr();
    m_space = config.space;
    m_schedule = current;
    return Ok{};
}

Result<std::vector<PolicySuggestion>>
PolicyAdvisor::suggestions(const KernelWorkspace& kernel, const search::SearchConfig& config,
                           const std::string& policyPath, const Schedule& current, Position position, int top)
{
    if (auto s = loadPolicy(config, policyPath); !s) return s.error();
    if (auto s = scoreActions(kernel, config, current); !s) return s.error();
    std::vector<size_t> mine;
    for (size_t k = 0; k < m_actions.size(); ++k) {
        const Edit& e = m_actions[k];
        if ((e.kind == Edit::Kind::Move ? e.from : e.at) == position) mine.push_back(k);
    }
    double sum = 0;
    for (size_t k : mine)
        sum += m_probabilities[k];
    std::vector<PolicySuggestion> out;
    for (size_t k : mine)
        out.push_back({m_actions[k], sum > 0 ? m_probabilities[k] / sum : 1.0 / double(mine.size())});
    std::stable_sort(out.begin(), out.end(),
                     [](const PolicySuggestion& a, const PolicySuggestion& b) { return a.share > b.share; });
    if (int(out.size()) > top) out.resize(size_t(std::max(0, top)));
    return out;
}

Result<std::vector<PolicySuggestion>> policySuggestions(const KernelWorkspace& kernel,
                                                        const search::SearchConfig& config,
                                                        const std::string& policyPath,
                                                        const Schedule& current, Position position, int top)
{
    PolicyAdvisor advisor;
    return advisor.suggestions(kernel, config, policyPath, current, position, top);
}

} // namespace sassx
