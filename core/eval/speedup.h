#pragma once
// A speed-up as a person reads it: baseline time / candidate time, > 1 = faster, with its 95% interval
// and the noise floor it must clear when it was measured, and whether the static estimate made it. Time
// ratios (candidate / baseline, < 1 = faster) are what the evaluator computes; they become a Speedup
// here and nowhere else, and every screen and report writes one through text(), so a figure reads the
// same in a variant's name, the variants panel, the search panel, the status bar and the CLI.
//
// The estimate ranks candidates and is never a claim of speed (docs/evaluator.md), so wherever its figure
// is shown it says "est." beside its number: a source column or a legend may be cut off or absent.
#include "core/eval/eval_result.h"
#include "core/eval/timing_stats.h"

#include <optional>
#include <string>

namespace sassx::eval {

struct SpeedupInterval
{
    double low = 0.0;
    double high = 0.0;
};

struct Speedup
{
    double value = 1.0;                      // > 1 = faster
    std::optional<SpeedupInterval> interval; // 95%; none for a deterministic figure
    double noiseFloor = 0.0;                 // in time-ratio units (0.003 = 0.3%); 0: none known
    bool estimate = false;                   // made by the static estimate, not measured

    // 1 / ratio; 0 for a ratio that is not positive (no figure).
    static double fromTimeRatio(double ratio);
    // A timed comparison's ratio interval as a speed-up: the interval's ends swap (a lower time ratio is
    // a higher speed-up). No interval when no rounds were timed.
    static Speedup fromRatio(const RatioInterval& ratio, double noiseFloor, bool estimate);
    static Speedup fromTiming(const TimingFigures& timing, bool estimate);

    // Measured, with a noise floor, and its gain (or loss) no larger than that floor: what this
    // measurement cannot tell from no change.
    bool belowNoiseFloor() const;

    // "1.0556×", "1.0556× est."; `decimals` places after the point.
    std::string text(int decimals = 4) const;
    // "[1.0100, 1.0200]"; empty without an interval.
    std::string intervalText(int decimals = 4) const;
    // text(), then the interval, then ", below the noise floor" when belowNoiseFloor():
    // "1.0012× [0.9990, 1.0034], below the noise floor".
    std::string fullText(int decimals = 4) const;
};

// The speed-up of an evaluated candidate: none without timing figures or a positive ratio. An estimate's
// figure carries no interval: the model gives one number, and a zero-width interval would read as
// false precision.
std::optional<Speedup> speedupOf(const EvalResult& result);

} // namespace sassx::eval
