#include "widgets/tune_dashboard_data.h"

#include "core/session/kernel_evaluator.h" // eval::loadLaunchSpec, re-exported
#include "core/tune/capture_origins.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_report.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace sassx {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

Result<std::unique_ptr<tune::TuneDb>> openExisting(const QString& path)
{
    const std::string p = path.toStdString();
    if (Status s = tune::TuneDb::probe(p); !s) return s.error();
    return tune::TuneDb::open(p);
}

TuneDashboardRow rowOf(const tune::TuneReportRow& r)
{
    TuneDashboardRow row;
    row.kernel = q(r.kernel);
    if (r.origin) {
        row.originText = q(tune::originText(*r.origin));
        row.originFile = q(r.origin->file);
    }
    row.timeShare = r.timeShare;
    row.status = q(tune::kernelStatusName(r.status));
    row.evaluations = r.evaluations;
    row.estimate = r.estimate;
    row.note = q(r.note);
    row.outDir = q(r.outDir);
    row.speedupText = q(tune::speedupCell(r));
    row.noiseText = q(tune::noiseCell(r));
    row.verifiedText = q(tune::verifiedCell(r));
    if (!r.backend.empty())
        row.backendLabel = r.device.empty() ? q(r.backend) : q(r.backend + " (" + r.device + ")");
    if (r.best) {
        row.hasBest = true;
        row.speedup = r.best->speedup;
        row.low = r.best->low;
        row.high = r.best->high;
        if (!r.estimate) row.noiseFloor = r.best->noiseFloor;
        if (r.best->improved) row.edits = int(r.best->edits.size());
    }
    row.inProgramText = q(tune::inProgramCell(r));
    if (r.inProgram && r.inProgram->status == tune::InProgramStatus::Timed) {
        const tune::InProgramTime& t = *r.inProgram;
        row.inProgramTimed = true;
        row.inProgramSpeedup = t.speedup;
        row.inProgramLow = t.low;
        row.inProgramHigh = t.high;
        row.inProgramResolved = t.resolved;
        row.inProgramDetail =
            QStringLiteral(
                "Measured inside the program: median per launch %1 us before, %2 us after the write-back "
                "(%3 / %4 launches), %5 interleaved pairs, %6% coverage")
                .arg(t.beforeUs, 0, 'f', 3)
                .arg(t.afterUs, 0, 'f', 3)
                .arg(t.launchesBefore)
                .arg(t.launchesAfter)
                .arg(t.pairs)
                .arg(t.coverage * 100.0, 0, 'f', 1);
        if (t.noiseFloor >= 0)
            row.inProgramDetail += QStringLiteral("; noise floor %1%").arg(t.noiseFloor * 100.0, 0, 'f', 2);
        if (!t.resolved) row.inProgramDetail += QStringLiteral("; the interval holds 1.0: not resolved");
        if (!t.cubinChanged) row.inProgramDetail += QStringLiteral("; the same cubin ran before and after");
    }
    return row;
}

} // namespace

Result<TuneDashboardData> loadTuneDashboard(const QString& path)
{
    auto db = openExisting(path);
    if (!db) return db.error();
    auto report = tune::buildReport(**db);
    if (!report) return report.error();
    auto kernels = (*db)->kernels();
    if (!kernels) return kernels.error();
    TuneDashboardData data;
    data.path = path;
    data.sharesNote = q(report->sharesNote);
    data.programLine = q(tune::programLine(*report));
    data.programTimeLine = q(tune::programTimeLine(*report));
    for (const tune::TuneReportRow& r : report->rows) {
        TuneDashboardRow row = rowOf(r);
        for (const tune::DbKernel& k : *kernels)
            if (k.name == r.kernel) {
                row.spec = q(k.spec);
                row.cubin = q(k.cubin);
            }
        if (!r.device.empty() && !data.devices.contains(q(r.device))) data.devices << q(r.device);
        data.rows.push_back(std::move(row));
    }
    return data;
}

Result<TuneKernelOpen> loadTuneKernel(const QString& path, const QString& kernel)
{
    auto db = openExisting(path);
    if (!db) return db.error();
    auto kernels = (*db)->kernels();
    if (!kernels) return kernels.error();
    const std::string name = kernel.toStdString();
    const auto k = std::find_if(kernels->begin(), kernels->end(),
                                [&](const tune::DbKernel& k) { return k.name == name; });
    if (k == kernels->end()) return makeError(name + " is not a kernel of " + path.toStdString());
    if (!k->skipped.empty()) return makeError(name + " was not tuned: " + k->skipped);
    TuneKernelOpen open{kernel, q(k->cubin), q(k->spec), {}, std::nullopt};
    // The cubin's symbol is the spec's "kernel": the tune's name is the capture's key or the spec's stem.
    auto spec = eval::loadLaunchSpec(k->spec);
    if (!spec) return makeError(name + ": its launch spec: " + spec.message());
    open.symbol = q(spec->kernel);
    auto run = (*db)->latestRun(name);
    if (!run) return run.error();
    if (!*run) return open;
    auto evaluations = (*db)->evaluations((*run)->id);
    if (!evaluations) return evaluations.error();
    // Through the session file's reader, which refuses a history whose steps do not chain.
    nlohmann::json history = nlohmann::json::array();
    for (const search::SearchEvaluation& e : *evaluations)
        history.push_back(search::toJson(e));
    // The report's configuration once the run ended: the space --space auto resolved to. The run's row
    // keeps what was asked for when it started.
    nlohmann::json config = nlohmann::json::parse((*run)->config, nullptr, false);
    if ((*run)->report.is_object() && (*run)->report.contains("config")) config = (*run)->report.at("config");
    auto record = searchRecordFromJson(
        {{"config", config},
         {"out_dir", (*run)->outDir},
         {"report", (*run)->report.is_null() ? nlohmann::json::object() : (*run)->report},
         {"history", std::move(history)}});
    if (!record) return makeError(name + ": its run: " + record.message());
    open.record = std::move(*record);
    return open;
}

} // namespace sassx
