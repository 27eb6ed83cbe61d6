#include "core/tune/tune_report.h"

#include "core/common/atomic_file.h"
#include "core/common/read_file.h"
#include "core/common/text_format.h"
#include "core/eval/backend.h"
#include "core/eval/eval_result.h"
#include "core/eval/speedup.h"
#include "core/tune/capture_origins.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace sassx::tune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string fmt(const char* format, double a, double b = 0.0, double c = 0.0)
{
    char buf[128];
    std::snprintf(buf, sizeof buf, format, a, b, c);
    return buf;
}

std::string pct(double ratio)
{
    return fmt("%.1f%%", ratio * 100.0);
}

bool counts(const TuneReportRow& r)
{
    return r.status == KernelStatus::Finished && r.best && r.best->improved;
}

// The kernel's time saved as a fraction of the program's GPU time at speed-up `g` (Amdahl).
double savedAt(double share, double g)
{
    return g > 0 ? share * (1.0 - 1.0 / g) : 0.0;
}

ProgramEstimate programEstimate(const std::vector<TuneReportRow>& rows)
{
    ProgramEstimate p;
    for (const TuneReportRow& r : rows) {
        p.coveredShare += r.timeShare;
        if (!counts(r)) continue;
        ++p.kernels;
        p.saved += savedAt(r.timeShare, r.best->speedup);
        p.savedLow += savedAt(r.timeShare, r.best->low);
        p.savedHigh += savedAt(r.timeShare, r.best->high);
        p.fromEstimates = p.fromEstimates || r.estimate;
    }
    auto speedup = [](double saved) { return saved < 1.0 ? 1.0 / (1.0 - saved) : 0.0; };
    p.speedup = speedup(p.saved);
    p.speedupLow = speedup(p.savedLow);
    p.speedupHigh = speedup(p.savedHigh);
    return p;
}

constexpr const char* kProgramTimeFile = "program-time.json";
constexpr uintmax_t kMaxProgramTimeBytes = 64u << 20; // a real one is kilobytes

