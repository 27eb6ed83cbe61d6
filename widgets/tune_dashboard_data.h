#pragma once
// What the tune dashboard shows, read from a tune database (docs/tune.md) off the UI thread: one row per
// kernel with the report's figures and cells (core/tune/tune_report.h, so the GUI and `sassx-cli tune
// --report` cannot disagree), the program-level estimate line, and for a kernel the run to reopen in
// the explorer (its cubin, spec and kept search). Plain values; nothing here touches a widget.
#include "core/common/result.h"
#include "core/session/search_record.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace sassx {

struct TuneDashboardRow
{
    QString kernel;
    QString originText, originFile; // "triton", "library libtorch_cuda.so", "jit"; the library's path
    double timeShare = 0.0;
    QString status; // the newest run's, or "skipped"/"not run"
    qint64 evaluations = 0;
    bool hasBest = false;
    double speedup = 0.0, low = 0.0, high = 0.0; // > 1 = faster; 0 without a best (sorts last)
    QString speedupText;                         // the report's cell, interval and "estimate" included
    double noiseFloor = -1.0;                    // ratio units; -1 without a measured one
    QString noiseText;
    int edits = -1; // of an improving best; -1 otherwise
    QString verifiedText;
    QString backendLabel; // "estimate (model)", "gpu (NVIDIA H100 …)"
    bool estimate = false;
    QString note;
    QString spec, cubin, outDir;
    // The kernel's speed-up inside the program (tune_report.h, inProgramCell): measured, or "not timed".
    bool inProgramTimed = false;
    double inProgramSpeedup = 0.0, inProgramLow = 0.0, inProgramHigh = 0.0; // 0 when not timed (sorts last)
    bool inProgramResolved = false;
    QString inProgramText;
    QString inProgramDetail; // per-launch times before/after, launches, pairs, noise floor
};

struct TuneDashboardData
{
    QString path;
    QString sharesNote;
    QString programLine;     // "program-level ESTIMATE, not a measurement (…): …" (tune_report.h)
    QString programTimeLine; // "in-program speed-ups MEASURED inside the program (…)" or "not timed"
    QStringList devices;     // the runs' devices, each once
    std::vector<TuneDashboardRow> rows;
};

// Reads the database at `path`: refused with one line, and nothing created or altered, when it is not a
// tune database of this version (TuneDb::probe).
Result<TuneDashboardData> loadTuneDashboard(const QString& path);

// A kernel of the database made ready to open in the explorer: the cubin and spec the plan names, the
// kernel's symbol in the cubin (the spec's "kernel"), and its newest run as a search record (from the
// database's evaluations, config and report), absent when it never ran.
struct TuneKernelOpen
{
    QString kernel, cubin, spec, symbol;
    std::optional<SearchRecord> record;
};
Result<TuneKernelOpen> loadTuneKernel(const QString& path, const QString& kernel);

} // namespace sassx
