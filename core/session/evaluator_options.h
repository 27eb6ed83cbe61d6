#pragma once
// How figures are obtained for a kernel: the one options struct behind the GUI's Measure, `sassx-cli
// bench` and searches, and the one place that turns it into an evaluator (docs/evaluator.md).
#include "core/common/result.h"
#include "core/eval/backend.h"
#include "core/eval/evaluator.h"
#include "core/eval/metrics_backend.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sassx {

struct EvaluatorOptions
{
    // Auto: the GPU worker pool when a worker starts and finds a usable GPU, else the labelled
    // estimate; Gpu: the pool or an error; Estimate: the static model only.
    eval::Backend backend = eval::Backend::Auto;
    std::vector<int> gpus;    // empty: GPU 0
    std::string workerPath;   // empty: eval::defaultWorkerPath()
    int inputSets = 3;        // fresh input sets every candidate is checked on
    uint64_t seed = 20261121; // input generation (the worker protocol's default)
    bool l2Flush = false;     // flush L2 between timed launches
    eval::MetricsBackend metricsBackend = eval::MetricsBackend::Auto;
};

// Checks the options themselves (GPU ordinals, input sets); the error is one line.
Status validate(const EvaluatorOptions& options);

struct EvaluatorChoice
{
    std::shared_ptr<eval::Evaluator> evaluator;
    eval::Backend backend = eval::Backend::Estimate; // Gpu or Estimate: what was picked
    std::string reason; // why, in words ("no sassx-worker found", "GPU pool on 2 GPU(s)", …)
};

// Builds the evaluator the options ask for. Starting GPU workers takes seconds: call it off the UI thread.
Result<EvaluatorChoice> makeEvaluator(const EvaluatorOptions& options);

} // namespace sassx
