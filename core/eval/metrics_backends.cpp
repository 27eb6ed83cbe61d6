#include "core/eval/metrics_backends.h"

#include "core/common/subprocess.h"
#include "core/eval/ncu_metrics.h"
#include "core/eval/oneshot_files.h"

#include <nlohmann/json.hpp>

namespace sassx::eval {

using nlohmann::json;

std::string normalizeMetricUnit(const std::string& unit)
{
    if (unit == "percent" || unit == "pct") return "%";
    if (unit == "bytes") return "byte";
    if (unit == "ns" || unit == "nanosecond" || unit == "nanoseconds") return "nsecond";
    return unit;
}

Result<MetricsReport> parseCuptiOneshot(const std::string& text, const FigureSource& source)
{
    // The runner prints exactly one JSON line; libraries may have printed other lines before it.
    json j;
    size_t pos = text.size();
    while (pos > 0) {
        const size_t start = text.rfind('\n', pos - 1);
        const std::string line = text.substr(start == std::string::npos ? 0 : start + 1,
                                             pos - (start == std::string::npos ? 0 : start + 1));
        if (!line.empty() && line[0] == '{') {
            j = json::parse(line, nullptr, false);
            break;
        }
        if (start == std::string::npos) break;
        pos = start;
    }
    if (!j.is_object()) return makeError("the CUPTI runner printed no result");
    if (j.value("status", std::string()) != "ok")
        return makeError(j.value("error", std::string("the CUPTI runner failed without a reason")));
    if (!j.contains("metrics") || !j.at("metrics").is_array())
        return makeError("the CUPTI runner's result has no metrics");
    MetricsReport report;
    report.backend = MetricsBackend::Cupti;
    report.passes = j.value("passes", 0);
    for (const json& m : j.at("metrics")) {
        if (!m.is_object() || !m.contains("name") || !m.contains("value") || !m.at("value").is_number())
            return makeError("the CUPTI runner's result has a malformed metric");
        MetricValue v;
        v.name = m.at("name").get<std::string>();
        v.value = m.at("value").get<double>();
        v.unit = normalizeMetricUnit(m.value("unit", std::string()));
        v.source = source;
        report.values.push_back(std::move(v));
    }
    if (report.values.empty()) return makeError("the CUPTI runner returned no metrics");
    return report;
}

namespace {

Result<MetricsReport> collectWithCupti(const MetricsRequest& r)
{
    auto files = OneshotFiles::create(r.spec, r.cubin);
    if (!files) return files.error();
    std::string list;
    for (const auto& m : r.metrics)
        list += (list.empty() ? "" : ",") + m;
    Subprocess::Options o;
    o.argv = {r.runner,
              "--cupti-oneshot",
              files.value()->specPath(),
              files.value()->cubinPath(),
              std::to_string(r.seed),
              list};
    auto out = runProcess(o, r.timeout);
    if (!out) return out.error();
    auto parsed = parseCuptiOneshot(out->out, FigureSource{r.device, FigureKind::Cupti});
    if (!parsed) {
        std::string why = parsed.message();
        if (!out->ok()) why += " (runner " + out->exit.text() + "; stderr: " + out->err.substr(0, 600) + ")";
        return makeError(why);
    }
    return parsed;
}

Result<MetricsReport> collectWithNcuReport(const MetricsRequest& r)
{
    NcuRequest n;
    n.ncu = findNcu();
    n.runner = r.runner;
    n.spec = r.spec;
    n.cubin = r.cubin;
    n.seed = r.seed;
    n.metrics = r.metrics;
    n.device = r.device;
    n.timeout = r.timeout;
    auto values = collectWithNcu(n);
    if (!values) return values.error();
    MetricsReport report;
    report.backend = MetricsBackend::Ncu;
    report.values = std::move(values.value());
    for (MetricValue& v : report.values)
        v.unit = normalizeMetricUnit(v.unit);
    return report;
}

} // namespace

Result<StallProfile> collectStallProfile(const MetricsRequest& r, int periodExponent, bool* faulted)
{
    if (faulted) *faulted = false;
    auto files = OneshotFiles::create(r.spec, r.cubin);
    if (!files) return files.error();
    Subprocess::Options o;
    o.argv = {r.runner,
              "--pcsample-oneshot",
              files.value()->specPath(),
              files.value()->cubinPath(),
              std::to_string(r.seed),
              periodExponent ? std::to_string(periodExponent) : std::string("auto")};
    auto out = runProcess(o, r.timeout);
    if (!out) return out.error();
    if (faulted) *faulted = out->exit.exitedWith(3); // worker_server.h: 3 after a fault
    auto parsed = parsePcSampleOneshot(out->out);
    if (!parsed) {
        std::string why = parsed.message();
        if (!out->ok())
            why += " (sampling child " + out->exit.text() + "; stderr: " + out->err.substr(0, 600) + ")";
        return makeError(why);
    }
    return parsed;
}

FigureKind figureKindOf(MetricsBackend producedBy)
{
    return producedBy == MetricsBackend::Ncu ? FigureKind::Ncu : FigureKind::Cupti;
}

Result<MetricsReport> collectMetrics(const MetricsRequest& request)
{
    MetricsRequest r = request;
    if (r.metrics.empty()) r.metrics = defaultMetrics();
    if (r.backend == MetricsBackend::Ncu) return collectWithNcuReport(r);
    auto viaCupti = collectWithCupti(r);
    if (viaCupti || r.backend == MetricsBackend::Cupti) return viaCupti;
    auto viaNcu = collectWithNcuReport(r);
    if (!viaNcu) return makeError("CUPTI: " + viaCupti.message() + "; ncu fallback: " + viaNcu.message());
    viaNcu.value().fallback = viaCupti.message();
    return viaNcu;
}

} // namespace sassx::eval
