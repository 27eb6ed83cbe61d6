// The PPO algorithm of the search engine (docs/ppo.md): episodes of `episode_length` legal edits from the
// start schedule, each edit chosen by the agent among the space's legal actions and measured like any
// candidate; the reward is the change in speed-up per step or the episode's final speed-up at its end
// (`reward`), in noise floors, normalised by a running std of the return; the agent updates every
// `steps_per_update` transitions. `num_envs` environments play in lock-step, each its own episode, their
// candidates measured as one batch. Bests follow the engine's one rule (confirmed, clearly above the
// original). The rollout since the last update is kept in the checkpoint as (environment, base, action,
// reward) records beside each environment's episode, so a resumed run rebuilds the same observations
// and continues exactly.
#include "core/search/search_strategy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>

namespace sassx::search {

namespace {

// Adds the scope's wall time to one of the strategy's phases of the run's time split (report.json
// time_split.strategy_phases): PPO spent 54-61% of a GPU run outside the evaluator
// (docs/status.md, "PPO agent time"), and the device, not the CPU, must say which part.
class PhaseTimer
{
public:
    PhaseTimer(SearchEngine& eng, const char* phase)
        : m_eng(eng), m_phase(phase), m_start(std::chrono::steady_clock::now())
    {
    }
    ~PhaseTimer()
    {
        m_eng.addStrategySeconds(
            m_phase, std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    SearchEngine& m_eng;
    const char* m_phase;
    std::chrono::steady_clock::time_point m_start;
};

// The reward normaliser's start: gymnasium's RunningMeanStd (count ε, mean 0, var 1) and no return yet
// in any environment.
nlohmann::json freshNormaliser(int envs)
{
    return {{"count", 1e-4}, {"mean", 0.0}, {"var", 1.0}, {"return", std::vector<double>(size_t(envs), 0.0)}};
}

// CleanRL's NormalizeReward (gym 0.21): the discounted return so far of environment `env` joins a running
// mean and variance shared by all environments, the reward is divided by the running std, clipped to ±10
// (CleanRL's TransformReward), and the environment's return restarts after its episode's end. `n` is the
// checkpoint's copy, so a resumed run continues the same statistics. The environments of one lock-step
// join the statistics one after the other, in their order (gymnasium joins them as one batch: the same
// statistics up to rounding, and a fixed order keeps runs reproducible).
double normalised(nlohmann::json& n, int env, double gamma, double raw, bool end)
{
    nlohmann::json& r = n.at("return").at(size_t(env));
    const double ret = r.get<double>() * gamma + raw;
    const double count = n.at("count").get<double>(), mean = n.at("mean").get<double>();
    const double var = n.at("var").get<double>();
    const double total = count + 1.0, delta = ret - mean;
    n["mean"] = mean + delta / total;
    const double newVar = (var * count + delta * delta * count / total) / total;
    n["var"] = newVar;
    n["count"] = total;
    r = end ? 0.0 : ret;
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

// An environment's episode as the checkpoint keeps it: its step, the last evaluation of its walk (-1: the
// original) and the edits it made since (edits_per_evaluation > 1), the speed-up last evaluated, and the
// speed-up the episode started from (its reward's zero).
nlohmann::json freshEpisode(int base = -1, double speedup = 1.0)
{
    return {{"step", 0},
            {"base", base},
            {"edits", nlohmann::json::array()},
            {"speedup", speedup},
            {"start_speedup", speedup}};
}

nlohmann::json editsJson(const std::vector<Edit>& edits)
{
    Variant v;
    v.edits = edits;
    return v.toJson()["edits"];
}

std::vector<Edit> editsOfJson(const nlohmann::json& j)
{
    if (j.is_null() || j.empty()) return {};
    auto v = Variant::fromJson(nlohmann::json{{"edits", j}});
    return v ? std::move(v->edits) : std::vector<Edit>{};
}

// Checkpoints from before several environments kept one episode at the top level and one return: they
// become one environment's, and resume as they ran (their configuration reads with num_envs 1 and no
// start from the best: search_config.cpp).
void upgradeSingleEnvironment(nlohmann::json& a)
{
    if (a.contains("envs")) return;
    nlohmann::json e = freshEpisode(a.value("episode_base", -1), a.value("episode_speedup", 1.0));
    e["step"] = a.value("episode_step", 0);
    e["start_speedup"] = 1.0;
    a["envs"] = nlohmann::json::array({e});
    a["num_envs"] = 1;
    for (const char* key : {"episode_step", "episode_base", "episode_speedup"})
        a.erase(key);
    if (a.contains("reward_norm") && !a["reward_norm"].at("return").is_array())
        a["reward_norm"]["return"] = nlohmann::json::array({a["reward_norm"].at("return")});
}

class PpoStrategy : public SearchStrategy
{
public:
    Status begin(SearchEngine& eng, bool resuming) override;
    void step(SearchEngine& eng) override;
    // With list_seed, the list-schedule heuristics seed the run as they seed the others, and episodes
    // start from the best of them (docs/ppo.md); without it, from ptxas' own schedule.
    bool wantsListPhase(const SearchConfig& c) const override
    {
        return c.ppo.listSeed && SearchStrategy::wantsListPhase(c);
    }
    bool restoresBestAtEnd() const override { return false; }

private:
    struct PpoView
    {
        std::vector<Edit> actions; // the rows of the observation
        Observation observation;
        uint64_t subsetSeed = 0;
    };
    // One environment's move of a lock-step, between choosing and learning its outcome.
    struct Move
    {
        int env = 0, row = 0, step = 0, base = -1;
        double speedup = 1.0;
        uint64_t subsetSeed = 0;
        std::vector<Edit> walked; // the edits since `base` before this step's (not yet evaluated)
        SearchEngine::Candidate candidate;
        bool applied = false;   // the action changed the schedule
        bool evaluated = false; // the candidate goes to the evaluator in this step
    };
    PpoView observeEpisode(const SearchEngine& eng, const Schedule& s, int step, double speedup,
                           uint64_t subsetSeed) const;
    PpoView observeEnv(const SearchEngine& eng, int env) const;
    // Evaluation `base`'s schedule with `walked` applied after it.
    Schedule scheduleAt(const SearchEngine& eng, int base, const std::vector<Edit>& walked) const;
    std::optional<Move> choose(SearchEngine& eng, int env);
    void learn(SearchEngine& eng, const Move& m, const eval::EvalResult* result);
    void endEpisode(SearchEngine& eng, int env);
    void startEpisodes(SearchEngine& eng);
    void updateAgent(SearchEngine& eng);
    double rewardOf(SearchEngine& eng, int env, double raw, bool end);

    std::unique_ptr<FeatureExtractor> m_features;
    std::vector<Schedule> m_envSchedules; // each environment's current schedule
};

// Under the estimate evaluations are cheap and a batch is estimated on several threads
// (core/estimate/estimate_evaluator.h), so more environments give more rollouts per second; 8 keeps an
// update of 64 transitions at 8 steps of each episode's walk, and fits the CPUs a laptop has.
constexpr int kAutoEstimateEnvs = 8;

int resolvedEnvs(const SearchEngine& eng)
{
    const int set = eng.state().config.ppo.numEnvs;
    if (set > 0) return set;
    if (eng.evaluator().sourceKind() == "estimate") return kAutoEstimateEnvs;
    return std::max(1, eng.evaluator().parallelism()); // one per GPU of the pool
}

Status PpoStrategy::begin(SearchEngine& eng, bool resuming)
{
    if (!eng.agent()) return makeError("a PPO search needs its agent (the libtorch plug-in, docs/ppo.md)");
    m_features = std::make_unique<FeatureExtractor>(eng.checker().analysis());
    nlohmann::json& a = eng.state().agent;
    if (!resuming || !a.is_object()) {
        const int envs = resolvedEnvs(eng);
        // The environments' episodes start at the first step, after the list phase (startEpisodes).
        a = {{"num_envs", envs}, {"envs", nlohmann::json::array()},    {"episodes", 0},
             {"updates", 0},     {"rollout", nlohmann::json::array()}, {"learning", nlohmann::json::array()}};
        // Rewards in noise floors (the baseline's, ratio units); a backend without one (the estimate:
        // deterministic) keeps reward_scale. Fixed for the run, so a resumed run keeps its units.
        const double floor = eng.evaluator().noiseFloor();
        a["reward_unit"] = floor > 0 ? 1.0 / floor : eng.state().config.ppo.rewardScale;
        a["reward_unit_is"] = floor > 0 ? "noise floors" : "reward_scale";
        a["reward_norm"] = freshNormaliser(envs);
        a["agent"] = eng.agent()->describe();
        eng.state().agentBytes = eng.agent()->save();
        m_envSchedules.clear();
        return Ok{};
    }
    if (!eng.state().agentBytes.empty())
        if (std::string why = eng.agent()->load(eng.state().agentBytes, true); !why.empty())
            return makeError("the checkpoint's policy does not load: " + why);
    // Checkpoints from before the reward settings: Δ speed-up × reward_scale, unnormalised.
    if (!a.contains("reward_unit")) a["reward_unit"] = eng.state().config.ppo.rewardScale;
    if (!a.contains("reward_norm")) a["reward_norm"] = freshNormaliser(1);
    upgradeSingleEnvironment(a);
    const int envs = a.at("num_envs").get<int>();
    const int started = int(a.at("envs").size()); // 0: stopped before its first step
    if (envs < 1 || (started != 0 && started != envs) || int(a["reward_norm"].at("return").size()) != envs)
        return makeError("the checkpoint's PPO environments do not match its num_envs");
    // The rollout since the last update: same weights, same observations, same log-probabilities.
    for (const auto& t : a.at("rollout")) {
        const int env = t.value("env", 0);
        if (env < 0 || env >= envs) return makeError("the checkpoint's rollout names an unknown environment");
        const Schedule s =
            scheduleAt(eng, t.at("base").get<int>(), editsOfJson(t.value("walked", nlohmann::json())));
        const PpoView v = observeEpisode(eng, s, t.at("episode_step").get<int>(),
                                         t.at("speedup").get<double>(), t.at("subset_seed").get<uint64_t>());
        const int action = t.at("action").get<int>();
        if (action < 0 || action >= v.observation.count())
            return makeError("the checkpoint's rollout does not match this kernel's legal actions");
        eng.agent()->replay(v.observation, action, env);
        eng.agent()->reward(t.at("reward").get<double>(), t.at("end").get<bool>(), env);
    }
    m_envSchedules.clear();
    for (const auto& e : a.at("envs"))
        m_envSchedules.push_back(
            scheduleAt(eng, e.at("base").get<int>(), editsOfJson(e.value("edits", nlohmann::json()))));
    return Ok{};
}

Schedule PpoStrategy::scheduleAt(const SearchEngine& eng, int base, const std::vector<Edit>& walked) const
{
    Schedule s = eng.scheduleOf(base);
    if (walked.empty()) return s;
    std::vector<Edit> all = eng.state().editsOf(base);
    all.insert(all.end(), walked.begin(), walked.end());
    const auto& checker = eng.checker();
    auto applied = applyEdits(checker.analysis(), all, [&checker](Schedule& x) { checker.fixReuse(x); });
    return applied ? std::move(*applied) : s;
}

PpoStrategy::PpoView PpoStrategy::observeEpisode(const SearchEngine& eng, const Schedule& s, int step,
                                                 double speedup, uint64_t subsetSeed) const
{
    const PpoSettings& p = eng.state().config.ppo;
    PpoView v;
    v.subsetSeed = subsetSeed;
    // A sample seeded by the schedule's hash (scheduleHash), kept in action order: the same schedule
    // shows the same rows whenever it is met, so a row keeps its meaning between visits; the seed is
    // also in the rollout record, so a replay draws the same rows.
    v.actions = eng.proposer().sampleActions(s, size_t(p.maxActions), subsetSeed);
    v.observation = m_features->observe(s, v.actions, double(step) / double(p.episodeLength), speedup);
    return v;
}

PpoStrategy::PpoView PpoStrategy::observeEnv(const SearchEngine& eng, int env) const
{
    const nlohmann::json& e = eng.state().agent.at("envs").at(size_t(env));
    const Schedule& s = m_envSchedules[size_t(env)];
    return observeEpisode(eng, s, e.at("step").get<int>(), e.at("speedup").get<double>(), scheduleHash(s));
}

// The start's speed-up: 1 for the original, the list schedule's figure when one seeded the run.
double startSpeedup(const SearchEngine& eng)
{
    const SearchState& st = eng.state();
    return st.start >= 0 ? st.history[size_t(st.start)].figures.speedup : 1.0;
}

void PpoStrategy::startEpisodes(SearchEngine& eng)
{
    nlohmann::json& a = eng.state().agent;
    const int envs = a.at("num_envs").get<int>();
    a["envs"] = nlohmann::json::array();
    for (int e = 0; e < envs; ++e)
        a["envs"].push_back(freshEpisode(eng.state().start, startSpeedup(eng)));
    m_envSchedules.assign(size_t(envs), eng.startSchedule());
}

void PpoStrategy::endEpisode(SearchEngine& eng, int env)
{
    const PpoSettings& p = eng.state().config.ppo;
    nlohmann::json& a = eng.state().agent;
    a["episodes"] = a.value("episodes", 0) + 1;
    a["reward_norm"]["return"][size_t(env)] = 0.0; // also after an episode cut short
    // Exploitation: some episodes walk on from the best schedule so far instead of ptxas' (docs/ppo.md).
    // The draw is made only when the setting is on, so runs without it draw as they always did.
    const SearchState& st = eng.state();
    bool fromBest = false;
    if (p.startFromBest > 0 && st.best >= 0)
        fromBest = std::uniform_real_distribution<double>(0.0, 1.0)(eng.rng()) < p.startFromBest;
    if (fromBest) {
        a["envs"][size_t(env)] = freshEpisode(st.best, st.bestSpeedup);
        m_envSchedules[size_t(env)] = eng.scheduleOf(st.best);
    } else {
        a["envs"][size_t(env)] = freshEpisode(st.start, startSpeedup(eng));
        m_envSchedules[size_t(env)] = eng.startSchedule();
    }
    eng.setIncumbent(eng.state().start, startSpeedup(eng), eng.startSchedule());
}

void PpoStrategy::updateAgent(SearchEngine& eng)
{
    const PhaseTimer timer(eng, "update");
    nlohmann::json& a = eng.state().agent;
    std::vector<Observation> next;
    for (int env = 0; env < int(m_envSchedules.size()); ++env)
        next.push_back(observeEnv(eng, env).observation);
    const UpdateStats stats = eng.agent()->update(next, eng.rng());
    a["updates"] = stats.updates;
    a["rollout"] = nlohmann::json::array();
    a["learning"].push_back(statsJson(stats, eng.state().evaluations()));
    eng.state().agentBytes = eng.agent()->save();
}

double PpoStrategy::rewardOf(SearchEngine& eng, int env, double raw, bool end)
{
    const PpoSettings& p = eng.state().config.ppo;
    nlohmann::json& a = eng.state().agent;
    raw *= a.at("reward_unit").get<double>();
    return p.normalizeReward ? normalised(a["reward_norm"], env, effectiveGamma(p), raw, end) : raw;
}

// Whether an episode walks on from an evaluated step: always, unless improving_only, where the step must
// be faster than the schedule it left (deterministic figures: clearly, at the printed precision; measured
// ones: by more than the run's noise floor, both figures being paired against the original).
bool keeps(const SearchEngine& eng, const SpeedupFigures& f, double current)
{
    if (!eng.state().config.ppo.improvingOnly) return true;
    if (f.rounds == 0) return f.clearlyAbove(current);
    return f.speedup > current * (1.0 + eng.evaluator().noiseFloor());
}

std::optional<PpoStrategy::Move> PpoStrategy::choose(SearchEngine& eng, int env)
{
    const nlohmann::json& e = eng.state().agent.at("envs").at(size_t(env));
    Move m;
    m.env = env;
    m.step = e.at("step").get<int>();
    m.base = e.at("base").get<int>();
    m.speedup = e.at("speedup").get<double>();
    m.walked = editsOfJson(e.value("edits", nlohmann::json()));
    const Schedule& from = m_envSchedules[size_t(env)];
    m.subsetSeed = scheduleHash(from);
    std::optional<PhaseTimer> timer(std::in_place, eng, "observe");
    const PpoView v = observeEpisode(eng, from, m.step, m.speedup, m.subsetSeed);
    timer.reset();
    if (v.actions.empty()) {
        // Nothing legal from here: a fresh episode (from the start, a space with no edit at all ends
        // the run through the engine's empty-step limit).
        if (m.step > 0) endEpisode(eng, env);
        return std::nullopt;
    }
    ++eng.state().steps;
    timer.emplace(eng, "act");
    m.row = eng.agent()->act(v.observation, eng.rng(), env);
    timer.emplace(eng, "apply");
    m.candidate.base = m.base;
    m.candidate.schedule = from;
    const std::vector<Edit> edits =
        eng.proposer().applyAction(m.candidate.schedule, v.actions[size_t(m.row)]);
    m.applied = !edits.empty();
    if (m.applied && !eng.quickLegal(from, m.candidate.schedule)) {
        ++eng.state().refusedByCheck;
        m.applied = false;
    }
    if (!m.applied) m.candidate.schedule = from;
    // The candidate is the walk since the last evaluation: the edits before this step's and its own.
    m.candidate.edits = m.walked;
    if (m.applied) m.candidate.edits.insert(m.candidate.edits.end(), edits.begin(), edits.end());
    // Measured every edits_per_evaluation steps and at the episode's end, when the walk changed anything.
    const PpoSettings& p = eng.state().config.ppo;
    const bool due = (m.step + 1) % p.editsPerEvaluation == 0 || m.step + 1 >= p.episodeLength;
    m.evaluated = due && !m.candidate.edits.empty();
    return m;
}

void PpoStrategy::learn(SearchEngine& eng, const Move& m, const eval::EvalResult* result)
{
    const PhaseTimer timer(eng, "learn");
    const PpoSettings& p = eng.state().config.ppo;
    nlohmann::json& a = eng.state().agent;
    nlohmann::json& ep = a["envs"][size_t(m.env)];
    double raw = 0.0; // in speed-up units
    bool end = m.step + 1 >= p.episodeLength;
    double finalSpeedup = m.speedup; // the episode's schedule after this step, as last evaluated
    int evaluated = -1;
    if (result) {
        SearchEvaluation& e = eng.record(m.candidate, "ppo", *result, 0.0);
        evaluated = e.step;
        if (e.figures.ok && !keeps(eng, e.figures, m.speedup)) {
            // improving_only: the episode goes back to its last evaluated schedule; the reward is what
            // the step would have changed, so the agent still learns which edits lose.
            raw = e.figures.speedup - m.speedup;
            ep["edits"] = nlohmann::json::array();
            m_envSchedules[size_t(m.env)] = eng.scheduleOf(m.base);
        } else if (e.figures.ok) {
            e.outcome = Outcome::Accepted; // the action is taken: the episode walks on from it
            raw = e.figures.speedup - m.speedup;
            finalSpeedup = e.figures.speedup;
            ep["base"] = e.step;
            ep["edits"] = nlohmann::json::array();
            ep["speedup"] = e.figures.speedup;
            m_envSchedules[size_t(m.env)] = m.candidate.schedule;
            eng.setIncumbent(e.step, e.figures.speedup, m.candidate.schedule);
        } else {
            // A legal edit should never fail; if one does (a fault, a time-out), the episode ends as if
            // the kernel were 10% slower.
            raw = -0.1;
            finalSpeedup = 0.9;
            end = true;
        }
        const SearchEvaluation copy = e;
        eng.publish(copy);
    } else if (m.applied) {
        // Walked on without a measurement (edits_per_evaluation > 1): the edits wait for the next one.
        ep["edits"] = editsJson(m.candidate.edits);
        m_envSchedules[size_t(m.env)] = m.candidate.schedule;
    }
    // An action whose codes could not be derived (rescheduled space) changes nothing and earns nothing.
    // Episode rewards: nothing until the end, then the final schedule's speed-up over the episode's start
    // (1, the original, unless it started from a list schedule or the best) from its own evaluation (a paired
    // screen against the original on a GPU, confirmed on fresh rounds when it beats the best: the engine's
    // one path), not a difference of two evaluations.
    if (p.reward == RewardMode::Episode) raw = end ? finalSpeedup - ep.value("start_speedup", 1.0) : 0.0;
    const double reward = rewardOf(eng, m.env, raw, end);
    ep["step"] = m.step + 1;
    a["rollout"].push_back({{"env", m.env},
                            {"base", m.base},
                            {"walked", editsJson(m.walked)},
                            {"episode_step", m.step},
                            {"speedup", m.speedup},
                            {"subset_seed", m.subsetSeed},
                            {"action", m.row},
                            {"evaluation", evaluated},
                            {"raw_reward", raw},
                            {"reward", reward},
                            {"end", end}});
    eng.agent()->reward(reward, end, m.env);
    if (end) endEpisode(eng, m.env);
}

void PpoStrategy::step(SearchEngine& eng)
{
    const PpoSettings& p = eng.state().config.ppo;
    if (m_envSchedules.empty()) startEpisodes(eng);
    // Every environment chooses, in order, with the search's engine; their candidates go to the evaluator
    // as one batch (a pool measures them on its GPUs at once); then each learns its outcome, in order.
    // The last lock-step of a budget lets only as many environments move as evaluations are left, so
    // runs compare at equal evaluations.
    int acting = int(m_envSchedules.size());
    if (eng.state().config.budgetEvals > 0)
        acting =
            int(std::clamp<int64_t>(eng.state().config.budgetEvals - eng.state().evaluations(), 1, acting));
    std::vector<Move> moves;
    for (int env = 0; env < acting; ++env)
        if (auto m = choose(eng, env)) moves.push_back(std::move(*m));
    if (moves.empty()) {
        ++eng.emptyProposals();
        return;
    }
    eng.emptyProposals() = 0;
    std::vector<SearchEngine::Candidate> batch;
    for (const Move& m : moves)
        if (m.evaluated) batch.push_back(m.candidate);
    std::vector<eval::EvalResult> results;
    if (!batch.empty()) results = eng.evaluate(batch, EvalRequest{1.0 / eng.state().bestSpeedup, false});
    size_t next = 0;
    for (const Move& m : moves)
        learn(eng, m, m.evaluated ? &results[next++] : nullptr);
    if (eng.agent()->pending() >= p.stepsPerUpdate) updateAgent(eng);
}

} // namespace

std::unique_ptr<SearchStrategy> makePpoStrategy()
{
    return std::make_unique<PpoStrategy>();
}

} // namespace sassx::search
