#include "core/session/search_evaluator.h"

#include <chrono>

namespace sassx {

SearchEvaluator::SearchEvaluator(KernelEvaluator& evaluator, SearchMeasurePlan plan)
    : m_evaluator(evaluator), m_plan(plan)
{
}

int SearchEvaluator::parallelism() const
{
    // The estimate is deterministic and instantaneous: batching it would only change which proposals a
    // seed draws, so it stays at one.
    return m_evaluator.choice().backend == "gpu" ? std::max(1, m_evaluator.choice().parallelism) : 1;
}

double SearchEvaluator::noiseFloor() const
{
    const auto* b = m_evaluator.baseline();
    return b ? b->noiseFloor : 0.0;
}

std::string SearchEvaluator::sourceKind() const
{
    return m_evaluator.choice().evaluator ? m_evaluator.choice().evaluator->sourceKind() : std::string();
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
    std::vector<eval::EvalResult> out(schedules.size());
    if (Status s = m_evaluator.prepare(); !s) {
        for (auto& r : out)
            r = eval::failedResult(eval::failure::kError, s.message());
        return out;
    }
    eval::EvalOptions options = optionsFor(request);
    if (m_evaluator.choice().backend != "gpu") return evaluateEstimate(schedules, request, options);
    if (request.reference && !request.reference->isIdentity(m_evaluator.kernel().analysis())) {
        auto ref = referenceBytes(*request.reference);
        if (!ref) {
            for (auto& r : out)
                r = eval::failedResult(eval::failure::kError,
                                       "the reference cannot be written: " + ref.message());
            return out;
        }
        options.reference = *ref;
    }
    // Write every cubin first, then one batch across the pool.
    std::vector<std::vector<uint8_t>> cubins;
    std::vector<size_t> slot;
    for (size_t i = 0; i < schedules.size(); ++i) {
        const bool original = schedules[i].isIdentity(m_evaluator.kernel().analysis());
        auto bytes = original ? Result<std::vector<uint8_t>>(m_evaluator.kernel().cubin().bytes())
                              : m_evaluator.kernel().write(schedules[i]);
        if (!bytes) {
            out[i] = eval::failedResult(eval::failure::kError,
                                        "the writer refused the schedule: " + bytes.message());
            continue;
        }
        cubins.push_back(std::move(*bytes));
        slot.push_back(i);
    }
    if (cubins.empty()) return out;
    const auto t0 = std::chrono::steady_clock::now();
    auto results = m_evaluator.choice().evaluator->evaluateBatch(cubins, options);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (size_t k = 0; k < slot.size(); ++k) {
        out[slot[k]] = k < results.size()
                           ? std::move(results[k])
                           : eval::failedResult(eval::failure::kError, "no answer from the pool");
        if (out[slot[k]].source.kind.empty()) out[slot[k]].source.kind = sourceKind();
        if (out[slot[k]].wallMs == 0.0) out[slot[k]].wallMs = ms / double(slot.size());
    }
    return out;
}

Result<std::vector<uint8_t>> SearchEvaluator::referenceBytes(const Schedule& reference)
{
    if (m_referenceValid && !m_referenceBytes.empty() && reference.order == m_referenceSchedule.order &&
        reference.control == m_referenceSchedule.control)
        return m_referenceBytes;
    auto bytes = m_evaluator.kernel().write(reference);
    if (!bytes) return bytes.error();
    m_referenceSchedule = reference;
    m_referenceBytes = std::move(*bytes);
    m_referenceEstimate.reset();
    m_referenceValid = true;
    return m_referenceBytes;
}

Result<eval::EvalResult> SearchEvaluator::referenceEstimate(const Schedule& reference)
{
    if (!(m_referenceValid && m_referenceEstimate && reference.order == m_referenceSchedule.order &&
          reference.control == m_referenceSchedule.control)) {
        auto r = m_evaluator.measure(reference, MeasureOptions{});
        if (!r) return r.error();
        m_referenceSchedule = reference;
        m_referenceBytes.clear();
        m_referenceEstimate = std::move(*r);
        m_referenceValid = true;
    }
    return *m_referenceEstimate;
}

std::vector<eval::EvalResult> SearchEvaluator::evaluateEstimate(const std::vector<Schedule>& schedules,
                                                                const search::EvalRequest& request,
                                                                const eval::EvalOptions& options)
{
    std::vector<eval::EvalResult> out(schedules.size());
    MeasureOptions mo;
    mo.eval = options;
    std::optional<eval::EvalResult> ref;
    if (request.reference) {
        auto r = referenceEstimate(*request.reference);
        if (!r || !r->timing) {
            const std::string why = r ? "the reference has no estimate" : r.message();
            for (auto& o : out)
                o = eval::failedResult(eval::failure::kError, why);
            return out;
        }
        ref = std::move(*r);
    }
    for (size_t i = 0; i < schedules.size(); ++i) {
        auto r = m_evaluator.measure(schedules[i], mo);
        out[i] = r ? std::move(*r) : eval::failedResult(eval::failure::kError, r.message());
        if (!ref || !out[i].timing) continue;
        // Deterministic: candidate / reference is the quotient of the two estimates, decided at once.
        eval::TimingFigures& t = *out[i].timing;
        const double q = ref->timing->ratio.median > 0 ? t.ratio.median / ref->timing->ratio.median : 0.0;
        t.ratio.median = t.ratio.low = t.ratio.high = q;
        t.paired = true;
        if (options.race.enabled()) t.race = q < options.race.bar ? "won" : "dropped";
    }
    return out;
}

} // namespace sassx
