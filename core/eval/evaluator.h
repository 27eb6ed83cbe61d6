#pragma once
// The evaluator interface: every figure sassx shows about a candidate comes through one of these.
// GpuEvaluator measures on GPUs through worker processes; EstimateEvaluator (core/estimate) predicts
// with a static schedule model and labels everything "estimate". Callers hand either one a Candidate
// and never know which one they hold.
#include "core/common/result.h"
#include "core/eval/candidate.h"
#include "core/eval/eval_result.h"
#include "core/eval/launch_spec.h"
#include "core/eval/race.h"
#include "core/eval/stall_profile.h"
#include "core/eval/timing_stats.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sassx::eval {

struct EvalOptions
{
    AdaptivePlan plan;
    bool checkOnly = false; // correctness only
    // Enabled: the candidate is raced against the reference (race.h) instead of timed by `plan`.
    RacePlan race;
    // Paired against this candidate (a search's incumbent) instead of timed against the baseline: the
    // figures are candidate / reference. The original may be the reference (a search that has not
    // moved yet). Correctness is always judged against the baseline's outputs.
    std::optional<Candidate> reference;
};

// What the evaluator learned about the original when it was set.
struct BaselineInfo
{
    FigureSource source;
    double medianUs = 0.0;   // per launch
    double noiseFloor = 0.0; // ratio units (0.004 = 0.4%)
    LaunchMode launchMode = LaunchMode::Events;
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

    // A candidate that cannot be written (or run) is a failed result, never an exception.
    virtual EvalResult evaluate(const Candidate& candidate, const EvalOptions& options = {}) = 0;
    // Backends that can work in parallel (several GPUs) override this.
    virtual std::vector<EvalResult> evaluateBatch(const std::vector<Candidate>& candidates,
                                                  const EvalOptions& options = {})
    {
        std::vector<EvalResult> out;
        out.reserve(candidates.size());
        for (const auto& c : candidates)
            out.push_back(evaluate(c, options));
        return out;
    }

    // How many candidates a batch measures at once (GPUs in the pool); callers batch that many.
    virtual int parallelism() const { return 1; }

    // Hardware metrics (Nsight Compute names) of a candidate (`{}`: the original). Names empty:
    // resources/metrics/nsight.json.
    virtual Result<std::vector<MetricValue>> metrics(const Candidate& candidate,
                                                     const std::vector<std::string>& names = {}) = 0;

    // Warp-stall samples of one launch of a candidate (`{}`: the original), per instruction offset
    // (stall_profile.h). Only a GPU backend has them; `periodExponent` 0 = automatic.
    virtual Result<StallProfile> stalls(const Candidate& candidate, int periodExponent = 0)
    {
        (void)candidate;
        (void)periodExponent;
        return makeError("no stall samples without a GPU: the " + std::string(figureKindName(sourceKind())) +
                         " backend does not run the kernel (sampling needs the GPU backend)");
    }
    // Measured or Estimate: what every timing figure of this backend is labelled.
    virtual FigureKind sourceKind() const = 0;
};

} // namespace sassx::eval
