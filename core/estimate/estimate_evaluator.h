#pragma once
// The estimate backend (no GPU): a static schedule model over the kernel's hot code (per-class
// latencies from resources/estimate/, scoreboard waits, memory-pipe throughput; schedule_model.h)
// returning estimated cycles, every figure labelled source "estimate". Same Evaluator interface as
// GpuEvaluator; a candidate made from a schedule is estimated from the schedule directly (no cubin
// writing, no nvdisasm), which is what makes searches on the estimate fast.
//
// Correctness cannot be known without running. A result that parsed, matches the spec's parameters
// and is the same kernel has correct = true in the sense "not refuted" only: failure then says
// "unverified: ..." and every caller that prints it (sassx-cli bench) must show "unverified",
// never "correct".
#include "core/estimate/schedule_model.h"
#include "core/eval/evaluator.h"

#include <memory>
#include <optional>

namespace sassx {
struct KernelAnalysis;
}

namespace sassx::eval {

inline constexpr const char* kUnverified =
    "unverified: the estimate backend runs nothing, so the candidate's output was not checked";

class EstimateEvaluator : public Evaluator
{
public:
    EstimateEvaluator();                            // model parameters from resources/ per arch
    explicit EstimateEvaluator(ModelParams params); // fixed parameters (tests, experiments)
    ~EstimateEvaluator() override;

    Status setBaseline(const LaunchSpec& spec, const std::vector<uint8_t>& cubin) override;
    const BaselineInfo& baseline() const override { return m_baseline; }
    // timing.ratio is the ratio of estimated cycles (candidate / baseline, or candidate / reference
    // when options.reference is not the original: then paired, and a race is decided at once); its
    // interval collapses to that point (rounds = 0) and the noise floor is 0: the model is
    // deterministic.
    EvalResult evaluate(const Candidate& candidate, const EvalOptions& options = {}) override;
    // Candidates made from schedules are estimated on several threads (a PPO run's environments, a
    // batch of proposals), each exactly as evaluate() would: the results do not depend on the threads.
    std::vector<EvalResult> evaluateBatch(const std::vector<Candidate>& candidates,
                                          const EvalOptions& options = {}) override;
    // Figures named estimate__cycles, estimate__duration_us, estimate__warps_per_smsp,
    // estimate__blocks_per_sm, estimate__waves (all source "estimate"); Nsight Compute names are
    // refused: the model has no hardware counters.
    Result<std::vector<MetricValue>> metrics(const Candidate& candidate,
                                             const std::vector<std::string>& names = {}) override;
    FigureKind sourceKind() const override { return FigureKind::Estimate; }

    // The model itself, for callers that hold an analysis (search) or a cubin (tools).
    Result<Estimate> estimate(const KernelAnalysis& analysis, const Schedule& schedule) const;
    Result<Estimate> estimateCubin(const std::vector<uint8_t>& cubin) const;
    const KernelAnalysis* baselineAnalysis() const { return m_analysis.get(); }
    const Estimate& baselineEstimate() const { return m_baselineEstimate; }
    const ModelParams* params() const { return m_params ? &*m_params : nullptr; }
    FigureSource figureSource() const;

private:
    Result<Estimate> estimateOf(const Candidate& candidate) const;
    // candidate / baseline of the reference, kept for the last reference schedule (a search's
    // incumbent is the reference of many evaluations in a row).
    Result<double> referenceRatio(const Candidate& reference);
    Result<std::shared_ptr<const KernelAnalysis>> analyse(const std::vector<uint8_t>& cubin,
                                                          LaunchShape* shape) const;
    EvalResult resultFor(const Result<Estimate>& e) const;
    // A candidate's result against the reference's ratio (1: the original), as evaluate() gives it.
    EvalResult pairedResult(const Candidate& candidate, double reference, const EvalOptions& options) const;

    BaselineInfo m_baseline;
    LaunchSpec m_spec;
    bool m_hasBaseline = false;
    std::optional<ModelParams> m_params;
    bool m_fixedParams = false;
    LaunchShape m_shape;
    std::shared_ptr<const KernelAnalysis> m_analysis;
    Estimate m_baselineEstimate;
    std::optional<Schedule> m_referenceSchedule;
    double m_referenceRatio = 0.0;
};

} // namespace sassx::eval
