#pragma once
// The evaluator interface: every figure sassx shows about a candidate comes through one of these.
// GpuEvaluator measures on GPUs through worker processes; EstimateEvaluator predicts with a static
// schedule model and labels everything "estimate". Callers never know which one they hold.
#include "core/common/result.h"
#include "core/eval/eval_result.h"
#include "core/eval/launch_spec.h"
#include "core/eval/race.h"
#include "core/eval/stall_profile.h"
#include "core/eval/timing_stats.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx::eval {

struct EvalOptions
{
    AdaptivePlan plan;
    bool checkOnly = false; // correctness only
    // Enabled: the candidate is raced against the reference (race.h) instead of timed by `plan`.
    RacePlan race;
    // Timed against these bytes (a search's incumbent) instead of the baseline; empty: the baseline.
    // Correctness is always judged against the baseline's outputs. The estimate backend ignores it (its
    // caller divides two estimates).
    std::vector<uint8_t> reference;
};

// What the evaluator learned about the original when it was set.
struct BaselineInfo
{
    FigureSource source;
    double medianUs = 0.0;   // per launch
    double noiseFloor = 0.0; // ratio units (0.004 = 0.4%)
    std::string launchMode;
    int launchesPerSample = 1;
    nlohmann::json raw; // the backend's full answer, for reports
};

class Evaluator
{
public:
    virtual ~Evaluator() = default;

    // The original every candidate is compared with. Checks the spec against the cubin's
    // KPARAM_INFO first; the error names the mismatching parameter.
    virtual Status setBaseline(const LaunchSpec& spec, const std::vector<uint8_t>& cubin) = 0;
    virtual const BaselineInfo& baseline() const = 0;

    virtual EvalResult evaluate(const std::vector<uint8_t>& candidate, const EvalOptions& options = {}) = 0;
    // Backends that can work in parallel (several GPUs) override this.
    virtual std::vector<EvalResult> evaluateBatch(const std::vector<std::vector<uint8_t>>& candidates,
                                                  const EvalOptions& options = {})
    {
        std::vector<EvalResult> out;
        out.reserve(candidates.size());
        for (const auto& c : candidates)
            out.push_back(evaluate(c, options));
        return out;
    }

    // Hardware metrics (Nsight Compute names) of a candidate, or of the baseline when `candidate`
    // is empty. Names empty: resources/metrics/nsight.json.
    virtual Result<std::vector<MetricValue>> metrics(const std::vector<uint8_t>& candidate,
                                                     const std::vector<std::string>& names = {}) = 0;

    // Warp-stall samples of one launch of a candidate (the baseline when empty), per instruction
    // offset (stall_profile.h). Only a GPU backend has them; `periodExponent` 0 = automatic.
    virtual Result<StallProfile> stalls(const std::vector<uint8_t>& candidate, int periodExponent = 0)
    {
        (void)candidate;
        (void)periodExponent;
        return makeError("no stall samples without a GPU: the " + sourceKind() +
                         " backend does not run the kernel (sampling needs the GPU backend)");
    }
    // "measured" or "estimate": what every figure of this backend is labelled.
    virtual std::string sourceKind() const = 0;
};

} // namespace sassx::eval
