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
    Status begin(SearchEngine&, bool) override
    {
        // The sweep itself is rebuilt from its seed (in the checkpoint) at the next step.
        m_sweep.clear();
        m_sweepBuilt = false;
        return Ok{};
    }
    void step(SearchEngine& eng) override;
    // A climb from a perturbed best stands below the best on purpose: it stays in its own basin until
    // that converges, and the next restart perturbs the best again.
    bool returnsToBestBelowIt(const SearchEngine& eng) const override { return eng.state().restarts() == 0; }

private:
    Next beginSweep(SearchEngine& eng);
    void restart(SearchEngine& eng);
    std::vector<SearchEngine::Candidate> climbCandidates(SearchEngine& eng, int batch);
    bool climbProbe(SearchEngine& eng, SearchEngine::Candidate& c);
    bool climbPhaseOver(const SearchEngine& eng) const;
    double climbBar(const SearchEngine& eng) const;

    std::vector<Edit> m_sweep; // every legal single edit of the incumbent, shuffled
    bool m_sweepBuilt = false;
    std::vector<size_t> m_probeControl; // indices of m_sweep's control edits (probes draw from them)
};

double ClimbStrategy::climbBar(const SearchEngine& eng) const
{
    // A deterministic backend resolves any difference; a measured one only what clears its noise.
    const double floor = eng.evaluator().noiseFloor();
    return 1.0 + std::max(eng.state().config.climbMargin * floor, 1e-9);
}

Next ClimbStrategy::beginSweep(SearchEngine& eng)
{
    nlohmann::json& cs = eng.state().climb;
    const bool resuming =
        !m_sweepBuilt && cs.contains("sweep_seed") && cs.value("incumbent", -2) == eng.state().incumbent;
    if (!resuming) {
        const bool ended = cs.contains("sweep_seed") && cs.value("incumbent", -2) == eng.state().incumbent;
        int fruitless = cs.value("fruitless", 0);
        const std::string phase = cs.value("phase", std::string("sweep"));
        if (ended && !cs.value("accepted", false) && phase == "sweep") {
            // A whole sweep kept nothing: probe combinations of edits from the same incumbent.
            cs["phase"] = "probe";
            cs["probes_left"] = std::max<int64_t>(kMinProbes, int64_t(m_sweep.size()));
            return Next::Sweep;
        }
        if (ended && !cs.value("accepted", false)) {
            // The probes kept nothing either: noise may have hidden a winner, so sweep again in a new
            // order. Until the first restart that sweep starts from the best (a climb that kept a false
            // winner may stand below it); a climb from a perturbed best stays where it is.
            if (++fruitless >= eng.state().config.climbSweeps) return Next::Restart;
            if (eng.state().restarts() == 0) eng.restoreBest();
        } else if (cs.value("accepted", false)) {
            fruitless = 0;
        }
        nlohmann::json next{{"phase", "sweep"},       {"sweep_seed", eng.rng()()},
                            {"position", 0},          {"accepted", false},
                            {"fruitless", fruitless}, {"incumbent", eng.state().incumbent}};
        for (const char* kept : {"restarts", "restart_seed", "converged_s", "converged_evaluations"})
            if (cs.contains(kept)) next[kept] = cs[kept];
        cs = std::move(next);
    }
    m_sweep = eng.proposer().legalActions(eng.incumbentSchedule());
    m_probeControl.clear();
    std::mt19937_64 shuffle(cs.value("sweep_seed", uint64_t(0)));
    std::shuffle(m_sweep.begin(), m_sweep.end(), shuffle);
    m_sweepBuilt = true;
    eng.legalNow() = int64_t(m_sweep.size());
    if (m_sweep.empty()) {
        eng.emptyProposals() = 1 << 20; // nothing is legal from here: the space is exhausted
        return Next::Stop;
    }
    return Next::Sweep;
}

