#include "core/eval/eval_result.h"

#include <cmath>

namespace sassx::eval {

using nlohmann::json;

std::string FigureSource::label() const
{
    const std::string name = kind ? std::string(figureKindName(*kind)) : std::string();
    return name + (device.empty() ? std::string() : ", " + device);
}

FigureSource FigureSource::fromLabel(const std::string& label)
{
    const size_t comma = label.find(", ");
    const std::string name = comma == std::string::npos ? label : label.substr(0, comma);
    return {comma == std::string::npos ? std::string() : label.substr(comma + 2), parseFigureKind(name)};
}

json toJson(const FigureSource& s)
{
    return {{"device", s.device}, {"kind", s.kind ? std::string(figureKindName(*s.kind)) : std::string()}};
}

FigureSource figureSourceFromJson(const json& j, const FigureSource& fallback)
{
    FigureSource s = fallback;
    if (!j.is_object()) return s;
    s.device = j.value("device", s.device);
    if (j.contains("kind") && j.at("kind").is_string())
        s.kind = parseFigureKind(j.at("kind").get<std::string>());
    return s;
}

json toJson(const EvalResult& r)
{
    // An output check that did not run is stored as none (null), never as a pass.
    const bool compared = r.outputCheck == OutputCheck::Compared;
    json j{{"correct", compared ? json(r.correct) : json()},
           {"output_check", std::string(enumName(kOutputCheckNames, r.outputCheck))},
           {"source", toJson(r.source)},
           {"wall_ms", r.wallMs}};
    if (!r.failureKind.empty()) {
        j["failure_kind"] = r.failureKind;
        j["failure"] = r.failure;
    }
    if (r.timing) j["timing"] = toJson(*r.timing);
    if (!r.metrics.empty()) {
        json m = json::array();
        for (const MetricValue& v : r.metrics)
            m.push_back(
                {{"name", v.name}, {"value", v.value}, {"unit", v.unit}, {"source", toJson(v.source)}});
        j["metrics"] = m;
    }
    if (r.worker >= 0) j["worker"] = r.worker;
    return j;
}

EvalResult failedResult(const std::string& kind, const std::string& message)
{
    EvalResult r;
    r.correct = false;
    r.failureKind = kind;
    r.failure = message;
    return r;
}

EvalResult evalResultFromResponse(const json& resp)
{
    if (!resp.is_object() || !resp.contains("status") || !resp.at("status").is_string())
        return failedResult(failure::kProtocol, "worker response has no status");
    EvalResult r;
    if (resp.contains("source")) r.source = figureSourceFromJson(resp.at("source"));
    const std::string status = resp.at("status").get<std::string>();
    if (status != "ok") {
        r.correct = false;
        r.failureKind = resp.value("failure_kind", status == "fault" ? std::string(failure::kFault)
                                                                     : std::string(failure::kError));
        r.failure = resp.value("error", std::string("worker reported ") + status);
        return r;
    }
    r.correct = resp.value("correct", false);
    if (!r.correct) {
        r.failureKind = resp.value("failure_kind", std::string(failure::kWrongOutput));
        r.failure = resp.value("error", std::string("output differs from the reference"));
    }
    if (resp.contains("timing")) r.timing = timingFromJson(resp.at("timing"));
    if (resp.contains("phase_ms") && resp.at("phase_ms").is_object())
        for (const auto& [name, ms] : resp.at("phase_ms").items())
            if (ms.is_number()) r.phaseMs[name] = ms.get<double>();
    if (resp.contains("metrics") && resp.at("metrics").is_array()) {
        for (const json& m : resp.at("metrics")) {
            MetricValue v;
            v.name = m.value("name", std::string());
            v.value = m.value("value", 0.0);
            v.unit = m.value("unit", std::string());
            v.source = m.contains("source") ? figureSourceFromJson(m.at("source"), r.source) : r.source;
            r.metrics.push_back(v);
        }
    }
    return r;
}

EvalResult combineProcessResults(const std::vector<EvalResult>& parts)
{
    if (parts.empty()) return failedResult(failure::kError, "no measurement to combine");
    for (const EvalResult& p : parts)
        if (!p.ok() || !p.timing) return p;
    EvalResult out = parts.front();
    std::vector<RatioInterval> units;
    std::vector<double> baseUs, candUs;
    double halfWidths = 0.0;
    TimingFigures& t = *out.timing;
    t.ratio.rounds = 0;
    t.screenRounds = 0;
    out.wallMs = 0.0;
    for (const EvalResult& p : parts) {
        units.push_back(p.timing->ratio);
        baseUs.push_back(p.timing->baselineMedianUs);
        candUs.push_back(p.timing->candidateMedianUs);
        halfWidths += 0.5 * (p.timing->ratio.high - p.timing->ratio.low);
        t.ratio.rounds += p.timing->ratio.rounds;
        t.screenRounds += p.timing->screenRounds;
        t.confirmed = t.confirmed && p.timing->confirmed;
        t.stoppedEarly = t.stoppedEarly || p.timing->stoppedEarly;
        out.wallMs += p.wallMs;
    }
    // The rounds of all parts as one sample: the parts' mean half-width shrunk by sqrt(K), around the
    // geometric mean of their medians (the raw rounds stay in the workers).
    RatioInterval pooled;
    double logSum = 0.0;
    for (const RatioInterval& u : units)
        logSum += std::log(u.median);
    pooled.median = std::exp(logSum / double(units.size()));
    const double half = halfWidths / double(units.size()) / std::sqrt(double(units.size()));
    pooled.low = pooled.median - half;
    pooled.high = pooled.median + half;
    pooled.rounds = t.ratio.rounds;
    t.ratio = instancesInterval(units, pooled);
    t.baselineMedianUs = median(baseUs);
    t.candidateMedianUs = median(candUs);
    t.verdict = decide(t.ratio, t.noiseFloor);
    return out;
}

} // namespace sassx::eval
