#pragma once
// The batch script each array task runs (docs/cluster.md): the command with "{task}" replaced by the
// task's index, then its exit status written to a file beside the task's log, so that the exit code is
// known on every site, including those without Slurm accounting (where sacct cannot answer) and after
// the controller has forgotten the job.
#include <string>
#include <vector>

namespace sassx::cluster {

// `word` quoted for a POSIX shell, with every "{task}" replaced by "$SLURM_ARRAY_TASK_ID".
std::string shellWordWithTask(const std::string& word);

// A /bin/sh script that runs argv (with "{task}" replaced) and then writes its exit status to
// rcDir/slurm-<array job id>_<task id>.rc (written to a temporary name and renamed, so a reader never
// sees a half-written file). It exits with the command's status.
std::string arrayTaskScript(const std::vector<std::string>& argv, const std::string& rcDir);

// The .rc path and .out path the script and sbatch --output produce for one task.
std::string taskRcPath(const std::string& dir, const std::string& jobId, int index);
std::string taskLogPath(const std::string& dir, const std::string& jobId, int index);

} // namespace sassx::cluster
