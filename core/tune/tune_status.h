#pragma once
// What became of a kernel's search in a tune, as typed values: a run's status as the database stores it,
// and a kernel's status as the report shows it. Their names live only in these tables and reach text at
// the edges alone (the runs.status column, report.json, the printed report, the dashboard).
#include "core/common/enum_names.h"

#include <string>
#include <string_view>

namespace sassx::tune {

// A row of the runs table (tune_db_schema.h lists the same names in its comment).
enum class RunStatus
{
    Running,  // a process is searching, or was until it was killed (TuneDb::ownerGone tells which)
    Stopped,  // stopped before its budget, resumable from its checkpoint
    Finished, // ran to its budget or its own end; never run again
    Failed,   // ended with an error (runs.error)
};

inline constexpr std::array<EnumName<RunStatus>, 4> kRunStatusNames{{
    {RunStatus::Running, "running"},
    {RunStatus::Stopped, "stopped"},
    {RunStatus::Finished, "finished"},
    {RunStatus::Failed, "failed"},
}};

inline std::string runStatusName(RunStatus s)
{
    return std::string(enumName(kRunStatusNames, s));
}
// The one-line error names the accepted statuses and the text found.
inline Result<RunStatus> parseRunStatus(std::string_view text)
{
    return parseEnumOrError(kRunStatusNames, text, "a run's status");
}

// A kernel's line in the report: its newest run's status, or why it has none. Interrupted is never
// stored: it is a Running row whose process is gone, which the next tune of the directory resumes.
// A run resumed from a checkpoint keeps its status and counts the resumes (TuneReportRow::resumed);
// the text report marks such a finished run "finished*".
enum class KernelStatus
{
    Finished,
    Stopped,
    Failed,
    Running,
    Interrupted,
    Skipped, // the plan could not tune it (the reason is the row's note)
    NotRun,  // in the plan, with no run yet
};

inline constexpr std::array<EnumName<KernelStatus>, 7> kKernelStatusNames{{
    {KernelStatus::Finished, "finished"},
    {KernelStatus::Stopped, "stopped"},
    {KernelStatus::Failed, "failed"},
    {KernelStatus::Running, "running"},
    {KernelStatus::Interrupted, "interrupted"},
    {KernelStatus::Skipped, "skipped"},
    {KernelStatus::NotRun, "not run"},
}};

inline std::string kernelStatusName(KernelStatus s)
{
    return std::string(enumName(kKernelStatusNames, s));
}

// The report's status of a kernel whose newest run has status `run`; `ownerGone`: the process that
// last ran it no longer exists.
constexpr KernelStatus kernelStatusOf(RunStatus run, bool ownerGone)
{
    switch (run) {
    case RunStatus::Running:
        return ownerGone ? KernelStatus::Interrupted : KernelStatus::Running;
    case RunStatus::Stopped:
        return KernelStatus::Stopped;
    case RunStatus::Finished:
        return KernelStatus::Finished;
    case RunStatus::Failed:
        return KernelStatus::Failed;
    }
    return KernelStatus::Failed;
}

} // namespace sassx::tune
