#pragma once
// What a search asks of an evaluator: figures for a batch of schedules of its kernel. The session layer
// implements it over KernelEvaluator (GPU pool or estimate: core/session/search_evaluator.h); tests
// implement it directly. Figures are time ratios (candidate / original, < 1 = faster) as the evaluator
// measured them; the engine turns them into speed-ups.
#include "core/eval/eval_result.h"
#include "core/rewrite/variant.h"

#include <string>
#include <vector>

namespace sassx::search {

struct EvalRequest
{
    // A candidate whose screening beats this ratio is confirmed on fresh rounds (the winner's curse
    // stays out of reported gains: core/eval/timing_stats.h).
    double incumbentRatio = 1.0;
    // Every confirmation round, no screening shortcut and no early stop: re-measuring the incumbent and
    // the final figure of the best.
    bool full = false;
    // Paired: timed in interleaved rounds against this schedule (a search's incumbent) instead of the
    // original, and the figures are candidate / reference. Null: against the original.
    const Schedule* reference = nullptr;
    // > 1: raced (core/eval/race.h): screened in a few rounds, dropped as soon as it cannot clear this
    // speed-up over the reference, and a survivor confirmed on fresh rounds and fresh instances; the
    // result says "won" only when the confirmed interval lies wholly above it. 0: not raced.
    double raceSpeedup = 0.0;
    // The figure a report quotes (the best at the end of a run): also spread over fresh worker
    // processes (AdaptivePlan::processes), so that its interval covers a re-run. The incumbent's
    // re-measures during a run stay in the pool's processes: starting processes for each would slow
    // the search, and the final figure is the gate.
    bool report = false;
};

class CandidateEvaluator
{
public:
    virtual ~CandidateEvaluator() = default;
    // One result per schedule, in order. A schedule that cannot be written or run is a failed result
    // (failureKind set), never an exception.
    virtual std::vector<eval::EvalResult> evaluate(const std::vector<Schedule>& schedules,
                                                   const EvalRequest& request) = 0;
    // How many candidates it measures at once (GPUs in the pool); the engine batches that many.
    virtual int parallelism() const { return 1; }
    // Ratio units (0.004 = 0.4%): differences below it are not resolved.
    virtual double noiseFloor() const = 0;
    // Measured or Estimate.
    virtual eval::FigureKind sourceKind() const = 0;
};

} // namespace sassx::search
