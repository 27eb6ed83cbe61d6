#include "core/eval/timing_stats.h"

#include "core/eval/input_gen.h"

#include <algorithm>
#include <cmath>

namespace sassx::eval {

double median(std::vector<double> v)
{
    if (v.empty()) return 0.0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    if (v.size() % 2) return v[mid];
    const double upper = v[mid];
    const double lower = *std::max_element(v.begin(), v.begin() + mid);
    return 0.5 * (lower + upper);
}

RatioInterval ratioInterval(const std::vector<double>& a, const std::vector<double>& b, int resamples,
                            uint64_t seed)
{
    RatioInterval r;
    const size_t n = std::min(a.size(), b.size());
    std::vector<double> ratios;
    ratios.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (a[i] > 0 && b[i] > 0) ratios.push_back(b[i] / a[i]);
    r.rounds = int(ratios.size());
    if (ratios.empty()) return r;
    r.median = median(ratios);
    if (ratios.size() < 2) {
        r.low = r.high = r.median;
        return r;
    }
    SplitMix64 rng(seed);
    std::vector<double> medians(size_t(std::max(resamples, 1)));
    std::vector<double> draw(ratios.size());
    for (double& m : medians) {
        for (double& d : draw)
            d = ratios[rng.below(ratios.size())];
        m = median(draw);
    }
    std::sort(medians.begin(), medians.end());
    auto pick = [&](double q) {
        const size_t i = size_t(
            std::clamp(std::floor(q * double(medians.size() - 1) + 0.5), 0.0, double(medians.size() - 1)));
        return medians[i];
    };
    r.low = pick(0.025);
    r.high = pick(0.975);
    return r;
}

double studentT975(int df)
{
    // Two-sided 95% quantiles of Student's t; beyond 30 degrees of freedom the normal's 1.96 is within 4%.
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < 1) return 0.0;
    return df <= 30 ? table[df - 1] : 1.96;
}

RatioInterval instancesInterval(const std::vector<RatioInterval>& perInstance, const RatioInterval& pooled)
{
    std::vector<double> logs;
    for (const auto& r : perInstance)
        if (r.rounds > 0 && r.median > 0) logs.push_back(std::log(r.median));
    if (logs.size() < 2) return pooled;
    const double k = double(logs.size());
    double mean = 0.0;
    for (double l : logs)
        mean += l;
    mean /= k;
    double ss = 0.0;
    for (double l : logs)
        ss += (l - mean) * (l - mean);
    const double half = studentT975(int(logs.size()) - 1) * std::sqrt(ss / (k - 1.0)) * std::sqrt(2.0 / k);
    RatioInterval r;
    r.median = std::exp(mean);
    r.low = std::min(std::exp(mean - half), pooled.low);
    r.high = std::max(std::exp(mean + half), pooled.high);
    r.rounds = pooled.rounds;
    r.instances = int(logs.size());
    return r;
}

double noiseFloor(const RatioInterval& self)
{
    return std::max(std::fabs(self.median - 1.0), 0.5 * (self.high - self.low));
}

std::string verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Faster:
        return "faster";
    case Verdict::Slower:
        return "slower";
    case Verdict::Same:
        return "same";
    }
    return "same";
}

Verdict decide(const RatioInterval& r, double floor)
{
    if (r.rounds < 2) return Verdict::Same;
    if (r.high < 1.0 && 1.0 - r.median > floor) return Verdict::Faster;
    if (r.low > 1.0 && r.median - 1.0 > floor) return Verdict::Slower;
    return Verdict::Same;
}

nlohmann::json toJson(const TimingFigures& t)
{
    return {{"ratio_median", t.ratio.median},
            {"ratio_ci95", {t.ratio.low, t.ratio.high}},
            {"rounds", t.ratio.rounds},
            {"instances", t.ratio.instances},
            {"baseline_median_us", t.baselineMedianUs},
            {"candidate_median_us", t.candidateMedianUs},
            {"noise_floor", t.noiseFloor},
            {"verdict", verdictName(t.verdict)},
            {"confirmed", t.confirmed},
            {"stopped_early", t.stoppedEarly},
            {"screen_rounds", t.screenRounds},
            {"launch_mode", launchModeName(t.launchMode)},
            {"launches_per_sample", t.launchesPerSample},
            {"l2_flush", t.l2Flush},
            {"paired", t.paired},
            {"race", t.race}};
}

std::optional<TimingFigures> timingFromJson(const nlohmann::json& j)
{
    if (!j.is_object() || !j.contains("ratio_median")) return std::nullopt;
    TimingFigures t;
    t.ratio.median = j.value("ratio_median", 1.0);
    if (j.contains("ratio_ci95") && j.at("ratio_ci95").is_array() && j.at("ratio_ci95").size() == 2) {
        t.ratio.low = j.at("ratio_ci95")[0].get<double>();
        t.ratio.high = j.at("ratio_ci95")[1].get<double>();
    }
    t.ratio.rounds = j.value("rounds", 0);
    t.ratio.instances = j.value("instances", 1);
    t.baselineMedianUs = j.value("baseline_median_us", 0.0);
    t.candidateMedianUs = j.value("candidate_median_us", 0.0);
    t.noiseFloor = j.value("noise_floor", 0.0);
    const std::string v = j.value("verdict", std::string("same"));
    t.verdict = v == "faster" ? Verdict::Faster : v == "slower" ? Verdict::Slower : Verdict::Same;
    t.confirmed = j.value("confirmed", false);
    t.stoppedEarly = j.value("stopped_early", false);
    t.screenRounds = j.value("screen_rounds", 0);
    t.launchMode = parseLaunchMode(j.value("launch_mode", std::string())).value_or(LaunchMode::Events);
    t.launchesPerSample = j.value("launches_per_sample", 1);
    t.l2Flush = j.value("l2_flush", false);
    t.paired = j.value("paired", false);
    t.race = j.value("race", std::string());
    return t;
}

} // namespace sassx::eval
