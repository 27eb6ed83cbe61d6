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
    if (request.full) {
        // Every round fresh and all of them: the figure a report or the incumbent stands on.
        o.plan.confirmRounds = m_plan.fullRounds;
        o.plan.incumbentRatio = 1e9;
        o.plan.confirmStage = 0;
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
    const eval::EvalOptions options = optionsFor(request);
    if (m_evaluator.choice().backend != "gpu") {
        MeasureOptions mo;
        mo.eval = options;
        for (size_t i = 0; i < schedules.size(); ++i) {
            auto r = m_evaluator.measure(schedules[i], mo);
            out[i] = r ? std::move(*r) : eval::failedResult(eval::failure::kError, r.message());
        }
        return out;
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

} // namespace sassx
