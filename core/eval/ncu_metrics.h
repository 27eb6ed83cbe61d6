#pragma once
// Hardware metrics through Nsight Compute's command line (`ncu --csv`), the fallback this release
// uses instead of the CUPTI range profiler (docs/evaluator.md says why). The worker writes the spec
// and cubin to a temporary folder and runs itself as a one-kernel runner under ncu; figures are
// labelled "ncu".
#include "core/common/result.h"
#include "core/eval/eval_result.h"
#include "core/eval/launch_spec.h"

#include <chrono>
#include <string>
#include <vector>

namespace sassx::eval {

// ncu on PATH, $SASSX_NCU, /usr/local/cuda/bin/ncu or /opt/nvidia/nsight-compute/*/ncu; empty if none.
std::string findNcu();

// The metric names in resources/metrics/nsight.json (or a built-in copy of that list if the file
// cannot be read).
std::vector<std::string> defaultMetrics();

// Parses `ncu --csv --print-units base` output: one value per metric of the first profiled kernel.
Result<std::vector<MetricValue>> parseNcuCsv(const std::string& csv, const FigureSource& source);

struct NcuRequest
{
    std::string ncu;    // path of ncu
    std::string runner; // this worker's executable (run with --oneshot)
    LaunchSpec spec;
    std::vector<uint8_t> cubin;
    uint64_t seed = 0;
    std::vector<std::string> metrics;
    std::string device; // for the figures' source
    std::chrono::milliseconds timeout{120000};
};

Result<std::vector<MetricValue>> collectWithNcu(const NcuRequest& request);

} // namespace sassx::eval
