#pragma once
// The report of a tune, from the database alone (docs/tune.md): per kernel its time share, speed-up
// with interval and noise floor (> 1 = faster), edits and verification, and the program-level figure
// Σ share × (1 − 1/speed-up), an Amdahl estimate, never a measurement. Rows whose figures come from the
// estimate backend say so; so does the program figure when any of its terms does.
#include "core/tune/tune_db.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sassx::tune {

struct TuneReportRow
{
    std::string kernel;
    double timeShare = 0.0;
    std::string
        status; // the newest run's ("finished", "stopped", "failed", "running"), or "skipped"/"not run"
    std::string backend, device;
    int64_t evaluations = 0;
    double seconds = 0.0;
    int resumed = 0;
    std::optional<DbBest> best;
    bool estimate = false; // the figures are the estimate backend's
    std::string note;      // the skip reason, the failure, or the run's summary
    std::string outDir;
    int64_t runId = 0;
};

struct ProgramEstimate
{
    double saved = 0.0, savedLow = 0.0, savedHigh = 0.0;       // fraction of the program's GPU time
    double speedup = 1.0, speedupLow = 1.0, speedupHigh = 1.0; // 1 / (1 − saved)
    int kernels = 0; // kernels whose gain counts (a finished run that clearly improved)
    bool fromEstimates = false;
    double coveredShare = 0.0; // Σ share of the kernels in the report
};

struct TuneReport
{
    std::string db;
    std::string sharesNote;
    std::vector<TuneReportRow> rows;
    ProgramEstimate program;
};

Result<TuneReport> buildReport(TuneDb& db);

// The report's cells and its program line, as every rendering shows them (the GUI's dashboard too):
// "1.0312x [1.0201, 1.0420]" with " (no gain)" / " estimate", the noise floor or "- (estimate)", the
// verification, and "program-level ESTIMATE, not a measurement (…): …".
std::string speedupCell(const TuneReportRow& row);
std::string noiseCell(const TuneReportRow& row);
std::string verifiedCell(const TuneReportRow& row);
std::string programLine(const TuneReport& report);

std::string renderText(const TuneReport& report);
std::string renderHtml(const TuneReport& report);
nlohmann::json toJson(const TuneReport& report);

// The run's history.csv and report.json made from the database (what SearchRun wrote beside its
// checkpoint, byte for byte for the history): into dir/<kernel>/ for every kernel with a run.
Result<std::vector<std::string>> exportRuns(TuneDb& db, const std::string& dir);

} // namespace sassx::tune
