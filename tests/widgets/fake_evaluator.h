#pragma once
// A test double for eval::Evaluator: answers instantly with fixed, recognisable figures labelled
// "estimate", so a test can tell exactly which figures reached which view (the real estimate backend's
// numbers depend on the model). Test-only: its numbers never reach a user.
#include "core/eval/evaluator.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace sassx::test {

class FakeEvaluator : public eval::Evaluator
{
public:
    Status setBaseline(const eval::LaunchSpec&, const std::vector<uint8_t>& cubin) override
    {
        m_baseline.source = {"model", sassx::eval::FigureKind::Estimate};
        m_baseline.medianUs = 100.0;
        baselineCalls++;
        return Ok{};
    }
    const eval::BaselineInfo& baseline() const override { return m_baseline; }
    eval::EvalResult evaluate(const eval::Candidate&, const eval::EvalOptions& = {}) override
    {
        evaluateCalls++;
        if (delayMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        eval::EvalResult r;
        r.correct = true;
        r.source = {"model", sassx::eval::FigureKind::Estimate};
        eval::TimingFigures t;
        t.ratio.median = ratio;
        t.ratio.low = ratio;
        t.ratio.high = ratio;
        t.baselineMedianUs = 100.0;
        t.candidateMedianUs = 100.0 * ratio;
        r.timing = t;
        return r;
    }
    Result<std::vector<eval::MetricValue>> metrics(const eval::Candidate&,
                                                   const std::vector<std::string>& = {}) override
    {
        return std::vector<eval::MetricValue>{
            {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
             61.5,
             "%",
             {"model", sassx::eval::FigureKind::Estimate}},
            {"lts__throughput.avg.pct_of_peak_sustained_elapsed",
             48.0,
             "%",
             {"model", sassx::eval::FigureKind::Estimate}},
            {"lts__t_sector_hit_rate.pct", 72.0, "%", {"model", sassx::eval::FigureKind::Estimate}},
        };
    }
    sassx::eval::FigureKind sourceKind() const override { return sassx::eval::FigureKind::Estimate; }

    double ratio = 0.8; // candidate/baseline: speedup 1.25×
    std::atomic<int> baselineCalls{0};
    std::atomic<int> evaluateCalls{0};
    int delayMs = 0; // a slow evaluator, for cancellation tests

private:
    eval::BaselineInfo m_baseline;
};

} // namespace sassx::test
