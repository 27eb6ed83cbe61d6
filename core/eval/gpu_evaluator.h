#pragma once
// The GPU backend: a WorkerPool of sassx-worker processes (one per GPU) doing the measuring.
#include "core/eval/evaluator.h"
#include "core/eval/protocol.h"
#include "core/eval/worker_pool.h"

#include <memory>

namespace sassx::eval {

struct GpuEvaluatorOptions
{
    WorkerPoolOptions pool; // workerPath empty: defaultWorkerPath()
    protocol::BaselineOptions baseline;
    // Parse each candidate and check its KPARAM_INFO before sending it to a worker. Off only in
    // tests that must exercise the worker's own checks.
    bool precheck = true;
    // Added to the expected GPU time of an evaluation to form its deadline (module load, copies).
    std::chrono::milliseconds timeoutSlack{5000};
    // Where metrics() figures come from (metrics_backend.h).
    MetricsBackend metricsBackend = MetricsBackend::Auto;
};

// $SASSX_WORKER, then sassx-worker beside the running executable, then the build tree's
// app/worker/, then PATH. Empty if none exists.
std::string defaultWorkerPath();

// Parses "0,1,3" into GPU ordinals; an error names the bad entry.
Result<std::vector<int>> parseGpuList(const std::string& list);

class GpuEvaluator : public Evaluator
{
public:
    // Starts the workers; fails when none can use a GPU (the error says why: no driver, no GPU).
    static Result<std::unique_ptr<GpuEvaluator>> create(GpuEvaluatorOptions options);

    Status setBaseline(const LaunchSpec& spec, const std::vector<uint8_t>& cubin) override;
    const BaselineInfo& baseline() const override { return m_baseline; }
    // Each candidate's cubin is written (when it is a schedule) on the calling thread, then the batch
    // goes across the pool, one candidate per GPU.
    EvalResult evaluate(const Candidate& candidate, const EvalOptions& options = {}) override;
    std::vector<EvalResult> evaluateBatch(const std::vector<Candidate>& candidates,
                                          const EvalOptions& options = {}) override;
    int parallelism() const override;
    Result<std::vector<MetricValue>> metrics(const Candidate& candidate,
                                             const std::vector<std::string>& names = {}) override;
    Result<StallProfile> stalls(const Candidate& candidate, int periodExponent = 0) override;
    FigureKind sourceKind() const override { return FigureKind::Measured; }

    WorkerPool& pool() { return *m_pool; }

private:
    explicit GpuEvaluator(GpuEvaluatorOptions options);
    std::chrono::milliseconds evaluateTimeout(const EvalOptions& options) const;
    // AdaptivePlan::processes: one measurement per freshly started worker process, combined.
    EvalResult evaluateAcrossProcesses(const Candidate& candidate, const EvalOptions& options);

    GpuEvaluatorOptions m_options;
    std::unique_ptr<WorkerPool> m_pool;
    LaunchSpec m_spec;
    std::vector<uint8_t> m_baselineCubin; // what Candidate::original() runs
    bool m_hasBaseline = false;
    BaselineInfo m_baseline;
};

} // namespace sassx::eval
