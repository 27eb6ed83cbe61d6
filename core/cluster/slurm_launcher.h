#pragma once
// Runs one command per kernel as a Slurm job array and waits for it (docs/cluster.md). Slurm does the
// placement, queueing and GPU binding; sassx only submits with sbatch, polls squeue, reads the final
// states and cancels with scancel. No daemon of sassx's own runs on the nodes: each array task is an
// ordinary sassx-cli process writing into the shared runs directory (a tune's task records into a
// database file of its own there, which the submitter merges: docs/tune.md).
#include "core/common/result.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace sassx::cluster {

struct SlurmOptions
{
    std::string partition, gres, time, account; // empty: the site's default
    std::vector<std::string> extraArgs;         // passed to sbatch / srun as they are
    int maxParallel = 0;                        // the array's %M throttle, 0 = none
    std::string jobName = "sassx-tune";
};

struct SlurmArrayTask
{
    int index = 0;
    // The command's exit status; 128 + N when it was killed by signal N; -1 while unknown (pending,
    // running, or a task whose end no tool could report).
    int exitCode = -1;
    std::string state;   // Slurm's state word: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
    std::string logPath; // logDir/slurm-<job>_<index>.out: the task's stdout and stderr
};

struct SlurmArrayResult
{
    std::string jobId;
    std::vector<SlurmArrayTask> tasks; // one per index, in index order
};

// Submits argv as one job array of `count` tasks (each task runs argv with every "{task}" replaced by
// its $SLURM_ARRAY_TASK_ID), waits for all of them (polling; cancellable: scancel when *stop turns
// true, then the error "cancelled" once the tasks have ended), and reports each task's exit code and
// state. Logs per task go to logDir/slurm-%A_%a.out, which must be on a filesystem the nodes share.
// `progress` is called from this thread whenever a task's state changes. One-line errors: Slurm's
// tools missing, sbatch refusing the job (its first error line), a task that never started.
Result<SlurmArrayResult> runSlurmArray(const std::vector<std::string>& argv, int count,
                                       const SlurmOptions& options, const std::string& logDir,
                                       const std::atomic_bool* stop = nullptr,
                                       std::function<void(const SlurmArrayResult&)> progress = {});

// sbatch, squeue, scancel and scontrol-or-sacct on PATH, and a controller that answers `scontrol ping`.
// When false, *why says what is missing in one line.
bool slurmAvailable(std::string* why = nullptr);

// The argv that runs workerArgv as one task of its own Slurm allocation through srun, with stdin and
// stdout forwarded line by line, so that a pool speaking line-delimited JSON to local workers can speak
// it to workers on the cluster unchanged. The task's stdout is a pipe: the worker must flush after
// every line (sassx-worker does); --unbuffered is not used because it gives the task a pseudo-terminal,
// which would echo the requests and turn "\n" into "\r\n". Stop such a worker with SIGTERM (srun ends
// the remote task); a SIGKILLed srun leaves the task running until the site's InactiveLimit or an
// scancel (docs/cluster.md). srun is looked up on PATH (or left as the bare name when it is not there,
// so that spawning it fails with a clear message).
std::vector<std::string> srunWorkerCommand(const SlurmOptions& options,
                                           const std::vector<std::string>& workerArgv);

} // namespace sassx::cluster
