// Climbing: noise-aware first-improvement search over single legal edits (docs/search.md).
//
// A sweep lists every legal single edit of the space from the incumbent (EditProposer::legalActions),
// shuffled, and tries them in turn, as many at once as SearchEngine::batchSize() says (one with one GPU,
// several per GPU with a pool; of several winners of one batch the best is kept). Each
// candidate is raced against the incumbent in paired, interleaved rounds (core/eval/race.h): a loser
// costs a few rounds, and a candidate is kept only when fresh rounds on fresh instances put its whole
// interval above 1 + margin × noise floor. A kept candidate becomes the incumbent, is re-measured
// against the original (the only figure that can make it the best) and starts a new sweep. A sweep that
// keeps nothing starts another in a new order, from the best; after `climbSweeps` such sweeps in a row
// the climb has converged. It then restarts from the best perturbed by a few random legal edits and
// climbs again, until the budget is spent: a converged climb that stopped left budget unused (on the H200
// flash_attn_fwd stopped at 469 of 600 s). The sweep is checkpointed as its shuffle seed and position,
// and a restart as its count and perturbation seed, so a resumed climb continues exactly.
#include "core/search/search_strategy.h"

#include <algorithm>

namespace sassx::search {

namespace {
// Probes after a fruitless sweep: at least this many, however few single edits the space offers.
constexpr int64_t kMinProbes = 200;
// A restart perturbs the best with this many random legal edits: enough to leave the local optimum's
// single-edit neighbourhood, few enough to keep most of what the climb gained.
constexpr int kRestartMinEdits = 2;
constexpr int kRestartMaxEdits = 4;
// Draws of a perturbation before the best counts as offering no legal edit to restart from.
constexpr int kRestartDraws = 8;

// What a climb does after a sweep or probe phase ends.
enum class Next
{
    Sweep,   // the next phase is ready
    Restart, // converged: restart from a perturbed best
    Stop,    // nothing is legal from here
};

class ClimbStrategy : public SearchStrategy
{
public:
    Status begin(StrategyContext&, bool) override
    {
        // The sweep itself is rebuilt from its seed (in the checkpoint) at the next step.
        m_sweep.clear();
        m_sweepBuilt = false;
        return Ok{};
    }
    void step(StrategyContext& ctx) override;
    // A climb from a perturbed best stands below the best on purpose: it stays in its own basin until
    // that converges, and the next restart perturbs the best again.
    bool returnsToBestBelowIt(const StrategyContext& ctx) const override
    {
        return ctx.state().restarts() == 0;
    }

private:
    Next beginSweep(StrategyContext& ctx);
    void restart(StrategyContext& ctx);
    std::vector<Candidate> climbCandidates(StrategyContext& ctx, int batch);
    bool climbProbe(StrategyContext& ctx, Candidate& c);
    bool climbPhaseOver(const ClimbState& cs) const;
    double climbBar(const StrategyContext& ctx) const;

