#pragma once
// The report of a tune, from the database alone (docs/tune.md): per kernel its time share, speed-up
// with interval and noise floor (> 1 = faster), edits and verification, and the program-level figure
// Σ share × (1 − 1/speed-up), an Amdahl estimate, never a measurement. Rows whose figures come from the
// estimate backend say so; so does the program figure when any of its terms does.
// Beside each isolated speed-up stands the kernel's in-program one when the program was timed before and
// after the write-back (`sassx_capture time --tune-dir DIR`, DIR/program-time.json, docs/capture.md): a
// measurement inside the real program, with its paired interval; "not timed" without the file.
#include "core/inject/module_origin.h"
#include "core/tune/tune_db.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sassx::tune {

enum class InProgramStatus
{
    Timed,
    NotLaunched,       // in no run of either state
    NotLaunchedBefore, // only after the write-back
    NotLaunchedAfter,  // only before it
    Unpaired           // launched in both states, never in both runs of one pair
};

// One kernel's in-program figures: per-launch GPU times inside the program, a run's figure the median
// of its launches, the speed-up the median over interleaved pairs of before/after (> 1 = faster after).
struct InProgramTime
{
    InProgramStatus status = InProgramStatus::NotLaunched;
    double speedup = 0.0, low = 0.0, high = 0.0; // the pairs' median and its order-statistic interval
    double coverage = 0.0;
    double noiseFloor = -1.0; // half the before runs' interval over their median; -1 when unknown
    int pairs = 0;
    bool resolved = false; // the interval excludes 1.0 with enough coverage, and the kernel is no control
    // A control ran the same cubin before and after: its figure is the drift between the runs, never a
    // verdict. A changed kernel's figure has that drift removed when the runs had controls.
    bool control = false;
    bool driftRemoved = false;
    double beforeUs = 0.0, afterUs = 0.0;
    int64_t launchesBefore = 0, launchesAfter = 0;
    bool cubinChanged = false; // the after runs ran another cubin than the before runs
};

// The step time's paired speed-up from the same runs.
struct ProgramStepTime
{
    double speedup = 0.0, low = 0.0, high = 0.0, coverage = 0.0, noiseFloor = -1.0;
    int pairs = 0;
    bool resolved = false;
    std::string source; // "pattern" (a time the program prints) or "wall time"
};

struct ProgramTime
{
    std::string path;
    std::string error; // why the file could not be used ("" when it was); then nothing below is set
    std::string date;
    int pairs = 0;
    std::optional<ProgramStepTime> step;
    std::map<std::string, InProgramTime> kernels; // by the capture's kernel name
    // The controls' figure: how far kernels whose cubin did not change moved between the same runs.
    struct Controls
    {
        int kernels = 0, pairs = 0;
        double drift = 1.0, low = 1.0, high = 1.0, coverage = 0.0;
    };
    std::optional<Controls> controls; // absent: no control kernel, or a version 1 file
};

// Reads a program-time.json (format "sassx-program-time" version 1 or 2); one line when it is not one.
Result<ProgramTime> loadProgramTime(const std::string& path);

struct TuneReportRow
{
    std::string kernel;
    double timeShare = 0.0;
    KernelStatus status = KernelStatus::NotRun; // the newest run's, or why there is none
    std::string backend, device;
    int64_t evaluations = 0;
    double seconds = 0.0;
    int resumed = 0;
    std::optional<DbBest> best;
    bool estimate = false; // the figures are the estimate backend's
    std::string note;      // the skip reason, the failure, or the run's summary
    std::string outDir;
    int64_t runId = 0;
    std::optional<InProgramTime> inProgram;     // absent: the kernel was not timed inside the program
    std::optional<inject::ModuleOrigin> origin; // from capture.json; absent without one
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
    std::optional<ProgramTime> programTime; // absent: no program-time.json beside the database or specs
};

// The report of the database; the in-program figures from the program-time.json found beside the
// database or, failing that, beside the kernels' specs (the capture directory).
Result<TuneReport> buildReport(TuneDb& db);
// Gives each row its kernel's in-program figures (by name) and keeps the file's summary.
void attachProgramTime(TuneReport& report, ProgramTime programTime);

// The report's cells and its program line, as every rendering shows them (the GUI's dashboard too):
// "1.0312x [1.0201, 1.0420]" with " (no gain)" / " estimate", the noise floor or "- (estimate)", the
// verification, and "program-level ESTIMATE, not a measurement (…): …".
std::string speedupCell(const TuneReportRow& row);
std::string noiseCell(const TuneReportRow& row);
std::string verifiedCell(const TuneReportRow& row);
// The status's name, "finished*" for a finished run that was resumed from a checkpoint.
std::string statusCell(const TuneReportRow& row);
std::string programLine(const TuneReport& report);
// "1.0579x [1.0519, 1.0735]" (+ " unresolved" when the interval holds 1.0), "not launched after",
// "not timed".
std::string inProgramCell(const TuneReportRow& row);
// "in-program, MEASURED in 6 interleaved pairs of fresh runs (PATH, DATE): step time 1.0036x [...] …",
// or why there is no such figure.
std::string programTimeLine(const TuneReport& report);

std::string renderText(const TuneReport& report);
std::string renderHtml(const TuneReport& report);
nlohmann::json toJson(const TuneReport& report);

// The run's history.csv and report.json made from the database (what SearchRun wrote beside its
// checkpoint, byte for byte for the history): into dir/<kernel>/ for every kernel with a run.
Result<std::vector<std::string>> exportRuns(TuneDb& db, const std::string& dir);

} // namespace sassx::tune
