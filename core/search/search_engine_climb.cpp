// Climbing: noise-aware first-improvement search over single legal edits (docs/search.md).
//
// A sweep lists every legal single edit of the space from the incumbent (EditProposer::legalActions),
// shuffled, and tries them in turn, as many at once as the evaluator measures in parallel. Each
// candidate is raced against the incumbent in paired, interleaved rounds (core/eval/race.h): a loser
// costs a few rounds, and a candidate is kept only when fresh rounds on fresh instances put its whole
// interval above 1 + margin × noise floor. A kept candidate becomes the incumbent, is re-measured
// against the original (the only figure that can make it the best) and starts a new sweep. A sweep that
// keeps nothing starts another in a new order, from the best; after `climbSweeps` such sweeps in a row
// the climb has converged and ends. The sweep is checkpointed as its shuffle seed and position, so a
// resumed climb continues exactly.
#include "core/search/search_engine.h"

#include <algorithm>

namespace sassx::search {

double SearchEngine::climbBar() const
{
    // A deterministic backend resolves any difference; a measured one only what clears its noise.
    const double floor = m_evaluator.noiseFloor();
    return 1.0 + std::max(m_state.config.climbMargin * floor, 1e-9);
}

void SearchEngine::restoreClimb()
{
    // The sweep itself is rebuilt from its seed at the next step.
    m_sweep.clear();
    m_sweepBuilt = false;
}

namespace {
// Probes after a fruitless sweep: at least this many, however few single edits the space offers.
constexpr int64_t kMinProbes = 200;
} // namespace

bool SearchEngine::beginSweep()
{
    nlohmann::json& cs = m_state.climb;
    const bool resuming =
        !m_sweepBuilt && cs.contains("sweep_seed") && cs.value("incumbent", -2) == m_state.incumbent;
    if (!resuming) {
        const bool ended = cs.contains("sweep_seed") && cs.value("incumbent", -2) == m_state.incumbent;
        int fruitless = cs.value("fruitless", 0);
        const std::string phase = cs.value("phase", std::string("sweep"));
        if (ended && !cs.value("accepted", false) && phase == "sweep") {
            // A whole sweep kept nothing: probe combinations of edits from the same incumbent.
            cs["phase"] = "probe";
            cs["probes_left"] = std::max<int64_t>(kMinProbes, int64_t(m_sweep.size()));
            return true;
        }
        if (ended && !cs.value("accepted", false)) {
            // The probes kept nothing either. Go on from the best (a climb that kept a false winner may
            // stand below it), in a new order: noise may have hidden a winner.
            if (++fruitless >= m_state.config.climbSweeps) {
                m_state.finished = true;
                m_state.stopReason = "converged";
                return false;
            }
            restoreBest();
        } else if (cs.value("accepted", false)) {
            fruitless = 0;
        }
        cs = nlohmann::json{{"phase", "sweep"},  {"sweep_seed", m_rng()},  {"position", 0},
                            {"accepted", false}, {"fruitless", fruitless}, {"incumbent", m_state.incumbent}};
    }
    m_sweep = m_proposer->legalActions(m_incumbentSchedule);
    m_probeControl.clear();
    std::mt19937_64 shuffle(cs.value("sweep_seed", uint64_t(0)));
    std::shuffle(m_sweep.begin(), m_sweep.end(), shuffle);
    m_sweepBuilt = true;
    m_legalNow = int64_t(m_sweep.size());
    if (m_sweep.empty()) {
        m_emptyProposals = 1 << 20; // nothing is legal from here: the space is exhausted
        return false;
    }
    return true;
}

bool SearchEngine::climbProbe(Candidate& c)
{
    c.base = m_state.incumbent;
    c.schedule = m_incumbentSchedule;
    c.kind = "probe";
    const int k = std::uniform_int_distribution<int>(2, std::max(2, m_state.config.randomMaxEdits))(m_rng);
    if (!spaceHasControl(m_state.config.space)) {
        c.edits = m_proposer->propose(c.schedule, m_rng, k);
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
                0, m_probeControl.size() - 1)(m_rng)]];
            if (std::find(used.begin(), used.end(), e.at) != used.end()) continue;
            used.push_back(e.at);
            const auto applied = m_proposer->applyAction(c.schedule, e);
            c.edits.insert(c.edits.end(), applied.begin(), applied.end());
        }
    }
    if (c.edits.empty()) return false;
    if (!quickLegal(m_incumbentSchedule, c.schedule)) {
        ++m_state.refusedByCheck;
        return false;
    }
    return true;
}

