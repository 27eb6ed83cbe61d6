#pragma once
// Where the worker's `metrics` figures come from. CUPTI (the range profiler, in a child
// `sassx-worker --cupti-oneshot`) is the default; Nsight Compute's CLI is the fallback when CUPTI is
// missing or refuses (and can be asked for by name). Every figure carries its backend as its source
// kind: FigureKind::Cupti or FigureKind::Ncu.
#include "core/common/result.h"
#include "core/eval/eval_result.h"
#include "core/eval/launch_spec.h"
#include "core/eval/metrics_backend.h"
#include "core/eval/stall_profile.h"

#include <chrono>
#include <string>
#include <vector>

namespace sassx::eval {

struct MetricsRequest
{
    MetricsBackend backend = MetricsBackend::Auto;
    std::string runner; // the worker executable, run as the one-launch runner
    LaunchSpec spec;
    std::vector<uint8_t> cubin;
    uint64_t seed = 0;
    std::vector<std::string> metrics; // empty: resources/metrics/nsight.json
    std::string device;               // for the figures' source
    std::chrono::milliseconds timeout{120000};
};

struct MetricsReport
{
    std::vector<MetricValue> values;
    MetricsBackend backend = MetricsBackend::Cupti; // Cupti or Ncu: what produced the values
    std::string fallback;                           // why CUPTI was not used, when auto fell back to ncu
    int passes = 0;                                 // CUPTI replay passes (0 for ncu)
};

Result<MetricsReport> collectMetrics(const MetricsRequest& request);

// The source kind of the figures a backend produced (Cupti or Ncu).
FigureKind figureKindOf(MetricsBackend producedBy);

// The one-launch runner's stdout (one JSON object) turned into figures labelled `source`.
Result<MetricsReport> parseCuptiOneshot(const std::string& stdoutText, const FigureSource& source);

// Stall samples of one launch, from the sampling child `sassx-worker --pcsample-oneshot` (a process of
// its own: one profiler per process, and a fault during sampling only kills the child). The request's
// `metrics` and `backend` are unused. `periodExponent` 0 = chosen from the kernel's duration.
// `*faulted` is set when the child died of a sticky CUDA error (exit 3).
Result<StallProfile> collectStallProfile(const MetricsRequest& request, int periodExponent,
                                         bool* faulted = nullptr);

// Unit spellings as `ncu --print-units base` prints them, so both backends' figures read alike.
std::string normalizeMetricUnit(const std::string& unit);

} // namespace sassx::eval
