#include "core/tune/tune_report.h"

#include "core/common/atomic_file.h"
#include "core/common/text_format.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

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
    return r.status == "finished" && r.best && r.best->improved;
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

} // namespace

std::string speedupCell(const TuneReportRow& r)
{
    if (!r.best) return "-";
    const DbBest& b = *r.best;
    std::string s =
        b.rounds == 0 ? fmt("%.4fx", b.speedup) : fmt("%.4fx [%.4f, %.4f]", b.speedup, b.low, b.high);
    if (!b.improved) s += " (no gain)";
    if (r.estimate) s += " estimate";
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

std::string programLine(const TuneReport& report)
{
    const ProgramEstimate& p = report.program;
    std::string line = "program-level ESTIMATE, not a measurement (sum of share x (1 - 1/speed-up), " +
                       report.sharesNote + "): ";
    if (p.kernels == 0) return line + "no kernel clearly improved, nothing saved";
    // An interval only where a term has one (measured figures; an estimate's is its point).
    const bool interval = p.savedLow != p.savedHigh;
    line += pct(p.saved) +
            (interval ? fmt(" [%.1f%%, %.1f%%]", p.savedLow * 100.0, p.savedHigh * 100.0) : "") +
            " of the GPU time saved, " +
            (interval ? fmt("%.4fx [%.4f, %.4f]", p.speedup, p.speedupLow, p.speedupHigh)
                      : fmt("%.4fx", p.speedup)) +
            " on GPU time, from " + std::to_string(p.kernels) + " kernel(s)";
    if (p.fromEstimates) line += "; its terms are the estimate backend's figures";
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
            row.status = "skipped";
            row.note = k.skipped;
            report.rows.push_back(std::move(row));
            continue;
        }
        if (it == latest.end()) {
            row.status = "not run";
            report.rows.push_back(std::move(row));
            continue;
        }
        const DbRun& r = *it->second;
        row.runId = r.id;
        // A run still marked running whose process is gone was killed: the next tune resumes it.
        row.status = r.status == "running" && TuneDb::ownerGone(r.owner) ? "interrupted" : r.status;
        row.backend = r.backend;
        row.device = r.device;
        row.evaluations = r.evaluations;
        row.seconds = r.seconds;
        row.resumed = r.resumed;
        row.outDir = r.outDir;
        row.note = r.status == "failed" ? r.error : r.summary;
        auto best = db.best(r.id);
        if (!best) return best.error();
        row.best = *best;
        row.estimate = r.backend == "estimate" || (row.best && row.best->source.starts_with("estimate"));
        report.rows.push_back(std::move(row));
    }
    // Largest share first: where the program's time goes (skipped kernels, share 0, last).
    std::stable_sort(report.rows.begin(), report.rows.end(),
                     [](const TuneReportRow& a, const TuneReportRow& b) {
                         return a.timeShare != b.timeShare ? a.timeShare > b.timeShare : a.kernel < b.kernel;
                     });
    if (report.sharesNote.empty()) report.sharesNote = "no kernels";
    report.program = programEstimate(report.rows);
    return report;
}

std::string renderText(const TuneReport& report)
{
    std::string out =
        "tune report from " + report.db + " (" + report.sharesNote + "; speed-ups > 1 = faster)\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-28s %7s %-9s %7s  %-40s %-14s %5s  %s\n", "kernel", "share", "status",
                  "evals", "speed-up [95% interval]", "noise floor", "edits", "verified");
    out += line;
    for (const TuneReportRow& r : report.rows) {
        const std::string edits = r.best && r.best->improved ? std::to_string(r.best->edits.size()) : "-";
        const std::string status = r.resumed > 0 && r.status == "finished" ? "finished*" : r.status;
        std::snprintf(line, sizeof line, "%-28s %7s %-9s %7lld  %-40s %-14s %5s  %s\n", r.kernel.c_str(),
                      pct(r.timeShare).c_str(), status.c_str(), (long long)r.evaluations,
                      speedupCell(r).c_str(), noiseCell(r).c_str(), edits.c_str(), verifiedCell(r).c_str());
        out += line;
        if (r.status == "skipped" || r.status == "failed") out += "    " + r.status + ": " + r.note + "\n";
    }
    bool resumed = false;
    for (const TuneReportRow& r : report.rows)
        resumed = resumed || (r.resumed > 0 && r.status == "finished");
    if (resumed) out += "* resumed from a checkpoint after a stop\n";
    return out + programLine(report) + "\n";
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
    h += "<table>\n<tr><th>kernel</th><th>time share</th><th>status</th><th>evaluations</th><th>speed-up "
         "[95% interval]</th><th>noise "
         "floor</th><th>edits</th><th>verified</th><th>device</th><th>note</th></tr>\n";
    for (const TuneReportRow& r : report.rows) {
        std::string edits = "-";
        if (r.best && r.best->improved) {
            edits.clear();
            for (const json& e : r.best->edits)
                edits += htmlEscape(e.is_string() ? e.get<std::string>() : e.dump()) + "<br>";
        }
        h += "<tr><td>" + htmlEscape(r.kernel) + "</td><td class=\"num\">" + pct(r.timeShare) + "</td><td>" +
             htmlEscape(r.status) + (r.resumed > 0 ? " (resumed " + std::to_string(r.resumed) + "x)" : "") +
             "</td><td class=\"num\">" + std::to_string(r.evaluations) + "</td><td" +
             (r.estimate ? " class=\"estimate\"" : "") + ">" + htmlEscape(speedupCell(r)) + "</td><td>" +
             htmlEscape(noiseCell(r)) + "</td><td>" + edits + "</td><td>" + htmlEscape(verifiedCell(r)) +
             "</td><td>" + htmlEscape(r.device.empty() ? r.backend : r.device + " (" + r.backend + ")") +
             "</td><td>" + htmlEscape(r.note) + "</td></tr>\n";
    }
    return h + "</table>\n</body></html>\n";
}

json toJson(const TuneReport& report)
{
    json rows = json::array();
    for (const TuneReportRow& r : report.rows) {
        json j{{"kernel", r.kernel},   {"time_share", r.timeShare}, {"status", r.status},
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
        rows.push_back(std::move(j));
    }
    const ProgramEstimate& p = report.program;
    return {{"tool", "sassx-cli tune"},
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
