// The PPO algorithm of the search engine (docs/ppo.md): episodes of `episode_length` legal edits from the
// start schedule, each edit chosen by the agent among the space's legal actions and measured like any
// candidate; the reward is the change in speed-up per step or the episode's final speed-up at its end
// (`reward`), in noise floors, normalised by a running std of the return; the agent updates every
// `steps_per_update` transitions. `num_envs` environments play in lock-step, each its own episode, their
// candidates measured as one batch. Bests follow the engine's one rule (confirmed, clearly above the
// original). The rollout since the last update is kept in the checkpoint as (environment, base, action,
// reward) records beside each environment's episode, so a resumed run rebuilds the same observations
// and continues exactly.
#include "core/search/agent.h"
#include "core/search/ppo_state.h"
#include "core/search/schedule_features.h"
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
    PhaseTimer(StrategyContext& ctx, const char* phase)
        : m_ctx(ctx), m_phase(phase), m_start(std::chrono::steady_clock::now())
    {
    }
    ~PhaseTimer()
    {
        m_ctx.addStrategySeconds(
            m_phase, std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    StrategyContext& m_ctx;
    const char* m_phase;
    std::chrono::steady_clock::time_point m_start;
};

class PpoStrategy : public SearchStrategy
{
public:
    Status begin(StrategyContext& ctx, bool resuming) override;
    void step(StrategyContext& ctx) override;
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
        Candidate candidate;
        bool applied = false;   // the action changed the schedule
        bool evaluated = false; // the candidate goes to the evaluator in this step
    };
    PpoView observeEpisode(const StrategyContext& ctx, const Schedule& s, int step, double speedup,
                           uint64_t subsetSeed) const;
    PpoView observeEnv(const StrategyContext& ctx, int env) const;
    // Evaluation `base`'s schedule with `walked` applied after it.
    Schedule scheduleAt(const StrategyContext& ctx, int base, const std::vector<Edit>& walked) const;
    std::optional<Move> choose(StrategyContext& ctx, int env);
    void learn(StrategyContext& ctx, const Move& m, const eval::EvalResult* result);
    void endEpisode(StrategyContext& ctx, int env);
    void startEpisodes(StrategyContext& ctx);
    void updateAgent(StrategyContext& ctx);
    double rewardOf(StrategyContext& ctx, int env, double raw, bool end);
    PpoState& ppo(StrategyContext& ctx) const { return *ctx.ppoState(); }
    const PpoState& ppo(const StrategyContext& ctx) const { return *ctx.state().agent; }

    std::unique_ptr<FeatureExtractor> m_features;
    std::vector<Schedule> m_envSchedules; // each environment's current schedule
};

// Under the estimate evaluations are cheap and a batch is estimated on several threads
// (core/estimate/estimate_evaluator.h), so more environments give more rollouts per second; 8 keeps an
// update of 64 transitions at 8 steps of each episode's walk, and fits the CPUs a laptop has.
constexpr int kAutoEstimateEnvs = 8;

int resolvedEnvs(const StrategyContext& ctx)
{
    const int set = ctx.config().ppo.numEnvs;
    if (set > 0) return set;
    if (!ctx.measured()) return kAutoEstimateEnvs;
    return std::max(1, ctx.parallelism()); // one per GPU of the pool
}

