#pragma once
// The search engine's evaluator (core/search/candidate_evaluator.h) over a KernelEvaluator: schedules
// become candidates (core/eval/candidate.h) and go to the chosen backend in batches, one per GPU of the
// pool (a GPU backend writes their cubins; the estimate takes the schedules). Owned by one thread at a
// time.
#include "core/search/candidate_evaluator.h"
#include "core/session/kernel_evaluator.h"

namespace sassx {

struct SearchMeasurePlan
{
    int screenRounds = 10;  // every candidate
    int confirmRounds = 50; // fresh rounds for a candidate whose screen beats the incumbent
    int fullRounds = 100;   // EvalRequest::full (incumbent re-measures, the final figure of the best)
    int fullProcesses = 5;  // the final figure (EvalRequest::report): spread over this many fresh processes
    int pairedRounds = 10;  // a paired screen against a reference without racing (annealing)
    // A race (EvalRequest::raceSpeedup; core/eval/race.h): the bar comes from the request.
    int raceFirstRounds = 4;
    int raceStageRounds = 4;
    int raceMaxScreenRounds = 16;
    int raceConfirmRounds = 24;
    int raceConfirmStage = 8;
};

class SearchEvaluator : public search::CandidateEvaluator
{
public:
    SearchEvaluator(KernelEvaluator& evaluator, SearchMeasurePlan plan = {});

    std::vector<eval::EvalResult> evaluate(const std::vector<Schedule>& schedules,
                                           const search::EvalRequest& request) override;
    int parallelism() const override;
    double noiseFloor() const override;
    eval::FigureKind sourceKind() const override;

private:
    eval::EvalOptions optionsFor(const search::EvalRequest& request) const;
    const eval::Candidate& referenceCandidate(const Schedule& reference);

    KernelEvaluator& m_evaluator;
    SearchMeasurePlan m_plan;
    Schedule m_referenceSchedule; // the last reference, and its candidate
    std::optional<eval::Candidate> m_reference;
};

} // namespace sassx
