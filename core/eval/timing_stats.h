#pragma once
// Statistics of interleaved timing rounds. A round times the baseline (A) and the candidate (B)
// back to back, so clock ramps and thermal drift hit both; we compare per-round ratios B/A rather
// than two separate medians (docs/sass-facts.md §9: the first variant measured ran ~3% slow from clock ramp).
#include "core/eval/launch_mode.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sassx::eval {

double median(std::vector<double> v);

struct RatioInterval
{
    double median = 1.0; // median of the per-round ratios candidate/baseline (< 1: candidate faster)
    double low = 1.0;    // 95% bootstrap percentile interval of that median
    double high = 1.0;
    int rounds = 0;
    // Freshly loaded instance pairs the rounds were spread over; from 2 on, `median` is the geometric
    // mean of the per-instance medians and the interval is over instances (instancesInterval).
    int instances = 1;
};

// Median of the per-round ratios b[i]/a[i] with a percentile bootstrap interval (`resamples` draws,
// deterministic for a given seed so that the same rounds always give the same interval).
RatioInterval ratioInterval(const std::vector<double>& a, const std::vector<double>& b, int resamples = 2000,
                            uint64_t seed = 0x5eed);

// The interval a re-run falls in. Where a module, its baseline and their buffers land moves a kernel's
// time by a few hundredths to tenths of a percent for as long as they stay loaded, so rounds in one
// process share an offset that no number of rounds averages out: a bootstrap over them is narrower
// than the spread between processes (docs/status.md, "Final figures over 5 fresh processes"). This combines
// the medians of K independent units (fresh processes, or instance pairs): the centre is their
// geometric mean; the half-width is Student's t (K - 1 degrees of freedom) times their standard
// deviation in log space times sqrt(2 / K): the 95% prediction interval for the same figure measured
// again on K new units, which is what a reader checks by re-running (a confidence interval for the
// mean, sqrt(1 / K), covers only ~85% of such re-runs). Never narrower than the pooled rounds'
// bootstrap interval (three units can agree by chance).
RatioInterval instancesInterval(const std::vector<RatioInterval>& perInstance, const RatioInterval& pooled);
double studentT975(int degreesOfFreedom);

// Noise floor from baseline-against-baseline rounds: how far from 1.0 two identical kernels appear,
// max(|median - 1|, half the interval's width). A candidate must clear it to count as a change.
double noiseFloor(const RatioInterval& selfInterval);

enum class Verdict
{
    Faster,
    Slower,
    Same, // indistinguishable from the baseline at this noise level
};
std::string verdictName(Verdict v);

// The "faster" rule: the whole 95% interval lies below 1 and the median gain exceeds the noise floor.
// "Slower" mirrors it; anything else is "same".
Verdict decide(const RatioInterval& r, double noiseFloor);

// Adaptive measurement: every candidate gets `screenRounds`; only one whose screen median beats
// `incumbentRatio` (the best so far) gets `confirmRounds` fresh rounds, and then its figures come
// from those fresh rounds alone: selecting on the screen and estimating on new data is what keeps
// the winner's curse out of reported gains. (Promoting on "interval reaches below the incumbent"
// promoted every neutral candidate and cut throughput by 40%: docs/status.md, "Noise floor from
// identical twins".)
//
// Confirmation runs in stages of `confirmStage` fresh rounds. From `futilityAfter` rounds on, it
// stops early when even the optimistic end of the interval cannot beat the incumbent or clear the
// noise floor (low >= min(incumbent, 1 - floor)). At that point the candidate either cannot be
// called "faster" (its median is above its low end) or cannot replace the incumbent, so stopping
// only forgoes rounds that would have to reverse the evidence; it never adds a false "faster", and
// the figures still come from fresh rounds alone. Most neutral candidates stop at `futilityAfter`
// instead of `confirmRounds`.
struct AdaptivePlan
{
    int screenRounds = 10;
    int confirmRounds = 50;
    double incumbentRatio = 1.0;
    int confirmStage = 10;  // 0: all confirmRounds at once
    int futilityAfter = 10; // fresh rounds before the first futility check
    // From 2 on: the confirmation rounds are split evenly over this many fresh instance pairs
    // (candidate and baseline both reloaded) in one worker, and the interval is over them
    // (instancesInterval). Takes the place of confirmStage.
    int instances = 1;
    // From 2 on (a final figure: bench, a search's best, headroom): the evaluator spreads the
    // confirmation rounds over this many freshly started worker processes (new context, buffers and
    // module placement each) and the interval is over processes (instancesInterval). Not sent to a
    // worker: the pool does it (GpuEvaluator).
    int processes = 1;
    bool shouldConfirm(const RatioInterval& screen) const
    {
        return confirmRounds > 0 && screen.median < incumbentRatio;
    }
    bool futile(const RatioInterval& fresh, double noiseFloor) const
    {
        return confirmStage > 0 && fresh.rounds >= futilityAfter && fresh.rounds < confirmRounds &&
               fresh.low >= std::min(incumbentRatio, 1.0 - noiseFloor);
    }
};

struct TimingFigures
{
    RatioInterval ratio;
    double baselineMedianUs = 0.0;
    double candidateMedianUs = 0.0;
    double noiseFloor = 0.0;
    Verdict verdict = Verdict::Same;
    bool confirmed = false;    // figures come from fresh confirmation rounds
    int screenRounds = 0;      // rounds spent screening (not in `ratio` when confirmed)
    bool stoppedEarly = false; // confirmation stopped for futility before confirmRounds
    LaunchMode launchMode = LaunchMode::Events;
    int launchesPerSample = 1;
    bool l2Flush = false;
    // Against a reference other than the baseline (a search's incumbent): `ratio` is
    // candidate / reference, and baselineMedianUs is the reference's.
    bool paired = false;
    std::string race; // race.h's outcome ("dropped", "rejected", "won"); empty when not raced
};

nlohmann::json toJson(const TimingFigures& t);
std::optional<TimingFigures> timingFromJson(const nlohmann::json& j);

} // namespace sassx::eval
