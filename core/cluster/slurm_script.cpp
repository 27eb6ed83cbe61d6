#include "core/cluster/slurm_script.h"

namespace sassx::cluster {

namespace {
constexpr std::string_view kTask = "{task}";

// Single quotes keep everything literal; a single quote itself is closed, escaped and reopened.
std::string quoteLiteral(std::string_view text)
{
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}
} // namespace

std::string shellWordWithTask(const std::string& word)
{
    std::string out;
    std::string_view rest = word;
    while (true) {
        const size_t at = rest.find(kTask);
        const std::string_view literal = rest.substr(0, at);
        if (!literal.empty() || (out.empty() && at == std::string_view::npos)) out += quoteLiteral(literal);
        if (at == std::string_view::npos) break;
        out += "\"$SLURM_ARRAY_TASK_ID\"";
        rest.remove_prefix(at + kTask.size());
    }
    return out;
}

std::string taskRcPath(const std::string& dir, const std::string& jobId, int index)
{
    return dir + "/slurm-" + jobId + "_" + std::to_string(index) + ".rc";
}

std::string taskLogPath(const std::string& dir, const std::string& jobId, int index)
{
    return dir + "/slurm-" + jobId + "_" + std::to_string(index) + ".out";
}

std::string arrayTaskScript(const std::vector<std::string>& argv, const std::string& rcDir)
{
    std::string command;
    for (const auto& word : argv)
        command += (command.empty() ? "" : " ") + shellWordWithTask(word);
    // Not `exec`: the shell stays to record the status. On scancel Slurm signals every process of the
    // step, this shell included, so a cancelled task leaves no .rc file and its state says CANCELLED.
    return "#!/bin/sh\n"
           "# One task of a sassx job array (docs/cluster.md).\n" +
           command +
           "\n"
           "rc=$?\n"
           "rc_file=" +
           quoteLiteral(rcDir) +
           "/slurm-\"$SLURM_ARRAY_JOB_ID\"_\"$SLURM_ARRAY_TASK_ID\".rc\n"
           "echo \"$rc\" > \"$rc_file.tmp\" && mv -f \"$rc_file.tmp\" \"$rc_file\"\n"
           "exit \"$rc\"\n";
}

} // namespace sassx::cluster
