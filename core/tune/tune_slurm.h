#pragma once
// The Slurm launcher of a tune (docs/tune.md): one job array whose task I runs
// `sassx-cli tune DIR --task-index I` with the same options, each task recording into the same database.
#include "core/common/result.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace sassx::tune {

struct TuneSlurmRequest
{
    std::vector<std::string> argv; // the task's command line, "{task}" where its index goes
    int count = 0;                 // array tasks: the plan's kernels
    std::string partition, gres, time;
    std::vector<std::string> extraArgs;
    std::string logDir; // RUNS_DIR/slurm
    const std::atomic_bool* stop = nullptr;
    std::function<void(const std::string&)> progress; // one line per change of the array's state
};

// Submits the array and waits for it. Every task records into the database itself; the caller renders
// the report from it afterwards.
Status runTuneOnSlurm(const TuneSlurmRequest& request);

} // namespace sassx::tune
