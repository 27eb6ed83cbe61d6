// The PPO algorithm of the search engine (docs/ppo.md): episodes of `episode_length` legal edits from the
// start schedule, each edit chosen by the agent among the space's legal actions and measured like any
// candidate; the reward is the change in speed-up (× reward_scale), and the agent updates every
// `steps_per_update` transitions. Bests follow the engine's one rule (confirmed, clearly above the
// original). The rollout since the last update is kept in the checkpoint as (base, action, reward)
// records, so a resumed run rebuilds the same observations and continues exactly.
#include "core/search/search_engine.h"

#include <algorithm>
#include <numeric>

namespace sassx::search {

namespace {

nlohmann::json statsJson(const UpdateStats& s, int64_t evaluations)
{
    return {{"update", s.updates},
            {"evaluations", evaluations},
            {"policy_loss", s.policyLoss},
            {"value_loss", s.valueLoss},
            {"entropy", s.entropy},
            {"approx_kl", s.approxKl},
            {"clip_fraction", s.clipFraction},
            {"explained_variance", s.explainedVariance}};
}

} // namespace

void SearchEngine::setAgent(std::unique_ptr<ScheduleAgent> agent)
{
    m_agent = std::move(agent);
}

Status SearchEngine::startAgent(bool resuming)
{
    if (!m_agent) return makeError("a PPO search needs its agent (the libtorch plug-in, docs/ppo.md)");
    m_features = std::make_unique<FeatureExtractor>(m_checker.analysis());
    nlohmann::json& a = m_state.agent;
    if (!resuming || !a.is_object()) {
        a = {{"episode_step", 0},
             {"episode_base", -1},
             {"episode_speedup", 1.0},
             {"episodes", 0},
             {"updates", 0},
             {"rollout", nlohmann::json::array()},
             {"learning", nlohmann::json::array()}};
        a["agent"] = m_agent->describe();
        m_state.agentBytes = m_agent->save();
        m_episodeSchedule = m_startSchedule;
        return Ok{};
    }
    if (!m_state.agentBytes.empty())
        if (std::string why = m_agent->load(m_state.agentBytes, true); !why.empty())
            return makeError("the checkpoint's policy does not load: " + why);
    // The rollout since the last update: same weights, same observations, same log-probabilities.
    for (const auto& t : a.at("rollout")) {
        const Schedule s = scheduleOf(t.at("base").get<int>());
        const PpoView v = observeEpisode(s, t.at("episode_step").get<int>(), t.at("speedup").get<double>(),
                                         t.at("subset_seed").get<uint64_t>());
        const int action = t.at("action").get<int>();
        if (action < 0 || action >= v.observation.count())
            return makeError("the checkpoint's rollout does not match this kernel's legal actions");
        m_agent->replay(v.observation, action);
        m_agent->reward(t.at("reward").get<double>(), t.at("end").get<bool>());
    }
    m_episodeSchedule = scheduleOf(a.at("episode_base").get<int>());
    return Ok{};
}

SearchEngine::PpoView SearchEngine::observeEpisode(const Schedule& s, int step, double speedup,
                                                   uint64_t subsetSeed) const
{
    const PpoSettings& p = m_state.config.ppo;
    PpoView v;
    v.subsetSeed = subsetSeed;
    v.actions = m_proposer->legalActions(s);
    if (int(v.actions.size()) > p.maxActions) {
        // A seeded sample, kept in action order: the seed is in the rollout record, so a replay draws
        // the same rows.
        std::vector<size_t> idx(v.actions.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::mt19937_64 sub(subsetSeed);
        std::shuffle(idx.begin(), idx.end(), sub);
        idx.resize(size_t(p.maxActions));
        std::sort(idx.begin(), idx.end());
        std::vector<Edit> kept;
        for (size_t i : idx)
            kept.push_back(v.actions[i]);
        v.actions = std::move(kept);
    }
    v.observation = m_features->observe(s, v.actions, double(step) / double(p.episodeLength), speedup);
    return v;
}

void SearchEngine::endEpisode()
{
    nlohmann::json& a = m_state.agent;
    a["episode_step"] = 0;
    a["episode_base"] = -1;
    a["episode_speedup"] = 1.0;
    a["episodes"] = a.value("episodes", 0) + 1;
    m_episodeSchedule = m_startSchedule;
    setIncumbent(-1, 1.0, m_startSchedule);
}

void SearchEngine::updateAgent()
{
    nlohmann::json& a = m_state.agent;
    const PpoView next = observeEpisode(m_episodeSchedule, a.at("episode_step").get<int>(),
                                        a.at("episode_speedup").get<double>(), m_state.config.seed);
    const UpdateStats stats = m_agent->update(next.observation, m_rng);
    a["updates"] = stats.updates;
    a["rollout"] = nlohmann::json::array();
    a["learning"].push_back(statsJson(stats, m_state.evaluations()));
    m_state.agentBytes = m_agent->save();
}

void SearchEngine::ppoStep()
{
    const PpoSettings& p = m_state.config.ppo;
    nlohmann::json& a = m_state.agent;
    const int step = a.at("episode_step").get<int>();
    const int base = a.at("episode_base").get<int>();
    const double speedup = a.at("episode_speedup").get<double>();
    const uint64_t subsetSeed = m_rng();
    const PpoView v = observeEpisode(m_episodeSchedule, step, speedup, subsetSeed);
    if (v.actions.empty()) {
        // Nothing legal from here: a fresh episode (from the start, a space with no edit at all ends
        // the run through the engine's empty-step limit).
        ++m_emptyProposals;
        if (step > 0) endEpisode();
        return;
    }
    m_emptyProposals = 0;
    ++m_state.steps;
    const int row = m_agent->act(v.observation, m_rng);
    Candidate c;
    c.base = base;
    c.schedule = m_episodeSchedule;
    c.edits = m_proposer->applyAction(c.schedule, v.actions[size_t(row)]);
    bool applied = !c.edits.empty();
    if (applied && !quickLegal(m_episodeSchedule, c.schedule)) {
        ++m_state.refusedByCheck;
        applied = false;
    }
    double reward = 0.0;
    bool end = step + 1 >= p.episodeLength;
    int evaluated = -1;
    if (applied) {
        auto results = evaluate({c}, EvalRequest{1.0 / m_state.bestSpeedup, false});
        SearchEvaluation& e = record(c, "ppo", results[0], 0.0);
        evaluated = e.step;
        if (e.figures.ok) {
            e.outcome = Outcome::Accepted; // every action is taken: the episode walks on from it
            reward = (e.figures.speedup - speedup) * p.rewardScale;
            a["episode_base"] = e.step;
            a["episode_speedup"] = e.figures.speedup;
            m_episodeSchedule = c.schedule;
            setIncumbent(e.step, e.figures.speedup, c.schedule);
        } else {
            // A legal edit should never fail; if one does (a fault, a time-out), the episode ends as if
            // the kernel were 10% slower.
            reward = -0.1 * p.rewardScale;
            end = true;
        }
        const SearchEvaluation copy = e;
        publish(copy);
    }
    // An action whose codes could not be derived (rescheduled space) changes nothing and earns nothing.
    a["episode_step"] = step + 1;
    a["rollout"].push_back({{"base", base},
                            {"episode_step", step},
                            {"speedup", speedup},
                            {"subset_seed", subsetSeed},
                            {"action", row},
                            {"evaluation", evaluated},
                            {"reward", reward},
                            {"end", end}});
    m_agent->reward(reward, end);
    if (end) endEpisode();
    if (m_agent->pending() >= p.stepsPerUpdate) updateAgent();
}

} // namespace sassx::search
