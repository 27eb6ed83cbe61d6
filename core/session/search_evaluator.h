#pragma once
// The search engine's evaluator (core/search/candidate_evaluator.h) over a KernelEvaluator: schedules
// become tuned cubins through the workspace's writer and go to the chosen backend in batches, one per
// GPU of the pool; the estimate backend takes schedules directly. Owned by one thread at a time.
#include "core/search/candidate_evaluator.h"
#include "core/session/kernel_evaluator.h"

namespace sassx {

struct SearchMeasurePlan
{
    int screenRounds = 10;  // every candidate
    int confirmRounds = 50; // fresh rounds for a candidate whose screen beats the incumbent
    int fullRounds = 100;   // EvalRequest::full (incumbent re-measures, the final figure of the best)
};

class SearchEvaluator : public search::CandidateEvaluator
{
public:
    SearchEvaluator(KernelEvaluator& evaluator, SearchMeasurePlan plan = {});

    std::vector<eval::EvalResult> evaluate(const std::vector<Schedule>& schedules,
                                           const search::EvalRequest& request) override;
    int parallelism() const override;
    double noiseFloor() const override;
    std::string sourceKind() const override;

private:
    eval::EvalOptions optionsFor(const search::EvalRequest& request) const;

    KernelEvaluator& m_evaluator;
    SearchMeasurePlan m_plan;
};

} // namespace sassx
