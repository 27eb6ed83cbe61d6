// The PPO algorithm of the search engine (docs/ppo.md): episodes of `episode_length` legal edits from the
// start schedule, each edit chosen by the agent among the space's legal actions and measured like any
// candidate; the reward is the change in speed-up (× reward_scale), and the agent updates every
// `steps_per_update` transitions. Bests follow the engine's one rule (confirmed, clearly above the
// original). The rollout since the last update is kept in the checkpoint as (base, action, reward)
// records, so a resumed run rebuilds the same observations and continues exactly.
#include "core/search/search_strategy.h"

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
            {"epochs", s.epochs},
            {"clip_fraction", s.clipFraction},
            {"explained_variance", s.explainedVariance}};
}

class PpoStrategy : public SearchStrategy
{
public:
    Status begin(SearchEngine& eng, bool resuming) override;
    void step(SearchEngine& eng) override;
    // PPO's episodes start from ptxas' own schedule (docs/ppo.md), so no list schedule seeds them.
    bool wantsListPhase(const SearchConfig&) const override { return false; }
    bool restoresBestAtEnd() const override { return false; }

private:
    struct PpoView
    {
        std::vector<Edit> actions; // the rows of the observation
        Observation observation;
        uint64_t subsetSeed = 0;
    };
    PpoView observeEpisode(const SearchEngine& eng, const Schedule& s, int step, double speedup,
                           uint64_t subsetSeed) const;
    void endEpisode(SearchEngine& eng);
    void updateAgent(SearchEngine& eng);

    std::unique_ptr<FeatureExtractor> m_features;
    Schedule m_episodeSchedule;
};

Status PpoStrategy::begin(SearchEngine& eng, bool resuming)
{
    if (!eng.agent()) return makeError("a PPO search needs its agent (the libtorch plug-in, docs/ppo.md)");
    m_features = std::make_unique<FeatureExtractor>(eng.checker().analysis());
    nlohmann::json& a = eng.state().agent;
    if (!resuming || !a.is_object()) {
        a = {{"episode_step", 0},
             {"episode_base", -1},
             {"episode_speedup", 1.0},
             {"episodes", 0},
             {"updates", 0},
             {"rollout", nlohmann::json::array()},
             {"learning", nlohmann::json::array()}};
        a["agent"] = eng.agent()->describe();
        eng.state().agentBytes = eng.agent()->save();
        m_episodeSchedule = eng.startSchedule();
        return Ok{};
    }
    if (!eng.state().agentBytes.empty())
        if (std::string why = eng.agent()->load(eng.state().agentBytes, true); !why.empty())
            return makeError("the checkpoint's policy does not load: " + why);
    // The rollout since the last update: same weights, same observations, same log-probabilities.
    for (const auto& t : a.at("rollout")) {
        const Schedule s = eng.scheduleOf(t.at("base").get<int>());
        const PpoView v = observeEpisode(eng, s, t.at("episode_step").get<int>(),
                                         t.at("speedup").get<double>(), t.at("subset_seed").get<uint64_t>());
        const int action = t.at("action").get<int>();
        if (action < 0 || action >= v.observation.count())
            return makeError("the checkpoint's rollout does not match this kernel's legal actions");
        eng.agent()->replay(v.observation, action);
        eng.agent()->reward(t.at("reward").get<double>(), t.at("end").get<bool>());
    }
    m_episodeSchedule = eng.scheduleOf(a.at("episode_base").get<int>());
    return Ok{};
}

PpoStrategy::PpoView PpoStrategy::observeEpisode(const SearchEngine& eng, const Schedule& s, int step,
                                                 double speedup, uint64_t subsetSeed) const
{
    const PpoSettings& p = eng.state().config.ppo;
    PpoView v;
    v.subsetSeed = subsetSeed;
    v.actions = eng.proposer().legalActions(s);
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

void PpoStrategy::endEpisode(SearchEngine& eng)
{
    nlohmann::json& a = eng.state().agent;
    a["episode_step"] = 0;
    a["episode_base"] = -1;
    a["episode_speedup"] = 1.0;
    a["episodes"] = a.value("episodes", 0) + 1;
    m_episodeSchedule = eng.startSchedule();
    eng.setIncumbent(-1, 1.0, eng.startSchedule());
}

void PpoStrategy::updateAgent(SearchEngine& eng)
{
    nlohmann::json& a = eng.state().agent;
    const PpoView next = observeEpisode(eng, m_episodeSchedule, a.at("episode_step").get<int>(),
                                        a.at("episode_speedup").get<double>(), eng.state().config.seed);
    const UpdateStats stats = eng.agent()->update(next.observation, eng.rng());
    a["updates"] = stats.updates;
    a["rollout"] = nlohmann::json::array();
    a["learning"].push_back(statsJson(stats, eng.state().evaluations()));
    eng.state().agentBytes = eng.agent()->save();
}

void PpoStrategy::step(SearchEngine& eng)
{
    const PpoSettings& p = eng.state().config.ppo;
    nlohmann::json& a = eng.state().agent;
    const int step = a.at("episode_step").get<int>();
    const int base = a.at("episode_base").get<int>();
    const double speedup = a.at("episode_speedup").get<double>();
    const uint64_t subsetSeed = eng.rng()();
    const PpoView v = observeEpisode(eng, m_episodeSchedule, step, speedup, subsetSeed);
    if (v.actions.empty()) {
        // Nothing legal from here: a fresh episode (from the start, a space with no edit at all ends
        // the run through the engine's empty-step limit).
        ++eng.emptyProposals();
        if (step > 0) endEpisode(eng);
        return;
    }
    eng.emptyProposals() = 0;
    ++eng.state().steps;
    const int row = eng.agent()->act(v.observation, eng.rng());
    SearchEngine::Candidate c;
    c.base = base;
    c.schedule = m_episodeSchedule;
    c.edits = eng.proposer().applyAction(c.schedule, v.actions[size_t(row)]);
    bool applied = !c.edits.empty();
    if (applied && !eng.quickLegal(m_episodeSchedule, c.schedule)) {
        ++eng.state().refusedByCheck;
        applied = false;
    }
    double reward = 0.0;
    bool end = step + 1 >= p.episodeLength;
    int evaluated = -1;
    if (applied) {
        auto results = eng.evaluate({c}, EvalRequest{1.0 / eng.state().bestSpeedup, false});
        SearchEvaluation& e = eng.record(c, "ppo", results[0], 0.0);
        evaluated = e.step;
        if (e.figures.ok) {
            e.outcome = Outcome::Accepted; // every action is taken: the episode walks on from it
            reward = (e.figures.speedup - speedup) * p.rewardScale;
            a["episode_base"] = e.step;
            a["episode_speedup"] = e.figures.speedup;
            m_episodeSchedule = c.schedule;
            eng.setIncumbent(e.step, e.figures.speedup, c.schedule);
        } else {
            // A legal edit should never fail; if one does (a fault, a time-out), the episode ends as if
            // the kernel were 10% slower.
            reward = -0.1 * p.rewardScale;
            end = true;
        }
        const SearchEvaluation copy = e;
        eng.publish(copy);
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
    eng.agent()->reward(reward, end);
    if (end) endEpisode(eng);
    if (eng.agent()->pending() >= p.stepsPerUpdate) updateAgent(eng);
}

} // namespace

std::unique_ptr<SearchStrategy> makePpoStrategy()
{
    return std::make_unique<PpoStrategy>();
}

} // namespace sassx::search