    std::vector<Edit> m_sweep; // every legal single edit of the incumbent, shuffled
    bool m_sweepBuilt = false;
    std::vector<size_t> m_probeControl; // indices of m_sweep's control edits (probes draw from them)
};

double ClimbStrategy::climbBar(const StrategyContext& ctx) const
{
    // A deterministic backend resolves any difference; a measured one only what clears its noise.
    return 1.0 + std::max(ctx.config().climbMargin * ctx.noiseFloor(), 1e-9);
}

Next ClimbStrategy::beginSweep(StrategyContext& ctx)
{
    ClimbState& cs = ctx.climbState();
    // A sweep from this very incumbent was begun: resumed (its list is not built yet) or ended.
    const bool begun = cs.sweepSeed && cs.incumbent == ctx.state().incumbent;
    if (m_sweepBuilt || !begun) {
        int fruitless = cs.fruitless;
        if (begun && !cs.accepted && cs.phase == ClimbPhase::Sweep) {
            // A whole sweep kept nothing: probe combinations of edits from the same incumbent.
            cs.phase = ClimbPhase::Probe;
            cs.probesLeft = std::max<int64_t>(kMinProbes, int64_t(m_sweep.size()));
            return Next::Sweep;
        }
        if (begun && !cs.accepted) {
            // The probes kept nothing either: noise may have hidden a winner, so sweep again in a new
            // order. Until the first restart that sweep starts from the best (a climb that kept a false
            // winner may stand below it); a climb from a perturbed best stays where it is.
            if (++fruitless >= ctx.config().climbSweeps) return Next::Restart;
            if (ctx.state().restarts() == 0) ctx.restoreBest();
        } else if (cs.accepted) {
            fruitless = 0;
        }
        // A new sweep; the restarts' record stays.
        ClimbState next;
        next.sweepSeed = ctx.rng()();
        next.fruitless = fruitless;
        next.incumbent = ctx.state().incumbent;
        next.restarts = cs.restarts;
        next.restartSeed = cs.restartSeed;
        next.convergedSeconds = std::move(cs.convergedSeconds);
        next.convergedEvaluations = std::move(cs.convergedEvaluations);
        cs = std::move(next);
    }
    m_sweep = ctx.proposer().legalActions(ctx.incumbentSchedule());
    m_probeControl.clear();
    std::mt19937_64 shuffle(cs.sweepSeed.value_or(0));
    std::shuffle(m_sweep.begin(), m_sweep.end(), shuffle);
    m_sweepBuilt = true;
    ctx.setLegalMoves(int64_t(m_sweep.size()));
    if (m_sweep.empty()) {
        ctx.spaceExhausted(); // nothing is legal from here
        return Next::Stop;
    }
    return Next::Sweep;
}

void ClimbStrategy::restart(StrategyContext& ctx)
{
    const SearchState& st = ctx.state();
    if (!st.config.climbRestarts) return ctx.finish(StopReason::Converged);
    ctx.restoreBest();
    // The perturbation draws from its own seed, taken from the engine's random state and kept in the
    // checkpoint: the restart can be replayed from it alone.
    const uint64_t seed = ctx.rng()();
    std::mt19937_64 rng(seed);
    Candidate c;
    c.base = st.incumbent;
    c.kind = "restart";
    for (int draw = 0; draw < kRestartDraws && c.edits.empty(); ++draw) {
        c.schedule = ctx.incumbentSchedule();
        const int k = std::uniform_int_distribution<int>(kRestartMinEdits, kRestartMaxEdits)(rng);
        c.edits = ctx.proposer().propose(c.schedule, rng, k);
        if (!c.edits.empty() && !ctx.admit(ctx.incumbentSchedule(), c.schedule)) c.edits.clear();
    }
    // The best offers no legal edit: nowhere to restart from.
    if (c.edits.empty()) return ctx.finish(StopReason::Converged);
    ClimbState& cs = ctx.climbState();
    cs.restarts += 1;
    cs.restartSeed = seed;
    cs.convergedSeconds.push_back(ctx.now());
    cs.convergedEvaluations.push_back(st.evaluations());
    // Measured against the original on every confirmation round, as a re-measure of the incumbent: its
    // figure anchors the paired gains of the climb from it, and only a clearly better one becomes the best.
    auto results = ctx.evaluate({c}, EvalRequest{1.0 / st.incumbentSpeedup, true});
    const size_t first = st.history.size();
    const SearchEvaluation& e = ctx.record(c, c.kind, results.at(0), 0.0);
    if (e.outcome != Outcome::Failed) {
        ctx.accept(e.step);
        ctx.setIncumbent(e.step, e.figures.speedup, c.schedule);
    }
    ctx.countSteps(1);
    ctx.publishFrom(first);
    // A new sweep from the restart (from the best, when the perturbed variant failed to run).
    cs.accepted = true;
    cs.fruitless = 0;
    cs.incumbent = ClimbState::kNoSweep;
}

bool ClimbStrategy::climbProbe(StrategyContext& ctx, Candidate& c)
{
    c.base = ctx.state().incumbent;
    c.schedule = ctx.incumbentSchedule();
    c.kind = "probe";
    const int k = std::uniform_int_distribution<int>(2, std::max(2, ctx.config().randomMaxEdits))(ctx.rng());
    if (!spaceHasControl(ctx.config().space)) {
        c.edits = ctx.proposer().propose(c.schedule, ctx.rng(), k);
    } else {
        // Control edits of distinct instructions, drawn from the sweep's list (the checker's own legal
        // edits of this incumbent), then checked together once: drawing them through the proposer would
        // re-enumerate every control edit of the kernel for each one, which makes probes too slow to
        // matter in all+control. Moves are the single-edit sweep's part.
        if (m_probeControl.empty())
            for (size_t i = 0; i < m_sweep.size(); ++i)
                if (m_sweep[i].kind == Edit::Kind::Control) m_probeControl.push_back(i);
        if (m_probeControl.empty()) return false;
        std::vector<Position> used;
        for (int tries = 0; int(c.edits.size()) < k && tries < 4 * k; ++tries) {
            const Edit& e = m_sweep[m_probeControl[std::uniform_int_distribution<size_t>(
                0, m_probeControl.size() - 1)(ctx.rng())]];
            if (std::find(used.begin(), used.end(), e.at) != used.end()) continue;
            used.push_back(e.at);
            const auto applied = ctx.proposer().applyAction(c.schedule, e);
            c.edits.insert(c.edits.end(), applied.begin(), applied.end());
        }
    }
    if (c.edits.empty()) return false;
    return ctx.admit(ctx.incumbentSchedule(), c.schedule);
}

std::vector<Candidate> ClimbStrategy::climbCandidates(StrategyContext& ctx, int batch)
{
    ClimbState& cs = ctx.climbState();
    std::vector<Candidate> out;
    if (cs.phase == ClimbPhase::Probe) {
        for (; int(out.size()) < batch && cs.probesLeft > 0; --cs.probesLeft) {
            Candidate c;
            if (climbProbe(ctx, c)) out.push_back(std::move(c));
        }
        return out;
    }
    // During a sweep every other candidate is a probe: single edits refine, probes find what only a
    // combination gains (on attention_fwd random variants of 1-30 flips reached 1.019x in 24 s while a
    // pure sweep of its ~2,000 flips needed minutes: docs/status.md, "Climb's probes").
    while (int(out.size()) < batch && cs.position < m_sweep.size()) {
        Candidate c;
        if (cs.turn++ % 2 == 1) {
            if (climbProbe(ctx, c)) out.push_back(std::move(c));
            continue;
        }
        c.base = ctx.state().incumbent;
        c.schedule = ctx.incumbentSchedule();
        const Edit& action = m_sweep[size_t(cs.position++)];
        c.edits = ctx.proposer().applyAction(c.schedule, action);
        if (c.edits.empty()) continue;
        // A control edit of the sweep is one the checker itself listed as legal from this very schedule
        // (legalControlEdits judged it on its whole block): checking it again would only double the
        // CPU time of the yield space. Moves are re-checked (the reuse fix-up, derived codes).
        const bool listedByChecker = action.kind == Edit::Kind::Control && c.edits.size() == 1;
        if (!listedByChecker && !ctx.admit(ctx.incumbentSchedule(), c.schedule)) continue;
        out.push_back(std::move(c));
    }
    return out;
}

bool ClimbStrategy::climbPhaseOver(const ClimbState& cs) const
{
    if (cs.phase == ClimbPhase::Probe) return cs.probesLeft <= 0;
    return cs.position >= m_sweep.size();
}

void ClimbStrategy::step(StrategyContext& ctx)
{
    ClimbState& cs = ctx.climbState();
    const bool stale = cs.incumbent != ctx.state().incumbent;
    if (!m_sweepBuilt || stale || climbPhaseOver(cs)) {
        if (m_sweepBuilt && stale) cs.accepted = true; // the incumbent moved (a restore): not fruitless
        const Next next = beginSweep(ctx);
        if (next == Next::Restart) return restart(ctx);
        if (next == Next::Stop) return;
    }
    std::vector<Candidate> candidates = climbCandidates(ctx, ctx.batchSize());
    ctx.countSteps(int64_t(candidates.size()));
    if (candidates.empty()) return;

    EvalRequest request;
    request.reference = &ctx.incumbentSchedule();
    request.raceSpeedup = climbBar(ctx);
    auto results = ctx.evaluate(candidates, request);
    const size_t first = ctx.state().history.size();
    int winner = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
        const SearchEvaluation& e = ctx.record(candidates[i], candidates[i].kind, results[i], 0.0);
        // Of several winners measured at once, the one that gained most.
        if (e.outcome != Outcome::Failed && e.figures.race == eval::RaceOutcome::Won &&
            (winner < 0 || e.figures.paired > ctx.state().history[first + size_t(winner)].figures.paired))
            winner = int(i);
    }
    if (winner >= 0) {
        const SearchEvaluation& e = ctx.state().history[first + size_t(winner)];
        ctx.accept(e.step);
        ctx.setIncumbent(e.step, e.figures.speedup, candidates[size_t(winner)].schedule);
        cs.accepted = true;
        cs.incumbent = ClimbState::kNoSweep; // a new sweep from the new incumbent
    }
    ctx.publishFrom(first);
    const int64_t since = ctx.countTowardsRemeasure(int64_t(candidates.size()));
    const int every = ctx.config().remeasureEvery;
    if (ctx.measured() && (winner >= 0 || (every > 0 && since >= 4 * every))) ctx.remeasureIncumbent();
}

} // namespace

std::unique_ptr<SearchStrategy> makeClimbStrategy()
{
    return std::make_unique<ClimbStrategy>();
}

} // namespace sassx::search
