#pragma once
// Reading what Slurm's tools print about a job array: squeue's "%i %T" lines while it runs, and
// `scontrol -o show job` records or `sacct -P` lines once it has ended (docs/cluster.md). Pure text
// parsing, tested on captured output.
#include <map>
#include <optional>
#include <string>

namespace sassx::cluster {

struct TaskReport
{
    std::string state;
    std::optional<int> exitCode; // 128 + signal when killed by a signal
    std::string reason;          // scontrol's Reason=, when not "None"
    bool ranOnNode = false;      // scontrol named a node for it (it was started)
};

// A state after which a task does not run again (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
bool isTerminalState(const std::string& state);

// squeue -h -r -o "%i %T" output: "123_4 RUNNING" lines → index → state. Lines of other jobs and
// unexpanded ranges ("123_[1-3]") are ignored.
std::map<int, std::string> parseSqueueStates(const std::string& out, const std::string& jobId);

// `scontrol -o show job JOB` output (one record per line). A record whose ArrayTaskId is a range (tasks
// that never left the queue) reports every index of the range.
std::map<int, TaskReport> parseScontrolRecords(const std::string& out, const std::string& jobId);

// `sacct -n -P -X -j JOB --format=JobID,State,ExitCode` output ("123_4|FAILED|1:0"; "123_[1-3]|..."
// for tasks that never started).
std::map<int, TaskReport> parseSacctLines(const std::string& out, const std::string& jobId);

// "1:0" → 1, "0:15" → 143 (128 + signal), anything else → nullopt.
std::optional<int> parseExitCode(const std::string& text);

} // namespace sassx::cluster