void ClimbStrategy::restart(SearchEngine& eng)
{
    SearchState& st = eng.state();
    nlohmann::json& cs = st.climb;
    auto converged = [&st] {
        st.finished = true;
        st.stopReason = "converged";
    };
    if (!st.config.climbRestarts) return converged();
    eng.restoreBest();
    // The perturbation draws from its own seed, taken from the engine's random state and kept in the
    // checkpoint: the restart can be replayed from it alone.
    const uint64_t seed = eng.rng()();
    std::mt19937_64 rng(seed);
    SearchEngine::Candidate c;
    c.base = st.incumbent;
    c.kind = "restart";
    for (int draw = 0; draw < kRestartDraws && c.edits.empty(); ++draw) {
        c.schedule = eng.incumbentSchedule();
        const int k = std::uniform_int_distribution<int>(kRestartMinEdits, kRestartMaxEdits)(rng);
        c.edits = eng.proposer().propose(c.schedule, rng, k);
        if (!c.edits.empty() && !eng.quickLegal(eng.incumbentSchedule(), c.schedule)) {
            ++st.refusedByCheck;
            c.edits.clear();
        }
    }
    if (c.edits.empty()) return converged(); // the best offers no legal edit: nowhere to restart from
    cs["restarts"] = st.restarts() + 1;
    cs["restart_seed"] = seed;
    for (const auto& [key, value] : {std::pair<const char*, nlohmann::json>{"converged_s", eng.now()},
                                     {"converged_evaluations", st.evaluations()}}) {
        if (!cs.contains(key)) cs[key] = nlohmann::json::array();
        cs[key].push_back(value);
    }
    // Measured against the original on every confirmation round, as a re-measure of the incumbent: its
    // figure anchors the paired gains of the climb from it, and only a clearly better one becomes the best.
    auto results = eng.evaluate({c}, EvalRequest{1.0 / st.incumbentSpeedup, true});
    const size_t first = st.history.size();
    SearchEvaluation& e = eng.record(c, c.kind, results.at(0), 0.0);
    if (e.outcome != Outcome::Failed) {
        e.outcome = Outcome::Accepted;
        eng.setIncumbent(e.step, e.figures.speedup, c.schedule);
    }
    st.steps += 1;
    eng.publishAll(first);
    // A new sweep from the restart (from the best, when the perturbed variant failed to run).
    cs["accepted"] = true;
    cs["fruitless"] = 0;
    cs["incumbent"] = -2;
}

bool ClimbStrategy::climbProbe(SearchEngine& eng, SearchEngine::Candidate& c)
{
    c.base = eng.state().incumbent;
    c.schedule = eng.incumbentSchedule();
    c.kind = "probe";
    const int k =
        std::uniform_int_distribution<int>(2, std::max(2, eng.state().config.randomMaxEdits))(eng.rng());
    if (!spaceHasControl(eng.state().config.space)) {
        c.edits = eng.proposer().propose(c.schedule, eng.rng(), k);
    } else {
        // Control edits of distinct instructions, drawn from the sweep's list (the checker's own legal
        // edits of this incumbent), then checked together once. Drawing them through the proposer after
        // a move re-enumerated every control edit of the kernel per move: 15 probes/s on attention_fwd in
        // all+control. Moves are the single-edit sweep's part.
        if (m_probeControl.empty())
            for (size_t i = 0; i < m_sweep.size(); ++i)
                if (m_sweep[i].kind == Edit::Kind::Control) m_probeControl.push_back(i);
        if (m_probeControl.empty()) return false;
        std::vector<uint32_t> used;
        for (int tries = 0; int(c.edits.size()) < k && tries < 4 * k; ++tries) {
            const Edit& e = m_sweep[m_probeControl[std::uniform_int_distribution<size_t>(
                0, m_probeControl.size() - 1)(eng.rng())]];
            if (std::find(used.begin(), used.end(), e.at) != used.end()) continue;
            used.push_back(e.at);
            const auto applied = eng.proposer().applyAction(c.schedule, e);
            c.edits.insert(c.edits.end(), applied.begin(), applied.end());
        }
    }
    if (c.edits.empty()) return false;
    if (!eng.quickLegal(eng.incumbentSchedule(), c.schedule)) {
        ++eng.state().refusedByCheck;
        return false;
    }
    return true;
}

