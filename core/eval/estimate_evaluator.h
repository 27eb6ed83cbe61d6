#pragma once
// The estimate backend (no GPU): a static schedule model over the kernel's hot blocks (per-class
// latencies from resources/, scoreboard waits, memory-pipe throughput) returning estimated cycles,
// every figure labelled "estimate". Declared here with the Evaluator interface so that callers can
// be written against it; the model itself builds on core/sass + core/analysis and is NOT
// implemented in this release (docs/evaluator.md, "Estimate backend"): there is no definition of
// these members yet, so nothing may construct one until it lands.
#include "core/eval/evaluator.h"

namespace sassx::eval {

class EstimateEvaluator : public Evaluator
{
public:
    EstimateEvaluator();
    ~EstimateEvaluator() override;

    Status setBaseline(const LaunchSpec& spec, const std::vector<uint8_t>& cubin) override;
    const BaselineInfo& baseline() const override { return m_baseline; }
    // Correctness cannot be known without running: results carry correct=true only for "the cubin
    // parses and its parameters match", with failure set otherwise; timing.ratio is the ratio of
    // estimated cycles and the interval collapses to that point.
    EvalResult evaluate(const std::vector<uint8_t>& candidate, const EvalOptions& options = {}) override;
    Result<std::vector<MetricValue>> metrics(const std::vector<uint8_t>& candidate,
                                             const std::vector<std::string>& names = {}) override;
    std::string sourceKind() const override { return "estimate"; }

private:
    BaselineInfo m_baseline;
    LaunchSpec m_spec;
    std::vector<uint8_t> m_baselineCubin;
    double m_baselineCycles = 0.0;
};

} // namespace sassx::eval