Status PpoStrategy::begin(StrategyContext& ctx, bool resuming)
{
    if (!ctx.agent()) return makeError("a PPO search needs its agent (the libtorch plug-in, docs/ppo.md)");
    m_features = std::make_unique<FeatureExtractor>(ctx.checker().analysis());
    std::optional<PpoState>& state = ctx.ppoState();
    if (!resuming || !state) {
        PpoState& a = state.emplace();
        // The environments' episodes start at the first step, after the list phase (startEpisodes).
        a.numEnvs = resolvedEnvs(ctx);
        // Rewards in noise floors (the baseline's, ratio units); a backend without one (the estimate:
        // deterministic) keeps reward_scale. Fixed for the run, so a resumed run keeps its units.
        const double floor = ctx.noiseFloor();
        a.rewardUnit = floor > 0 ? 1.0 / floor : ctx.config().ppo.rewardScale;
        a.rewardUnitIs = floor > 0 ? "noise floors" : "reward_scale";
        a.rewardNorm = RewardNormaliser::fresh(a.numEnvs);
        a.agent = ctx.agent()->describe();
        ctx.saveAgent();
        m_envSchedules.clear();
        return Ok{};
    }
    if (!ctx.state().agentBytes.empty())
        if (std::string why = ctx.agent()->load(ctx.state().agentBytes, true); !why.empty())
            return makeError("the checkpoint's policy does not load: " + why);
    PpoState& a = *state;
    // Checkpoints from before the reward settings: Δ speed-up × reward_scale, unnormalised.
    if (!a.rewardUnit) a.rewardUnit = ctx.config().ppo.rewardScale;
    if (!a.rewardNorm) a.rewardNorm = RewardNormaliser::fresh(1);
    const int envs = a.numEnvs;
    const int started = int(a.envs.size()); // 0: stopped before its first step
    if (envs < 1 || (started != 0 && started != envs) || int(a.rewardNorm->returns.size()) != envs)
        return makeError("the checkpoint's PPO environments do not match its num_envs");
    // The rollout since the last update: same weights, same observations, same log-probabilities.
    for (const PpoTransition& t : a.rollout) {
        if (t.env < 0 || t.env >= envs)
            return makeError("the checkpoint's rollout names an unknown environment");
        const Schedule s = scheduleAt(ctx, t.base, t.walked);
        const PpoView v = observeEpisode(ctx, s, t.episodeStep, t.speedup, t.subsetSeed);
        if (t.action < 0 || t.action >= v.observation.count())
            return makeError("the checkpoint's rollout does not match this kernel's legal actions");
        ctx.agent()->replay(v.observation, t.action, t.env);
        ctx.agent()->reward(t.reward, t.end, t.env);
    }
    m_envSchedules.clear();
    for (const PpoEpisode& e : a.envs)
        m_envSchedules.push_back(scheduleAt(ctx, e.base, e.edits));
    return Ok{};
}

Schedule PpoStrategy::scheduleAt(const StrategyContext& ctx, int base, const std::vector<Edit>& walked) const
{
    Schedule s = ctx.scheduleOf(base);
    if (walked.empty()) return s;
    std::vector<Edit> all = ctx.state().editsOf(base);
    all.insert(all.end(), walked.begin(), walked.end());
    const auto& checker = ctx.checker();
    auto applied = applyEdits(checker.analysis(), all, [&checker](Schedule& x) { checker.fixReuse(x); });
    return applied ? std::move(*applied) : s;
}

PpoStrategy::PpoView PpoStrategy::observeEpisode(const StrategyContext& ctx, const Schedule& s, int step,
                                                 double speedup, uint64_t subsetSeed) const
{
    const PpoSettings& p = ctx.config().ppo;
    PpoView v;
    v.subsetSeed = subsetSeed;
    // A sample seeded by the schedule's hash (scheduleHash), kept in action order: the same schedule
    // shows the same rows whenever it is met, so a row keeps its meaning between visits; the seed is
    // also in the rollout record, so a replay draws the same rows.
    v.actions = ctx.proposer().sampleActions(s, size_t(p.maxActions), subsetSeed);
    v.observation = m_features->observe(s, v.actions, double(step) / double(p.episodeLength), speedup);
    return v;
}

PpoStrategy::PpoView PpoStrategy::observeEnv(const StrategyContext& ctx, int env) const
{
    const PpoEpisode& e = ppo(ctx).envs.at(size_t(env));
    const Schedule& s = m_envSchedules[size_t(env)];
    return observeEpisode(ctx, s, e.step, e.speedup, scheduleHash(s));
}

// The start's speed-up: 1 for the original, the list schedule's figure when one seeded the run.
double startSpeedup(const StrategyContext& ctx)
{
    const SearchState& st = ctx.state();
    return st.start >= 0 ? st.history[size_t(st.start)].figures.speedup : 1.0;
}

void PpoStrategy::startEpisodes(StrategyContext& ctx)
{
    PpoState& a = ppo(ctx);
    a.envs.assign(size_t(a.numEnvs), PpoEpisode::from(ctx.state().start, startSpeedup(ctx)));
    m_envSchedules.assign(size_t(a.numEnvs), ctx.startSchedule());
}