std::vector<SearchEngine::Candidate> ClimbStrategy::climbCandidates(SearchEngine& eng, int batch)
{
    nlohmann::json& cs = eng.state().climb;
    std::vector<SearchEngine::Candidate> out;
    if (cs.value("phase", std::string("sweep")) == "probe") {
        int64_t left = cs.value("probes_left", int64_t(0));
        for (; int(out.size()) < batch && left > 0; --left) {
            SearchEngine::Candidate c;
            if (climbProbe(eng, c)) out.push_back(std::move(c));
        }
        cs["probes_left"] = left;
        return out;
    }
    // During a sweep every other candidate is a probe: single edits refine, probes find what only a
    // combination gains (on attention_fwd random variants of 1-30 flips reached 1.019x in 24 s while a
    // pure sweep of its ~2,000 flips needed minutes: docs/status.md, "Climb's probes").
    size_t position = cs.value("position", size_t(0));
    int64_t turn = cs.value("turn", int64_t(0));
    while (int(out.size()) < batch && position < m_sweep.size()) {
        SearchEngine::Candidate c;
        if (turn++ % 2 == 1) {
            if (climbProbe(eng, c)) out.push_back(std::move(c));
            continue;
        }
        c.base = eng.state().incumbent;
        c.schedule = eng.incumbentSchedule();
        const Edit& action = m_sweep[position++];
        c.edits = eng.proposer().applyAction(c.schedule, action);
        if (c.edits.empty()) continue;
        // A control edit of the sweep is one the checker itself listed as legal from this very schedule
        // (legalControlEdits judged it on its whole block): checking it again would only double the
        // CPU time of the yield space. Moves are re-checked (the reuse fix-up, derived codes).
        const bool listedByChecker = action.kind == Edit::Kind::Control && c.edits.size() == 1;
        if (!listedByChecker && !eng.quickLegal(eng.incumbentSchedule(), c.schedule)) {
            ++eng.state().refusedByCheck;
            continue;
        }
        out.push_back(std::move(c));
    }
    cs["position"] = position;
    cs["turn"] = turn;
    return out;
}

bool ClimbStrategy::climbPhaseOver(const SearchEngine& eng) const
{
    const nlohmann::json& cs = eng.state().climb;
    if (cs.value("phase", std::string("sweep")) == "probe") return cs.value("probes_left", int64_t(0)) <= 0;
    return cs.value("position", size_t(0)) >= m_sweep.size();
}

void ClimbStrategy::step(SearchEngine& eng)
{
    nlohmann::json& cs = eng.state().climb;
    if (!cs.is_object()) cs = nlohmann::json::object();
    const bool stale = cs.value("incumbent", -2) != eng.state().incumbent;
    if (!m_sweepBuilt || stale || climbPhaseOver(eng)) {
        if (m_sweepBuilt && stale) cs["accepted"] = true; // the incumbent moved (a restore): not fruitless
        const Next next = beginSweep(eng);
        if (next == Next::Restart) return restart(eng);
        if (next == Next::Stop) return;
    }
    std::vector<SearchEngine::Candidate> candidates = climbCandidates(eng, eng.batchSize());
    eng.state().steps += int64_t(candidates.size());
    if (candidates.empty()) return;

    EvalRequest request;
    request.reference = &eng.incumbentSchedule();
    request.raceSpeedup = climbBar(eng);
    auto results = eng.evaluate(candidates, request);
    const size_t first = eng.state().history.size();
    int winner = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
        const SearchEvaluation& e = eng.record(candidates[i], candidates[i].kind, results[i], 0.0);
        // Of several winners measured at once, the one that gained most.
        if (e.outcome != Outcome::Failed && e.figures.race == "won" &&
            (winner < 0 || e.figures.paired > eng.state().history[first + size_t(winner)].figures.paired))
            winner = int(i);
    }
    if (winner >= 0) {
        SearchEvaluation& e = eng.state().history[first + size_t(winner)];
        e.outcome = Outcome::Accepted;
        eng.setIncumbent(e.step, e.figures.speedup, candidates[size_t(winner)].schedule);
        cs["accepted"] = true;
        cs["incumbent"] = -2; // a new sweep from the new incumbent
    }
    eng.publishAll(first);
    eng.stepsSinceRemeasure() += int64_t(candidates.size());
    const bool measured = eng.evaluator().sourceKind() != "estimate";
    if (measured && (winner >= 0 || (eng.state().config.remeasureEvery > 0 &&
                                     eng.stepsSinceRemeasure() >= 4 * eng.state().config.remeasureEvery)))
        eng.remeasureIncumbent();
}

} // namespace

std::unique_ptr<SearchStrategy> makeClimbStrategy()
{
    return std::make_unique<ClimbStrategy>();
}

} // namespace sassx::search