std::vector<SearchEngine::Candidate> SearchEngine::climbCandidates(int batch)
{
    nlohmann::json& cs = m_state.climb;
    std::vector<Candidate> out;
    if (cs.value("phase", std::string("sweep")) == "probe") {
        int64_t left = cs.value("probes_left", int64_t(0));
        for (; int(out.size()) < batch && left > 0; --left) {
            Candidate c;
            if (climbProbe(c)) out.push_back(std::move(c));
        }
        cs["probes_left"] = left;
        return out;
    }
    // During a sweep every other candidate is a probe: single edits refine, probes find what only a
    // combination gains (on attention_fwd random variants of 1-30 flips reached 1.019x in 24 s while a
    // pure sweep of its ~2,000 flips needed minutes: bench/results/search-climb-h200x4-2026-11-26.md).
    size_t position = cs.value("position", size_t(0));
    int64_t turn = cs.value("turn", int64_t(0));
    while (int(out.size()) < batch && position < m_sweep.size()) {
        Candidate c;
        if (turn++ % 2 == 1) {
            if (climbProbe(c)) out.push_back(std::move(c));
            continue;
        }
        c.base = m_state.incumbent;
        c.schedule = m_incumbentSchedule;
        const Edit& action = m_sweep[position++];
        c.edits = m_proposer->applyAction(c.schedule, action);
        if (c.edits.empty()) continue;
        // A control edit of the sweep is one the checker itself listed as legal from this very schedule
        // (legalControlEdits judged it on its whole block): checking it again would only double the
        // CPU time of the yield space. Moves are re-checked (the reuse fix-up, derived codes).
        const bool listedByChecker = action.kind == Edit::Kind::Control && c.edits.size() == 1;
        if (!listedByChecker && !quickLegal(m_incumbentSchedule, c.schedule)) {
            ++m_state.refusedByCheck;
            continue;
        }
        out.push_back(std::move(c));
    }
    cs["position"] = position;
    cs["turn"] = turn;
    return out;
}

bool SearchEngine::climbPhaseOver() const
{
    const nlohmann::json& cs = m_state.climb;
    if (cs.value("phase", std::string("sweep")) == "probe") return cs.value("probes_left", int64_t(0)) <= 0;
    return cs.value("position", size_t(0)) >= m_sweep.size();
}

void SearchEngine::climbStep()
{
    nlohmann::json& cs = m_state.climb;
    if (!cs.is_object()) cs = nlohmann::json::object();
    const bool stale = cs.value("incumbent", -2) != m_state.incumbent;
    if (!m_sweepBuilt || stale || climbPhaseOver()) {
        if (m_sweepBuilt && stale) cs["accepted"] = true; // the incumbent moved (a restore): not fruitless
        if (!beginSweep()) return;
    }
    const int batch = std::max(1, m_evaluator.parallelism());
    std::vector<Candidate> candidates = climbCandidates(batch);
    m_state.steps += int64_t(candidates.size());
    if (candidates.empty()) return;

    EvalRequest request;
    request.reference = &m_incumbentSchedule;
    request.raceSpeedup = climbBar();
    auto results = evaluate(candidates, request);
    const size_t first = m_state.history.size();
    int winner = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
        const SearchEvaluation& e = record(candidates[i], candidates[i].kind, results[i], 0.0);
        // Of several winners measured at once, the one that gained most.
        if (e.outcome != Outcome::Failed && e.figures.race == "won" &&
            (winner < 0 || e.figures.paired > m_state.history[first + size_t(winner)].figures.paired))
            winner = int(i);
    }
    if (winner >= 0) {
        SearchEvaluation& e = m_state.history[first + size_t(winner)];
        e.outcome = Outcome::Accepted;
        setIncumbent(e.step, e.figures.speedup, candidates[size_t(winner)].schedule);
        cs["accepted"] = true;
        cs["incumbent"] = -2; // a new sweep from the new incumbent
    }
    publishAll(first);
    m_stepsSinceRemeasure += int64_t(candidates.size());
    const bool measured = m_evaluator.sourceKind() != "estimate";
    if (measured && (winner >= 0 || (m_state.config.remeasureEvery > 0 &&
                                     m_stepsSinceRemeasure >= 4 * m_state.config.remeasureEvery)))
        remeasureIncumbent();
}

} // namespace sassx::search
