#include "core/session/search_evaluator.h"

#include <chrono>

namespace sassx {

SearchEvaluator::SearchEvaluator(KernelEvaluator& evaluator, SearchMeasurePlan plan)
    : m_evaluator(evaluator), m_plan(plan)
{
}

int SearchEvaluator::parallelism() const
{
    return m_evaluator.choice().evaluator ? m_evaluator.choice().evaluator->parallelism() : 1;
}

double SearchEvaluator::noiseFloor() const
{
    const auto* b = m_evaluator.baseline();
    return b ? b->noiseFloor : 0.0;
}

eval::FigureKind SearchEvaluator::sourceKind() const
{
    // Without an evaluator nothing is measured: figures read as the estimate's.
    return m_evaluator.choice().evaluator ? m_evaluator.choice().evaluator->sourceKind()
                                          : eval::FigureKind::Estimate;
}

eval::EvalOptions SearchEvaluator::optionsFor(const search::EvalRequest& request) const
{
    eval::EvalOptions o;
    o.plan.screenRounds = m_plan.screenRounds;
    o.plan.confirmRounds = m_plan.confirmRounds;
    o.plan.incumbentRatio = request.incumbentRatio;
    if (request.raceSpeedup > 1.0) {
        o.race.bar = 1.0 / request.raceSpeedup;
        o.race.firstRounds = m_plan.raceFirstRounds;
        o.race.stageRounds = m_plan.raceStageRounds;
        o.race.maxScreenRounds = m_plan.raceMaxScreenRounds;
        o.race.confirmRounds = m_plan.raceConfirmRounds;
        o.race.confirmStage = m_plan.raceConfirmStage;
    } else if (request.reference && !request.full) {
        // A paired screen (annealing decides on its median): no confirmation.
        o.plan.screenRounds = m_plan.pairedRounds;
        o.plan.confirmRounds = 0;
    }
    if (request.full) {
        // Every round fresh and all of them: the figure a report or the incumbent stands on.
        o.plan.confirmRounds = m_plan.fullRounds;
        o.plan.incumbentRatio = 1e9;
        o.plan.confirmStage = 0;
        if (request.report) o.plan.processes = m_plan.fullProcesses;
    }
    return o;
}

std::vector<eval::EvalResult> SearchEvaluator::evaluate(const std::vector<Schedule>& schedules,
                                                        const search::EvalRequest& request)
{
    if (Status s = m_evaluator.prepare(); !s) {
        std::vector<eval::EvalResult> out(schedules.size());
        for (auto& r : out)
            r = eval::failedResult(eval::failure::kError, s.message());
        return out;
    }
    eval::EvalOptions options = optionsFor(request);
    if (request.reference) options.reference = referenceCandidate(*request.reference);
    std::vector<eval::Candidate> candidates;
    candidates.reserve(schedules.size());
    for (const Schedule& s : schedules)
        candidates.push_back(m_evaluator.candidate(s));
    const auto t0 = std::chrono::steady_clock::now();
    auto out = m_evaluator.choice().evaluator->evaluateBatch(candidates, options);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.resize(schedules.size(), eval::failedResult(eval::failure::kError, "no answer from the evaluator"));
    for (auto& r : out) {
        if (!r.source.kind) r.source.kind = sourceKind();
        if (r.wallMs == 0.0) r.wallMs = ms / double(schedules.size());
    }
    return out;
}

const eval::Candidate& SearchEvaluator::referenceCandidate(const Schedule& reference)
{
    // One candidate per incumbent: the GPU backend writes its cubin once, however many evaluations
    // it is the reference of.
    if (!(m_reference && reference.order == m_referenceSchedule.order &&
          reference.control == m_referenceSchedule.control)) {
        m_referenceSchedule = reference;
        m_reference = m_evaluator.candidate(reference);
    }
    return *m_reference;
}

} // namespace sassx
