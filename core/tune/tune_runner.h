#pragma once
// One kernel of a tune (docs/tune.md): its search as one SearchRun into RUNS_DIR/<kernel>/, every
// evaluation recorded in the database as the run goes, its report and best recorded at the end. A kernel
// whose last run finished is not run again; one whose run was killed continues from its checkpoint
// (the database drops what the checkpoint does not cover, and counts the resume).
#include "core/session/search_run.h"
#include "core/session/workspace.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_plan.h"

#include <atomic>
#include <functional>
#include <string>

namespace sassx::tune {

struct TuneRunOptions
{
    search::SearchConfig config; // algorithm, space, seed and the per-kernel budget
    std::string runsDir;         // RUNS_DIR: each kernel's run goes into RUNS_DIR/<kernel>
    WorkspaceOptions workspace;  // .evaluator: the backend, and the GPU(s) this kernel measures on
    SearchMeasurePlan measure;
    int checkpointEvery = search::SearchControl{}.checkpointEvery;
    const std::atomic_bool* stop = nullptr; // ends the run after the evaluation in flight (resumable)
};

// A kernel's place in this tune, as the progress board shows it (the database's is RunStatus).
enum class KernelState
{
    Queued,
    Running,
    Finished, // this tune ran it to its end
    Done,     // an earlier tune did: not run again
    Stopped,  // stopped before its budget (resumable)
    Failed,
};

inline constexpr std::array<EnumName<KernelState>, 6> kKernelStateNames{{
    {KernelState::Queued, "queued"},
    {KernelState::Running, "running"},
    {KernelState::Finished, "finished"},
    {KernelState::Done, "done"},
    {KernelState::Stopped, "stopped"},
    {KernelState::Failed, "failed"},
}};

inline std::string stateName(KernelState s)
{
    return std::string(enumName(kKernelStateNames, s));
}

struct KernelProgress
{
    std::string kernel;
    KernelState state = KernelState::Queued;
    int64_t evaluations = 0;
    double fraction = 0.0; // of the budget
    double bestSpeedup = 1.0;
    std::string phase;
    std::string backend;        // once the evaluator is chosen
    int resumed = 0;            // resumes of this run so far (> 0: continued from a checkpoint)
    std::string message;        // the summary when it ends, or the error
    double searchSeconds = 0.0; // the search's own time (report.json's `seconds`) once it ended
    bool outOfTime = false;     // left queued: --total-time was spent before it could start
};
using ProgressFn = std::function<void(const KernelProgress&)>;

// Runs (or resumes, or skips as done) the kernel's search and records it. The error (also recorded as a
// failed run) is one line: a spec that cannot be made, an evaluator that cannot start, a database error.
Result<KernelProgress> tuneKernel(const TuneKernel& kernel, const std::string& sharesNote,
                                  const TuneRunOptions& options, TuneDb& db, const ProgressFn& progress = {});

// The figures of a run's best as report.json gives them (SearchRun), for the bests table.
DbBest bestFromReport(const nlohmann::json& report, const std::string& cubinPath);

} // namespace sassx::tune
