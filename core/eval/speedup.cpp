#include "core/eval/speedup.h"

#include <cmath>
#include <cstdio>

namespace sassx::eval {

double Speedup::fromTimeRatio(double ratio)
{
    return ratio > 0 ? 1.0 / ratio : 0.0;
}

Speedup Speedup::fromRatio(const RatioInterval& ratio, double noiseFloor, bool estimate)
{
    Speedup s;
    s.value = fromTimeRatio(ratio.median);
    if (ratio.rounds > 0) s.interval = SpeedupInterval{fromTimeRatio(ratio.high), fromTimeRatio(ratio.low)};
    s.noiseFloor = noiseFloor;
    s.estimate = estimate;
    return s;
}

Speedup Speedup::fromTiming(const TimingFigures& timing, bool estimate)
{
    return fromRatio(timing.ratio, timing.noiseFloor, estimate);
}

bool Speedup::belowNoiseFloor() const
{
    if (estimate || !(noiseFloor > 0) || !(value > 0)) return false;
    // The floor is in time-ratio units, as decide() applies it.
    return std::abs(1.0 - 1.0 / value) <= noiseFloor;
}

std::string Speedup::text(int decimals) const
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f\u00d7", decimals, value);
    return estimate ? std::string(buf) + " est." : std::string(buf);
}

std::string Speedup::intervalText(int decimals) const
{
    if (!interval) return {};
    char buf[96];
    std::snprintf(buf, sizeof buf, "[%.*f, %.*f]", decimals, interval->low, decimals, interval->high);
    return buf;
}

std::string Speedup::fullText(int decimals) const
{
    std::string s = text(decimals);
    if (interval) s += " " + intervalText(decimals);
    if (belowNoiseFloor()) s += ", below the noise floor";
    return s;
}

std::optional<Speedup> speedupOf(const EvalResult& result)
{
    if (!result.timing || !(result.timing->ratio.median > 0)) return std::nullopt;
    Speedup s = Speedup::fromTiming(*result.timing, result.source.isEstimate());
    if (s.estimate) s.interval.reset();
    return s;
}

} // namespace sassx::eval
