#include "core/session/evaluator_options.h"

#include "core/estimate/estimate_evaluator.h"
#include "core/eval/gpu_evaluator.h"

namespace sassx {

Status validate(const EvaluatorOptions& o)
{
    for (int g : o.gpus)
        if (g < 0) return makeError("GPU ordinals are >= 0 (got " + std::to_string(g) + ")");
    if (o.inputSets < 1) return makeError("input sets must be >= 1");
    return Ok{};
}

namespace {

EvaluatorChoice estimateChoice(std::string reason)
{
    return {std::make_shared<eval::EstimateEvaluator>(), eval::Backend::Estimate, std::move(reason)};
}

} // namespace

Result<EvaluatorChoice> makeEvaluator(const EvaluatorOptions& options)
{
    if (Status s = validate(options); !s) return s.error();
    if (options.backend == eval::Backend::Estimate)
        return estimateChoice("the estimate backend was asked for");
    eval::GpuEvaluatorOptions g;
    if (!options.gpus.empty()) g.pool.gpus = options.gpus;
    g.pool.workerPath = options.workerPath.empty() ? eval::defaultWorkerPath() : options.workerPath;
    g.baseline.inputSets = options.inputSets;
    g.baseline.seed = options.seed;
    g.baseline.l2Flush = options.l2Flush;
    g.metricsBackend = options.metricsBackend;
    if (g.pool.workerPath.empty()) {
        if (options.backend == eval::Backend::Gpu)
            return makeError("no sassx-worker found (set SASSX_WORKER or install it beside sassx-cli)");
        return estimateChoice("no GPU: no sassx-worker found");
    }
    // The workers themselves find out whether a driver and a device are usable: the GUI and CLI never
    // load libcuda in-process.
    auto gpu = eval::GpuEvaluator::create(std::move(g));
    if (!gpu) {
        if (options.backend == eval::Backend::Gpu) return gpu.error();
        return estimateChoice("no GPU: " + gpu.message());
    }
    const size_t n = options.gpus.empty() ? 1 : options.gpus.size();
    return EvaluatorChoice{std::shared_ptr<eval::Evaluator>(std::move(*gpu)), eval::Backend::Gpu,
                           "GPU worker pool on " + std::to_string(n) + " GPU(s)"};
}

} // namespace sassx
