#pragma once
// What a search strategy (search_strategy.h) sees of the engine that runs it: the run's state to read,
// and the few things it may do — propose, check, have measured, record, decide, count. The engine
// implements it privately, so a strategy reaches none of its internals (the proposer's guide, the
// checkpoints, the budget, the list phase) and changes the run's state only through these calls.
#include "core/search/candidate_evaluator.h"
#include "core/search/climb_state.h"
#include "core/search/ppo_state.h"
#include "core/search/search_space.h"
#include "core/search/search_state.h"

#include <random>
#include <string>
#include <vector>

namespace sassx::search {

class ScheduleAgent;

// A schedule a strategy wants evaluated: the edits that make it from its base's schedule.
struct Candidate
{
    Schedule schedule;
    std::vector<Edit> edits;
    int base = -1;
    std::string kind = "candidate"; // what the history calls it ("probe": climbing's multi-edit draws)
};

class StrategyContext
{
public:
    // --- The run, read-only ---------------------------------------------------------------------------
    virtual const SearchState& state() const = 0;
    const SearchConfig& config() const { return state().config; }
    virtual const LegalityChecker& checker() const = 0;
    virtual const EditProposer& proposer() const = 0;
    virtual const Schedule& incumbentSchedule() const = 0;
    virtual const Schedule& startSchedule() const = 0;
    // The schedule of history[index] (-1: the original).
    virtual Schedule scheduleOf(int index) const = 0;
    virtual double now() const = 0;             // search seconds, resumed runs included
    virtual double temperatureUnit() const = 0; // the noise floor (a minimum for deterministic backends)
    virtual double temperature() const = 0;     // the strategy's own, as the history records it
    // How many independent candidates to hand the evaluator at once (SearchEngine::batchSize).
    virtual int batchSize() const = 0;
    // The evaluator: its noise floor (ratio units), how many candidates it measures at once, and whether
    // its figures are measurements (a deterministic estimate has nothing to re-measure).
    virtual double noiseFloor() const = 0;
    virtual int parallelism() const = 0;
    virtual bool measured() const = 0;
    // The run's random engine: every draw a strategy makes comes from it, so a run replays from its seed.
    virtual std::mt19937_64& rng() = 0;

    // --- Propose, check, measure, record ----------------------------------------------------------------
    // `parallelism()` proposals of minEdits..maxEdits legal edits from `from`; counts the step.
    virtual std::vector<Candidate> proposeFrom(int base, const Schedule& from, int minEdits,
                                               int maxEdits) = 0;
    // `to`, a few edits from the legal `from`, passes the checker; a refusal is counted (it should never
    // happen: proposals come from the checker's legal edits).
    virtual bool admit(const Schedule& from, const Schedule& to) = 0;
    virtual std::vector<eval::EvalResult> evaluate(const std::vector<Candidate>& candidates,
                                                   const EvalRequest& request) = 0;
    // Appends an evaluation to the history and applies the one rule for a new best.
    virtual const SearchEvaluation& record(const Candidate& c, std::string kind, const eval::EvalResult& r,
                                           double temperature) = 0;
    // history[step] became the walk's next schedule.
    virtual void accept(int step) = 0;
    // Reports history[from..] (publish: one evaluation) to the run's callbacks.
    virtual void publishFrom(size_t from) = 0;
    virtual void publish(int step) = 0;

    // --- Decide ---------------------------------------------------------------------------------------
    virtual void setIncumbent(int index, double speedup, const Schedule& schedule) = 0;
    virtual void restoreBest() = 0;
    // The incumbent against the original on fresh rounds (measured backends only).
    virtual void remeasureIncumbent() = 0;
    // Adds evaluations to those since the incumbent's last re-measure; returns the new count.
    virtual int64_t countTowardsRemeasure(int64_t evaluations) = 0;
    // Ends the run for the strategy's own reason.
    virtual void finish(StopReason why) = 0;
    // Nothing is legal from the incumbent: the run ends as exhausted at its next turn.
    virtual void spaceExhausted() = 0;
    // A step that found (or not) something to propose: enough steps in a row without one exhaust the space.
    virtual void noteProposals(bool found) = 0;

    // --- Count ----------------------------------------------------------------------------------------
    virtual void countSteps(int64_t proposals) = 0; // proposals made (annealing's clock)
    virtual void setLegalMoves(int64_t count) = 0;  // legal single edits from the incumbent (status)
    virtual void addStrategySeconds(const std::string& phase, double seconds) = 0;

    // --- The strategies' own state, kept in the checkpoint -------------------------------------------------
    virtual ClimbState& climbState() = 0;
    // PPO's (none until its begin()).
    virtual std::optional<PpoState>& ppoState() = 0;
    // The learning agent of a PPO run (null for the others), and its weights saved into the checkpoint.
    virtual ScheduleAgent* agent() const = 0;
    virtual void saveAgent() = 0;

protected:
    ~StrategyContext() = default;
};

} // namespace sassx::search