void PpoStrategy::endEpisode(StrategyContext& ctx, int env)
{
    const PpoSettings& p = ctx.config().ppo;
    PpoState& a = ppo(ctx);
    ++a.episodes;
    a.rewardNorm->returns.at(size_t(env)) = 0.0; // also after an episode cut short
    // Exploitation: some episodes walk on from the best schedule so far instead of ptxas' (docs/ppo.md).
    // The draw is made only when the setting is on, so runs without it draw as they always did.
    const SearchState& st = ctx.state();
    bool fromBest = false;
    if (p.startFromBest > 0 && st.best >= 0)
        fromBest = std::uniform_real_distribution<double>(0.0, 1.0)(ctx.rng()) < p.startFromBest;
    if (fromBest) {
        a.envs.at(size_t(env)) = PpoEpisode::from(st.best, st.bestSpeedup);
        m_envSchedules[size_t(env)] = ctx.scheduleOf(st.best);
    } else {
        a.envs.at(size_t(env)) = PpoEpisode::from(st.start, startSpeedup(ctx));
        m_envSchedules[size_t(env)] = ctx.startSchedule();
    }
    ctx.setIncumbent(ctx.state().start, startSpeedup(ctx), ctx.startSchedule());
}

void PpoStrategy::updateAgent(StrategyContext& ctx)
{
    const PhaseTimer timer(ctx, "update");
    PpoState& a = ppo(ctx);
    std::vector<Observation> next;
    for (int env = 0; env < int(m_envSchedules.size()); ++env)
        next.push_back(observeEnv(ctx, env).observation);
    const UpdateStats stats = ctx.agent()->update(next, ctx.rng());
    a.updates = stats.updates;
    a.rollout.clear();
    a.learning.push_back({stats, ctx.state().evaluations()});
    ctx.saveAgent();
}

double PpoStrategy::rewardOf(StrategyContext& ctx, int env, double raw, bool end)
{
    const PpoSettings& p = ctx.config().ppo;
    PpoState& a = ppo(ctx);
    raw *= a.rewardUnit.value_or(p.rewardScale);
    return p.normalizeReward ? a.rewardNorm->normalise(env, effectiveGamma(p), raw, end) : raw;
}

// Whether an episode walks on from an evaluated step: always, unless improving_only, where the step must
// be faster than the schedule it left (deterministic figures: clearly, at the printed precision; measured
// ones: by more than the run's noise floor, both figures being paired against the original).
bool keeps(const StrategyContext& ctx, const SpeedupFigures& f, double current)
{
    if (!ctx.config().ppo.improvingOnly) return true;
    if (f.rounds == 0) return f.clearlyAbove(current);
    return f.speedup > current * (1.0 + ctx.noiseFloor());
}

std::optional<PpoStrategy::Move> PpoStrategy::choose(StrategyContext& ctx, int env)
{
    const PpoEpisode& e = ppo(ctx).envs.at(size_t(env));
    Move m;
    m.env = env;
    m.step = e.step;
    m.base = e.base;
    m.speedup = e.speedup;
    m.walked = e.edits;
    const Schedule& from = m_envSchedules[size_t(env)];
    m.subsetSeed = scheduleHash(from);
    std::optional<PhaseTimer> timer(std::in_place, ctx, "observe");
    const PpoView v = observeEpisode(ctx, from, m.step, m.speedup, m.subsetSeed);
    timer.reset();
    if (v.actions.empty()) {
        // Nothing legal from here: a fresh episode (from the start, a space with no edit at all ends
        // the run through the engine's empty-step limit).
        if (m.step > 0) endEpisode(ctx, env);
        return std::nullopt;
    }
    ctx.countSteps(1);
    timer.emplace(ctx, "act");
    m.row = ctx.agent()->act(v.observation, ctx.rng(), env);
    timer.emplace(ctx, "apply");
    m.candidate.base = m.base;
    m.candidate.schedule = from;
    const std::vector<Edit> edits =
        ctx.proposer().applyAction(m.candidate.schedule, v.actions[size_t(m.row)]);
    m.applied = !edits.empty();
    if (m.applied && !ctx.admit(from, m.candidate.schedule)) m.applied = false;
    if (!m.applied) m.candidate.schedule = from;
    // The candidate is the walk since the last evaluation: the edits before this step's and its own.
    m.candidate.edits = m.walked;
    if (m.applied) m.candidate.edits.insert(m.candidate.edits.end(), edits.begin(), edits.end());
    // Measured every edits_per_evaluation steps and at the episode's end, when the walk changed anything.
    const PpoSettings& p = ctx.config().ppo;
    const bool due = (m.step + 1) % p.editsPerEvaluation == 0 || m.step + 1 >= p.episodeLength;
    m.evaluated = due && !m.candidate.edits.empty();
    return m;
}

