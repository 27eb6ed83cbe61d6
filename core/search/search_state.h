#pragma once
// Everything a search has done and needs to go on: the history of evaluations, the incumbent and the
// best, counters and the random engine's state. It is the checkpoint: a run killed at any point resumes
// from the last one written with its best variant and history (search_engine.h).
#include "core/common/result.h"
#include "core/eval/eval_result.h"
#include "core/eval/race.h"
#include "core/rewrite/variant.h"
#include "core/search/climb_state.h"
#include "core/search/ppo_state.h"
#include "core/search/search_config.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sassx::search {

enum class Outcome : uint8_t
{
    Accepted, // became the incumbent
    Rejected,
    Failed,  // did not run correctly (wrong output, fault, timeout) or could not be written
    Measure, // a measurement of a known schedule (the incumbent's re-measure), not a decision
};
std::string outcomeName(Outcome o);
std::optional<Outcome> parseOutcome(const std::string& name);

// Figures of one evaluation as speed-ups (> 1 = faster).
struct SpeedupFigures
{
    bool ok = false;
    std::string failureKind, failure;
    double speedup = 0.0; // median of the per-round speed-ups
    double low = 0.0;     // 95% interval
    double high = 0.0;
    int rounds = 0;            // 0: a deterministic estimate (the interval is the point)
    int instances = 1;         // fresh instance pairs the rounds spread over (>= 2: interval over instances)
    bool confirmed = false;    // figures come from fresh confirmation rounds
    double noiseFloor = 0.0;   // ratio units
    eval::FigureSource source; // kept in files as its label: "measured, NVIDIA H100 …"
    // Paired against the base's schedule (a search's incumbent) instead of the original: `paired` is
    // the measured speed-up over that base, and speedup/low/high above are chained to the original
    // through the base's own figure (an estimate of the product until the schedule is re-measured
    // against the original). 0: measured against the original directly.
    double paired = 0.0;
    double pairedLow = 0.0, pairedHigh = 0.0;
    std::optional<eval::RaceOutcome> race; // empty when not raced
    bool exact() const { return ok && rounds == 0; }
    // Trustworthy enough to report: deterministic, or from fresh confirmation rounds against the
    // original (a chained figure is not).
    bool reportable() const { return ok && (rounds == 0 || (confirmed && paired == 0.0)); }
    // Clearly faster than `than`: the whole interval above it and the gain above the noise floor.
    bool clearlyAbove(double than) const;
};
SpeedupFigures speedupFigures(const eval::EvalResult& r);
// Figures of a paired evaluation (candidate / its base) chained to the original through the base's
// speed-up `baseSpeedup`: `paired*` keep the measured figures, speedup/low/high become the product.
void chainToOriginal(SpeedupFigures& f, double baseSpeedup);

struct SearchEvaluation
{
    int step = 0;            // index in the history
    double seconds = 0.0;    // since the run started, across resumes
    int base = -1;           // the evaluation whose schedule this one edits (-1: the original)
    std::vector<Edit> edits; // applied to base's schedule
    std::string kind;        // "candidate", "re-measure", "list:hoist-loads", …
    SpeedupFigures figures;
    Outcome outcome = Outcome::Rejected;
    bool best = false; // a new best at the time
    double temperature = 0.0;
};

struct SearchState
{
    SearchConfig config;
    std::string rng;   // std::mt19937_64 state, as its stream operator writes it
    int64_t steps = 0; // proposals made (annealing's clock)
    double seconds = 0.0;
    std::vector<SearchEvaluation> history;
    int incumbent = -1; // history index; -1: the original (or the start)
    double incumbentSpeedup = 1.0;
    int best = -1; // history index of the best reportable evaluation; -1: the original
    double bestSpeedup = 1.0;
    double timeToBest = 0.0;
    int listScheduleNext = 0; // heuristics already evaluated
    int start = -1;           // history index the other algorithms start from (-1: the original)
    bool finished = false;
    std::optional<StopReason> stopReason; // none while the run goes on
    int64_t legalAtStart = -1;
    int refusedByCheck = 0; // proposals the full check refused (should stay 0: proposals are legal)
    // PPO (strategy_ppo.cpp, ppo_state.h): each environment's episode, the rollout since the last update
    // (enough to rebuild its observations, so a resumed run continues exactly) and update statistics.
    // None for the other algorithms (null in the JSON).
    std::optional<PpoState> agent;
    // Climbing (strategy_climb.cpp, climb_state.h): the sweep in progress, enough to rebuild it exactly on
    // resume, and its restarts from a perturbed best. None for the other algorithms (null in the JSON).
    std::optional<ClimbState> climb;
    // The agent's network and optimizer after its last update (a libtorch archive). Not in the JSON:
    // the search run keeps it beside the checkpoint as policy.pt.
    std::string agentBytes;

    int64_t evaluations() const { return int64_t(history.size()); }
    // Times the climb restarted from a perturbed best after converging (0 for other algorithms).
    int restarts() const;
    // Edits from the original to the schedule of history[index] (index -1: none), following bases;
    // none when the history does not chain (searchStateFromJson refuses such histories).
    std::vector<Edit> editsOf(int index) const;
};

// How the run ended, in words: "budget spent after 2 restarts from a perturbed best (converged at 469 s,
// 1012 s)", "converged: ...; restarts are off", "stopped early, before its budget (resume to continue)";
// empty while it runs. `stopReason`'s name (budget, converged, …) is what scripts read.
std::string stopDescription(const SearchState& s);

// Edits from the original to the schedule of history[step], following each evaluation's base; step -1
// is the original (no edits). Checked, since a history read from a file may not chain.
Result<std::vector<Edit>> editsOfEvaluation(const std::vector<SearchEvaluation>& history, int step);

nlohmann::json toJson(const SpeedupFigures& f);
// Lenient: a missing field keeps its default (reports written by other versions).
SpeedupFigures speedupFiguresFromJson(const nlohmann::json& j);
nlohmann::json toJson(const SearchEvaluation& e);
Result<SearchEvaluation> evaluationFromJson(const nlohmann::json& j);
nlohmann::json toJson(const SearchState& s);
// toJson(s) less its "history" (search_state_writer.h adds it from text kept between checkpoints).
nlohmann::json toJsonWithoutHistory(const SearchState& s);
Result<SearchState> searchStateFromJson(const nlohmann::json& j);

// history.csv: step, seconds, kind, base, move, ok, failure, speedup, low, high, rounds, confirmed,
// outcome, best, temperature. One row per evaluation.
std::string historyCsvHeader();
std::string historyCsvRow(const SearchEvaluation& e);

} // namespace sassx::search
