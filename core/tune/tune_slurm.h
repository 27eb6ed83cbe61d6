#pragma once
// The Slurm launcher of a tune (docs/tune.md, "On a cluster"): one job array whose task I runs
// `sassx-cli tune DIR --task-index I --task-db` with the same options. A task records only into its
// own database (tune_task.h); this process, the one writer of the tune's database, merges each task's
// file as that task ends.
#include "core/common/result.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_plan.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace sassx::tune {

struct TuneSlurmRequest
{
    std::vector<std::string> argv;  // the task's command line, "{task}" where its index goes
    const TunePlan* plan = nullptr; // one array task per kernel, in the plan's order
    TuneDb* db = nullptr;           // the tune's database: the plan's kernels and the merged runs
    std::string runsDir;            // RUNS_DIR: the tasks' run directories and their own databases
    std::string partition, gres, time;
    std::vector<std::string> extraArgs;
    std::string logDir; // RUNS_DIR/slurm
    const std::atomic_bool* stop = nullptr;
    // One line per change of the array's state, and one per task merged (or whose file is refused).
    std::function<void(const std::string&)> progress;
};

// Records the plan's kernels in the database, submits the array and waits for it, merging each task's
// database as the task ends (and, after a stop, whatever the ended tasks left). The error is one line:
// the first task that failed (with its state and log), else the first task whose results could not be
// merged (missing, or a file that is damaged or not a tune database: the tune's database is left as
// it was for that task).
Status runTuneOnSlurm(const TuneSlurmRequest& request);

} // namespace sassx::tune