std::optional<double> number(const json& j, const char* key)
{
    if (!j.is_object()) return std::nullopt;
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string text(const json& j, const char* key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A verdict needs this coverage as well as an interval that excludes 1.0 (sassx_capture's stats.py: with
// fewer pairs, about one unchanged kernel in four looks resolved by chance).
constexpr double kMinCoverage = 0.95;

// A speed-up with its interval, as `sassx_capture time` writes it: {"median", "interval": [lo, hi],
// "coverage", "pairs", "noise_floor"}. Whether it resolves a difference is decided here, from the
// interval, not taken from the file.
struct PairedSpeedup
{
    double median = 0.0, low = 0.0, high = 0.0, coverage = 0.0, noiseFloor = -1.0;
    int pairs = 0;
    bool resolved = false;
};

Result<PairedSpeedup> pairedSpeedup(const json& s)
{
    PairedSpeedup p;
    const auto median = number(s, "median"), coverage = number(s, "coverage"), pairs = number(s, "pairs");
    const json interval = s.is_object() ? s.value("interval", json()) : json();
    if (!median || !coverage || !pairs || !interval.is_array() || interval.size() != 2 ||
        !interval[0].is_number() || !interval[1].is_number())
        return makeError("a speed-up needs median, interval [low, high], coverage and pairs");
    p.median = *median;
    p.low = interval[0].get<double>();
    p.high = interval[1].get<double>();
    p.coverage = *coverage;
    p.pairs = int(*pairs);
    if (!(p.median > 0 && p.low > 0 && p.low <= p.median && p.median <= p.high && std::isfinite(p.high)) ||
        p.pairs < 1)
        return makeError("a speed-up whose interval does not hold its median, or without pairs");
    p.noiseFloor = number(s, "noise_floor").value_or(-1.0);
    p.resolved = (p.low > 1.0 || p.high < 1.0) && p.coverage >= kMinCoverage;
    return p;
}

const char* inProgramStatusName(InProgramStatus s)
{
    switch (s) {
    case InProgramStatus::Timed:
        return "timed";
    case InProgramStatus::NotLaunched:
        return "not launched";
    case InProgramStatus::NotLaunchedBefore:
        return "not launched before";
    case InProgramStatus::NotLaunchedAfter:
        return "not launched after";
    case InProgramStatus::Unpaired:
        return "never launched in both runs of a pair";
    }
    return "unknown";
}

Result<InProgramTime> inProgramOf(const json& k)
{
    const std::string status = text(k, "status");
    const InProgramStatus all[] = {InProgramStatus::Timed, InProgramStatus::NotLaunched,
                                   InProgramStatus::NotLaunchedBefore, InProgramStatus::NotLaunchedAfter,
                                   InProgramStatus::Unpaired};
    const auto it = std::find_if(std::begin(all), std::end(all),
                                 [&](InProgramStatus s) { return status == inProgramStatusName(s); });
    if (it == std::end(all)) return makeError("status \"" + status + "\" is not one sassx_capture writes");
    InProgramTime t;
    t.status = *it;
    for (const auto& [state, us, launches] : {std::tuple{"before", &t.beforeUs, &t.launchesBefore},
                                              std::tuple{"after", &t.afterUs, &t.launchesAfter}}) {
        const json side = k.value(state, json());
        *us = number(side, "median_us").value_or(0.0);
        *launches = int64_t(number(side, "launches").value_or(0.0));
    }
    t.cubinChanged = k.value("cubin_changed", json(false)).is_boolean() && k.value("cubin_changed", false);
    if (t.status != InProgramStatus::Timed) return t;
    auto s = pairedSpeedup(k.value("speedup", json()));
    if (!s) return s.error();
    t.speedup = s->median;
    t.low = s->low;
    t.high = s->high;
    t.coverage = s->coverage;
    t.noiseFloor = s->noiseFloor;
    t.pairs = s->pairs;
    t.control = text(k, "role") == "control";
    t.driftRemoved = k["speedup"].value("drift_removed", json(false)) == json(true);
    t.resolved = s->resolved && !t.control;
    return t;
}

json inProgramJson(const InProgramTime& t)
{
    json j{{"status", inProgramStatusName(t.status)},
           {"before_us", t.beforeUs},
           {"after_us", t.afterUs},
           {"launches_before", t.launchesBefore},
           {"launches_after", t.launchesAfter},
           {"cubin_changed", t.cubinChanged}};
    if (t.status == InProgramStatus::Timed) {
        j["speedup"] = t.speedup;
        j["low"] = t.low;
        j["high"] = t.high;
        j["coverage"] = t.coverage;
        j["pairs"] = t.pairs;
        j["resolved"] = t.resolved;
        j["control"] = t.control;
        j["drift_removed"] = t.driftRemoved;
        j["noise_floor"] = t.noiseFloor >= 0 ? json(t.noiseFloor) : json();
    }
    return j;
}

// The first program-time.json beside the database, else beside a kernel's spec.
std::optional<std::string> findProgramTime(const std::string& dbPath, const std::vector<DbKernel>& kernels)
{
    std::vector<fs::path> dirs{fs::path(dbPath).parent_path()};
    for (const DbKernel& k : kernels)
        if (!k.spec.empty()) dirs.push_back(fs::path(k.spec).parent_path());
    std::set<fs::path> seen;
    for (const fs::path& d : dirs) {
        if (!seen.insert(d).second) continue;
        std::error_code ec;
        if (fs::exists(d / kProgramTimeFile, ec)) return (d / kProgramTimeFile).string();
    }
    return std::nullopt;
}

// Whether the run's figures are the estimate backend's: the backend as the database and the run's report
// name it (a run recorded as "auto" has its report say which one measured), never read back from a
// figure's label.
bool estimated(const DbRun& r)
{
    const json evaluator = r.report.is_object() ? r.report.value("evaluator", json()) : json();
    const std::string reported =
        evaluator.is_object() ? evaluator.value("backend", std::string()) : std::string();
    return eval::parseBackend(r.backend) == eval::Backend::Estimate ||
           eval::parseBackend(reported) == eval::Backend::Estimate;
}

} // namespace

// A figure of the report through the one speed-up formatter ("1.0471× [1.0405, 1.0537]", "1.10× est."),
// so it reads as it does in the CLI's other commands and the GUI.
std::string speedupText(double value, std::optional<eval::SpeedupInterval> interval, bool estimate = false)
{
    eval::Speedup s;
    s.value = value;
    s.interval = interval;
    s.estimate = estimate;
    return interval ? s.text() + " " + s.intervalText() : s.text();
}

std::string speedupCell(const TuneReportRow& r)
{
    if (!r.best) return "-";
    const DbBest& b = *r.best;
    // An estimate's figure is one number: no interval beside it.
    const bool interval = b.rounds != 0 && !r.estimate;
    std::string s = speedupText(
        b.speedup, interval ? std::optional(eval::SpeedupInterval{b.low, b.high}) : std::nullopt, r.estimate);
    if (!b.improved) s += " (no gain)";
    return s;
}

std::string noiseCell(const TuneReportRow& r)
{
    if (!r.best) return "-";
    return r.estimate ? "- (estimate)" : pct(r.best->noiseFloor);
}

std::string verifiedCell(const TuneReportRow& r)
{
    if (!r.best || !r.best->improved) return "-";
    if (!r.best->verified)
        return r.best->verification.starts_with("unverified") ? r.best->verification
                                                              : "no: " + r.best->verification;
    return *r.best->verified ? "yes" : "WRONG: " + r.best->verification;
}

std::string statusCell(const TuneReportRow& r)
{
    return kernelStatusName(r.status) + (r.resumed > 0 && r.status == KernelStatus::Finished ? "*" : "");
}

std::string programLine(const TuneReport& report)
{
    const ProgramEstimate& p = report.program;
    std::string line = "program-level ESTIMATE, not a measurement (sum of share x (1 - 1/speed-up), " +
                       report.sharesNote + "): ";
    if (p.kernels == 0) return line + "no kernel clearly improved, nothing saved";
    // An interval only where a term has one (measured figures; an estimate's is its point).
    const bool interval = p.savedLow != p.savedHigh;
    line +=
        pct(p.saved) + (interval ? fmt(" [%.1f%%, %.1f%%]", p.savedLow * 100.0, p.savedHigh * 100.0) : "") +
        " of the GPU time saved, " +
        speedupText(p.speedup, interval ? std::optional(eval::SpeedupInterval{p.speedupLow, p.speedupHigh})
                                        : std::nullopt) +
        " on GPU time, from " + std::to_string(p.kernels) + " kernel(s)";
    if (p.fromEstimates) line += "; its terms are the estimate backend's figures";
    return line;
}

Result<ProgramTime> loadProgramTime(const std::string& path)
{
    std::error_code ec;
    const uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > kMaxProgramTimeBytes)
        return makeError(path + ": " + std::to_string(size >> 20) +
                         " MiB, too large for a program-time file");
    auto bytes = readRegularFile(path);
    if (!bytes) return bytes.error();
    const json j = json::parse(bytes->begin(), bytes->end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return makeError(path + ": not JSON");
    const auto version = number(j, "version");
    if (text(j, "format") != "sassx-program-time" || !(version == 1.0 || version == 2.0))
        return makeError(path +
                         ": not a sassx-program-time file of version 1 or 2 (`sassx_capture time --tune-dir` "
                         "writes one)");
    const json kernels = j.value("kernels", json());
    if (!kernels.is_array()) return makeError(path + ": no kernels list");
    ProgramTime p;
    p.path = path;
    p.date = text(j, "date");
    p.pairs = int(number(j, "pairs").value_or(0.0));
    for (size_t i = 0; i < kernels.size(); ++i) {
        const std::string name = text(kernels[i], "name");
        if (name.empty()) return makeError(path + ": kernels[" + std::to_string(i) + "] has no name");
        auto t = inProgramOf(kernels[i]);
        if (!t) return makeError(path + ": kernel " + name + ": " + t.message());
        p.kernels[name] = *t;
    }
    const json controls = j.value("controls", json());
    if (controls.is_object()) {
        auto s = pairedSpeedup(controls);
        if (!s) return makeError(path + ": controls: " + s.message());
        p.controls = ProgramTime::Controls{int(number(controls, "kernels").value_or(0.0)),
                                           s->pairs,
                                           s->median,
                                           s->low,
                                           s->high,
                                           s->coverage};
    }
    const json step = j.value("step", json());
    if (step.is_object() && step.value("speedup", json()).is_object()) {
        auto s = pairedSpeedup(step["speedup"]);
        if (!s) return makeError(path + ": step: " + s.message());
        p.step = ProgramStepTime{s->median,     s->low,   s->high,     s->coverage,
                                 s->noiseFloor, s->pairs, s->resolved, text(step, "source")};
    }
    return p;
}

void attachProgramTime(TuneReport& report, ProgramTime programTime)
{
    for (TuneReportRow& r : report.rows) {
        const auto it = programTime.kernels.find(r.kernel);
        r.inProgram = it == programTime.kernels.end() ? std::nullopt : std::optional(it->second);
    }
    report.programTime = std::move(programTime);
}

std::string inProgramCell(const TuneReportRow& r)
{
    if (!r.inProgram) return "not timed";
    const InProgramTime& t = *r.inProgram;
    switch (t.status) {
    case InProgramStatus::Timed:
        if (t.control) return "control " + speedupText(t.speedup, eval::SpeedupInterval{t.low, t.high});
        return speedupText(t.speedup, eval::SpeedupInterval{t.low, t.high}) +
               (t.resolved ? "" : " unresolved");
    case InProgramStatus::NotLaunched:
        return "not launched";
    case InProgramStatus::NotLaunchedBefore:
        return "not launched before";
    case InProgramStatus::NotLaunchedAfter:
        return "not launched after";
    case InProgramStatus::Unpaired:
        return "no pair launched it twice";
    }
    return "not timed";
}

std::string programTimeLine(const TuneReport& report)
{
    if (!report.programTime)
        return "in-program: not timed (no program-time.json beside the database or the specs; `sassx_capture "
               "time --tune-dir DIR --before ... --after ...` measures it)";
    const ProgramTime& p = *report.programTime;
    if (!p.error.empty()) return "in-program: not shown: " + p.error;
    std::string line = "in-program speed-ups MEASURED inside the program (per-launch CUDA events, " +
                       std::to_string(p.pairs) +
                       " interleaved pairs of fresh runs before/after the write-back; " + p.path +
                       (p.date.empty() ? "" : ", " + p.date) +
                       "); \"unresolved\": the interval holds 1.0 or covers less than 95%";
    if (p.controls)
        line += "; controls (kernels whose cubin did not change): " + std::to_string(p.controls->kernels) +
                " moved " +
                speedupText(p.controls->drift, eval::SpeedupInterval{p.controls->low, p.controls->high}) +
                ", removed from the changed kernels' figures";
    else
        line += "; no control kernel: the drift between runs is not removed";
    if (p.step) {
        const ProgramStepTime& s = *p.step;
        line += "; step time " + speedupText(s.speedup, eval::SpeedupInterval{s.low, s.high}) +
                (s.noiseFloor >= 0 ? ", noise floor " + pct(s.noiseFloor) : "") +
                (s.resolved ? "" : ", unresolved");
    }
    return line;
}

Result<TuneReport> buildReport(TuneDb& db)
{
    auto kernels = db.kernels();
    if (!kernels) return kernels.error();
    auto runs = db.runs();
    if (!runs) return runs.error();
    std::map<int64_t, const DbRun*> latest; // kernel id → its newest run
    for (const DbRun& r : *runs)
        latest[r.kernelId] = &r;
    TuneReport report;
    report.db = db.path();
    for (const DbKernel& k : *kernels) {
        TuneReportRow row;
        row.kernel = k.name;
        row.timeShare = k.timeShare;
        if (report.sharesNote.empty()) report.sharesNote = k.sharesNote;
        const auto it = latest.find(k.id);
        if (!k.skipped.empty() && it == latest.end()) {
            row.status = KernelStatus::Skipped;
            row.note = k.skipped;
            report.rows.push_back(std::move(row));
            continue;
        }
        if (it == latest.end()) {
            row.status = KernelStatus::NotRun;
            report.rows.push_back(std::move(row));
            continue;
        }
        const DbRun& r = *it->second;
        row.runId = r.id;
        // A run still marked running whose process is gone was killed: the next tune resumes it.
        row.status = kernelStatusOf(r.status, r.status == RunStatus::Running && TuneDb::ownerGone(r.owner));
        row.backend = r.backend;
        row.device = r.device;
        row.evaluations = r.evaluations;
        row.seconds = r.seconds;
        row.resumed = r.resumed;
        row.outDir = r.outDir;
        row.note = r.status == RunStatus::Failed ? r.error : r.summary;
        auto best = db.best(r.id);
        if (!best) return best.error();
        row.best = *best;
        row.estimate = estimated(r);
        report.rows.push_back(std::move(row));
    }
    // Largest share first: where the program's time goes (skipped kernels, share 0, last).
    std::stable_sort(report.rows.begin(), report.rows.end(),
                     [](const TuneReportRow& a, const TuneReportRow& b) {
                         return a.timeShare != b.timeShare ? a.timeShare > b.timeShare : a.kernel < b.kernel;
                     });
    if (report.sharesNote.empty()) report.sharesNote = "no kernels";
    report.program = programEstimate(report.rows);
    // The capture beside the specs says where each kernel came from.
    for (const DbKernel& k : *kernels) {
        if (k.spec.empty()) continue;
        const auto origins = captureOrigins(fs::path(k.spec).parent_path().string());
        for (TuneReportRow& r : report.rows)
            if (const auto it = origins.find(r.kernel); it != origins.end() && !r.origin)
                r.origin = it->second;
        break;
    }
    if (const auto path = findProgramTime(db.path(), *kernels)) {
        auto programTime = loadProgramTime(*path);
        if (programTime)
            attachProgramTime(report, std::move(*programTime));
        else
            report.programTime = ProgramTime{*path, programTime.message(), {}, 0, std::nullopt, {}};
    }
    return report;
}

std::string renderText(const TuneReport& report)
{
    std::string out =
        "tune report from " + report.db + " (" + report.sharesNote + "; speed-ups > 1 = faster)\n";
    char line[768];
    std::snprintf(line, sizeof line, "%-28s %7s %-9s %7s  %-40s %-14s %-36s %5s  %s\n", "kernel", "share",
                  "status", "evals", "isolated speed-up [95% interval]", "noise floor",
                  "in-program [interval]", "edits", "verified");
    out += line;
    for (const TuneReportRow& r : report.rows) {
        const std::string edits = r.best && r.best->improved ? std::to_string(r.best->edits.size()) : "-";
        std::snprintf(line, sizeof line, "%-28s %7s %-9s %7lld  %-40s %-14s %-36s %5s  %s\n",
                      r.kernel.c_str(), pct(r.timeShare).c_str(), statusCell(r).c_str(),
                      (long long)r.evaluations, speedupCell(r).c_str(), noiseCell(r).c_str(),
                      inProgramCell(r).c_str(), edits.c_str(), verifiedCell(r).c_str());
        out += line;
        if (r.origin && r.origin->kind != inject::OriginKind::Triton)
            out += "    origin: " + originText(*r.origin) +
                   (r.origin->file.empty() ? "" : " (" + r.origin->file + ")") + "\n";
        if (r.status == KernelStatus::Skipped || r.status == KernelStatus::Failed)
            out += "    " + kernelStatusName(r.status) + ": " + r.note + "\n";
    }
    bool resumed = false;
    for (const TuneReportRow& r : report.rows)
        resumed = resumed || (r.resumed > 0 && r.status == KernelStatus::Finished);
    if (resumed) out += "* resumed from a checkpoint after a stop\n";
    return out + programLine(report) + "\n" + programTimeLine(report) + "\n";
}

std::string renderHtml(const TuneReport& report)
{
    std::string h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>sassx tune report</title>\n"
                    "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
                    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
                    ".estimate{color:#8a5a00;font-weight:bold}.num{text-align:right}</style></head><body>\n";
    h += "<h1>sassx tune report</h1>\n<p>From <code>" + htmlEscape(report.db) + "</code>; " +
         htmlEscape(report.sharesNote) + ". Speed-ups &gt; 1 = faster, with their 95% interval.</p>\n";
    h += "<p class=\"estimate\">" + htmlEscape(programLine(report)) + "</p>\n";
    h += "<p>" + htmlEscape(programTimeLine(report)) + "</p>\n";
    h += "<table>\n<tr><th>kernel</th><th>time share</th><th>status</th><th>evaluations</th><th>isolated "
         "speed-up [95% interval]</th><th>noise floor</th><th>in-program speed-up "
         "[interval]</th><th>edits</th><th>verified</th><th>device</th><th>note</th></tr>\n";
    for (const TuneReportRow& r : report.rows) {
        std::string edits = "-";
        if (r.best && r.best->improved) {
            edits.clear();
            for (const json& e : r.best->edits)
                edits += htmlEscape(e.is_string() ? e.get<std::string>() : e.dump()) + "<br>";
        }
        h += "<tr><td>" + htmlEscape(r.kernel) + "</td><td class=\"num\">" + pct(r.timeShare) + "</td><td>" +
             htmlEscape(kernelStatusName(r.status)) +
             (r.resumed > 0 ? " (resumed " + std::to_string(r.resumed) + "x)" : "") +
             "</td><td class=\"num\">" + std::to_string(r.evaluations) + "</td><td" +
             (r.estimate ? " class=\"estimate\"" : "") + ">" + htmlEscape(speedupCell(r)) + "</td><td>" +
             htmlEscape(noiseCell(r)) + "</td><td>" + htmlEscape(inProgramCell(r)) + "</td><td>" + edits +
             "</td><td>" + htmlEscape(verifiedCell(r)) + "</td><td>" +
             htmlEscape(r.device.empty() ? r.backend : r.device + " (" + r.backend + ")") + "</td><td>" +
             htmlEscape(r.note) + "</td></tr>\n";
    }
    return h + "</table>\n</body></html>\n";
}

json toJson(const TuneReport& report)
{
    json rows = json::array();
    for (const TuneReportRow& r : report.rows) {
        json j{{"kernel", r.kernel},   {"time_share", r.timeShare}, {"status", kernelStatusName(r.status)},
               {"backend", r.backend}, {"device", r.device},        {"evaluations", r.evaluations},
               {"seconds", r.seconds}, {"resumed", r.resumed},      {"estimate", r.estimate},
               {"note", r.note},       {"run_dir", r.outDir}};
        if (r.best) {
            const DbBest& b = *r.best;
            j["best"] = {{"improved", b.improved},
                         {"speedup", b.speedup},
                         {"low", b.low},
                         {"high", b.high},
                         {"rounds", b.rounds},
                         {"noise_floor", b.noiseFloor},
                         {"source", b.source},
                         {"verified", b.verified ? json(*b.verified) : json()},
                         {"verification", b.verification},
                         {"edits", b.edits},
                         {"cubin", b.cubin},
                         {"written_back", b.writtenBack}};
        }
        j["in_program"] = r.inProgram ? inProgramJson(*r.inProgram) : json();
        j["origin"] = r.origin
                          ? json{{"kind", std::string(enumName(inject::kOriginKindNames, r.origin->kind))},
                                 {"library", r.origin->file}}
                          : json();
        rows.push_back(std::move(j));
    }
    const ProgramEstimate& p = report.program;
    json programTime;
    if (report.programTime) {
        const ProgramTime& t = *report.programTime;
        programTime = {{"label",
                        "measurement: per-launch CUDA events inside the program, interleaved fresh runs "
                        "before/after the write-back (sassx_capture time --tune-dir)"},
                       {"path", t.path},
                       {"error", t.error.empty() ? json() : json(t.error)},
                       {"date", t.date},
                       {"pairs", t.pairs}};
        if (t.step)
            programTime["step"] = {{"speedup", t.step->speedup},
                                   {"low", t.step->low},
                                   {"high", t.step->high},
                                   {"coverage", t.step->coverage},
                                   {"noise_floor", t.step->noiseFloor},
                                   {"pairs", t.step->pairs},
                                   {"resolved", t.step->resolved},
                                   {"source", t.step->source}};
        if (t.controls)
            programTime["controls"] = {{"kernels", t.controls->kernels}, {"pairs", t.controls->pairs},
                                       {"drift", t.controls->drift},     {"low", t.controls->low},
                                       {"high", t.controls->high},       {"coverage", t.controls->coverage}};
    }
    return {{"tool", "sassx-cli tune"},
            {"program_time", programTime},
            {"db", report.db},
            {"shares", report.sharesNote},
            {"speedup_convention", "> 1 = faster (original time / variant time)"},
            {"kernels", rows},
            {"program_estimate",
             {{"label", "estimate, not a measurement: sum of share x (1 - 1/speed-up) over the kernels that "
                        "clearly improved (Amdahl, on GPU time)"},
              {"saved", p.saved},
              {"saved_low", p.savedLow},
              {"saved_high", p.savedHigh},
              {"speedup", p.speedup},
              {"speedup_low", p.speedupLow},
              {"speedup_high", p.speedupHigh},
              {"kernels", p.kernels},
              {"from_estimates", p.fromEstimates},
              {"covered_share", p.coveredShare}}}};
}

Result<std::vector<std::string>> exportRuns(TuneDb& db, const std::string& dir)
{
    auto runs = db.runs();
    if (!runs) return runs.error();
    std::map<std::string, const DbRun*> latest;
    for (const DbRun& r : *runs)
        latest[r.kernel] = &r;
    std::vector<std::string> written;
    for (const auto& [kernel, run] : latest) {
        const fs::path out = fs::path(dir) / kernel;
        std::error_code ec;
        fs::create_directories(out, ec);
        if (ec) return makeError("cannot create " + out.string() + ": " + ec.message());
        auto evaluations = db.evaluations(run->id);
        if (!evaluations) return evaluations.error();
        std::string csv = search::historyCsvHeader();
        for (const search::SearchEvaluation& e : *evaluations)
            csv += search::historyCsvRow(e);
        if (Status s = writeFileAtomically((out / "history.csv").string(), csv); !s) return s.error();
        written.push_back((out / "history.csv").string());
        if (!run->report.is_null()) {
            if (Status s = writeFileAtomically((out / "report.json").string(), run->report.dump(2) + "\n");
                !s)
                return s.error();
            written.push_back((out / "report.json").string());
        }
    }
    return written;
}

} // namespace sassx::tune
