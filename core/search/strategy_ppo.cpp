// The PPO algorithm of the search engine (docs/ppo.md): episodes of `episode_length` legal edits from the
// start schedule, each edit chosen by the agent among the space's legal actions and measured like any
// candidate; the reward is the change in speed-up per step or the episode's final speed-up at its end
// (`reward`), in noise floors, normalised by a running std of the return; the agent updates every
// `steps_per_update` transitions. Bests follow the engine's one rule (confirmed, clearly above the
// original). The rollout since the last update is kept in the checkpoint as (base, action, reward)
// records, so a resumed run rebuilds the same observations and continues exactly.
#include "core/search/search_strategy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sassx::search {

namespace {

// The reward normaliser's start: gymnasium's RunningMeanStd (count ε, mean 0, var 1) and no return yet.
nlohmann::json freshNormaliser()
{
    return {{"count", 1e-4}, {"mean", 0.0}, {"var", 1.0}, {"return", 0.0}};
}

// CleanRL's NormalizeReward (gym 0.21): the discounted return so far joins a running mean and variance,
// the reward is divided by the running std, clipped to ±10 (CleanRL's TransformReward), and the return
// restarts after an episode's end. `n` is the checkpoint's copy, so a resumed run continues the same
// statistics.
double normalised(nlohmann::json& n, double gamma, double raw, bool end)
{
    const double ret = n.at("return").get<double>() * gamma + raw;
    const double count = n.at("count").get<double>(), mean = n.at("mean").get<double>();
    const double var = n.at("var").get<double>();
    const double total = count + 1.0, delta = ret - mean;
    n["mean"] = mean + delta / total;
    const double newVar = (var * count + delta * delta * count / total) / total;
    n["var"] = newVar;
    n["count"] = total;
    n["return"] = end ? 0.0 : ret;
    return std::clamp(raw / std::sqrt(newVar + 1e-8), -10.0, 10.0);
}

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
    double rewardOf(SearchEngine& eng, double raw, bool end);

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
        // Rewards in noise floors (the baseline's, ratio units); a backend without one (the estimate:
        // deterministic) keeps reward_scale. Fixed for the run, so a resumed run keeps its units.
        const double floor = eng.evaluator().noiseFloor();
        a["reward_unit"] = floor > 0 ? 1.0 / floor : eng.state().config.ppo.rewardScale;
        a["reward_unit_is"] = floor > 0 ? "noise floors" : "reward_scale";
        a["reward_norm"] = freshNormaliser();
        a["agent"] = eng.agent()->describe();
        eng.state().agentBytes = eng.agent()->save();
        m_episodeSchedule = eng.startSchedule();
        return Ok{};
    }
    if (!eng.state().agentBytes.empty())
        if (std::string why = eng.agent()->load(eng.state().agentBytes, true); !why.empty())
            return makeError("the checkpoint's policy does not load: " + why);
    // Checkpoints from before the reward settings: Δ speed-up × reward_scale, unnormalised.
    if (!a.contains("reward_unit")) a["reward_unit"] = eng.state().config.ppo.rewardScale;
    if (!a.contains("reward_norm")) a["reward_norm"] = freshNormaliser();
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
        // A sample seeded by the schedule's hash (scheduleHash), kept in action order: the same schedule
        // shows the same rows whenever it is met, so a row keeps its meaning between visits; the seed
        // is also in the rollout record, so a replay draws the same rows.
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
    if (a.contains("reward_norm")) a["reward_norm"]["return"] = 0.0; // also after an episode cut short
    m_episodeSchedule = eng.startSchedule();
    eng.setIncumbent(-1, 1.0, eng.startSchedule());
}

void PpoStrategy::updateAgent(SearchEngine& eng)
{
    nlohmann::json& a = eng.state().agent;
    const PpoView next =
        observeEpisode(eng, m_episodeSchedule, a.at("episode_step").get<int>(),
                       a.at("episode_speedup").get<double>(), scheduleHash(m_episodeSchedule));
    const UpdateStats stats = eng.agent()->update(next.observation, eng.rng());
    a["updates"] = stats.updates;
    a["rollout"] = nlohmann::json::array();
    a["learning"].push_back(statsJson(stats, eng.state().evaluations()));
    eng.state().agentBytes = eng.agent()->save();
}

double PpoStrategy::rewardOf(SearchEngine& eng, double raw, bool end)
{
    const PpoSettings& p = eng.state().config.ppo;
    nlohmann::json& a = eng.state().agent;
    raw *= a.at("reward_unit").get<double>();
    return p.normalizeReward ? normalised(a["reward_norm"], effectiveGamma(p), raw, end) : raw;
}

void PpoStrategy::step(SearchEngine& eng)
{
    const PpoSettings& p = eng.state().config.ppo;
    nlohmann::json& a = eng.state().agent;
    const int step = a.at("episode_step").get<int>();
    const int base = a.at("episode_base").get<int>();
    const double speedup = a.at("episode_speedup").get<double>();
    const uint64_t subsetSeed = scheduleHash(m_episodeSchedule);
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
    double raw = 0.0; // in speed-up units
    bool end = step + 1 >= p.episodeLength;
    double finalSpeedup = speedup; // the episode's schedule after this step, as last evaluated
    int evaluated = -1;
    if (applied) {
        auto results = eng.evaluate({c}, EvalRequest{1.0 / eng.state().bestSpeedup, false});
        SearchEvaluation& e = eng.record(c, "ppo", results[0], 0.0);
        evaluated = e.step;
        if (e.figures.ok) {
            e.outcome = Outcome::Accepted; // every action is taken: the episode walks on from it
            raw = e.figures.speedup - speedup;
            finalSpeedup = e.figures.speedup;
            a["episode_base"] = e.step;
            a["episode_speedup"] = e.figures.speedup;
            m_episodeSchedule = c.schedule;
            eng.setIncumbent(e.step, e.figures.speedup, c.schedule);
        } else {
            // A legal edit should never fail; if one does (a fault, a time-out), the episode ends as if
            // the kernel were 10% slower.
            raw = -0.1;
            finalSpeedup = 0.9;
            end = true;
        }
        const SearchEvaluation copy = e;
        eng.publish(copy);
    }
    // An action whose codes could not be derived (rescheduled space) changes nothing and earns nothing.
    // Episode rewards: nothing until the end, then the final schedule's speed-up over the original from
    // its own evaluation (a paired screen against the original on a GPU, confirmed on fresh rounds when
    // it beats the best: the engine's one path), not a difference of two evaluations.
    if (p.reward == RewardMode::Episode) raw = end ? finalSpeedup - 1.0 : 0.0;
    const double reward = rewardOf(eng, raw, end);
    a["episode_step"] = step + 1;
    a["rollout"].push_back({{"base", base},
                            {"episode_step", step},
                            {"speedup", speedup},
                            {"subset_seed", subsetSeed},
                            {"action", row},
                            {"evaluation", evaluated},
                            {"raw_reward", raw},
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