void PpoStrategy::learn(StrategyContext& ctx, const Move& m, const eval::EvalResult* result)
{
    const PhaseTimer timer(ctx, "learn");
    const PpoSettings& p = ctx.config().ppo;
    PpoState& a = ppo(ctx);
    PpoEpisode& ep = a.envs.at(size_t(m.env));
    double raw = 0.0; // in speed-up units
    bool end = m.step + 1 >= p.episodeLength;
    double finalSpeedup = m.speedup; // the episode's schedule after this step, as last evaluated
    int evaluated = -1;
    if (result) {
        const SearchEvaluation& e = ctx.record(m.candidate, "ppo", *result, 0.0);
        evaluated = e.step;
        if (e.figures.ok && !keeps(ctx, e.figures, m.speedup)) {
            // improving_only: the episode goes back to its last evaluated schedule; the reward is what
            // the step would have changed, so the agent still learns which edits lose.
            raw = e.figures.speedup - m.speedup;
            ep.edits.clear();
            m_envSchedules[size_t(m.env)] = ctx.scheduleOf(m.base);
        } else if (e.figures.ok) {
            ctx.accept(e.step); // the action is taken: the episode walks on from it
            raw = e.figures.speedup - m.speedup;
            finalSpeedup = e.figures.speedup;
            ep.base = e.step;
            ep.edits.clear();
            ep.speedup = e.figures.speedup;
            m_envSchedules[size_t(m.env)] = m.candidate.schedule;
            ctx.setIncumbent(e.step, e.figures.speedup, m.candidate.schedule);
        } else {
            // A legal edit should never fail; if one does (a fault, a time-out), the episode ends as if
            // the kernel were 10% slower.
            raw = -0.1;
            finalSpeedup = 0.9;
            end = true;
        }
        ctx.publish(e.step);
    } else if (m.applied) {
        // Walked on without a measurement (edits_per_evaluation > 1): the edits wait for the next one.
        ep.edits = m.candidate.edits;
        m_envSchedules[size_t(m.env)] = m.candidate.schedule;
    }
    // An action whose codes could not be derived (rescheduled space) changes nothing and earns nothing.
    // Episode rewards: nothing until the end, then the final schedule's speed-up over the episode's start
    // (1, the original, unless it started from a list schedule or the best) from its own evaluation (a paired
    // screen against the original on a GPU, confirmed on fresh rounds when it beats the best: the engine's
    // one path), not a difference of two evaluations.
    if (p.reward == RewardMode::Episode) raw = end ? finalSpeedup - ep.startSpeedup : 0.0;
    const double reward = rewardOf(ctx, m.env, raw, end);
    ep.step = m.step + 1;
    a.rollout.push_back(
        {m.env, m.base, m.walked, m.step, m.speedup, m.subsetSeed, m.row, evaluated, raw, reward, end});
    ctx.agent()->reward(reward, end, m.env);
    if (end) endEpisode(ctx, m.env);
}

void PpoStrategy::step(StrategyContext& ctx)
{
    const PpoSettings& p = ctx.config().ppo;
    if (m_envSchedules.empty()) startEpisodes(ctx);
    // Every environment chooses, in order, with the search's engine; their candidates go to the evaluator
    // as one batch (a pool measures them on its GPUs at once); then each learns its outcome, in order.
    // The last lock-step of a budget lets only as many environments move as evaluations are left, so
    // runs compare at equal evaluations.
    int acting = int(m_envSchedules.size());
    if (ctx.config().budgetEvals > 0)
        acting = int(std::clamp<int64_t>(ctx.config().budgetEvals - ctx.state().evaluations(), 1, acting));
    std::vector<Move> moves;
    for (int env = 0; env < acting; ++env)
        if (auto m = choose(ctx, env)) moves.push_back(std::move(*m));
    ctx.noteProposals(!moves.empty());
    if (moves.empty()) return;
    std::vector<Candidate> batch;
    for (const Move& m : moves)
        if (m.evaluated) batch.push_back(m.candidate);
    std::vector<eval::EvalResult> results;
    if (!batch.empty()) results = ctx.evaluate(batch, EvalRequest{1.0 / ctx.state().bestSpeedup, false});
    size_t next = 0;
    for (const Move& m : moves)
        learn(ctx, m, m.evaluated ? &results[next++] : nullptr);
    if (ctx.agent()->pending() >= p.stepsPerUpdate) updateAgent(ctx);
}

} // namespace

std::unique_ptr<SearchStrategy> makePpoStrategy()
{
    return std::make_unique<PpoStrategy>();
}

} // namespace sassx::search
