#include "core/tune/tune_slurm.h"

#include "core/cluster/slurm_launcher.h"

#include <filesystem>
#include <map>

namespace sassx::tune {

namespace {

// "3 of 6 done (1 failed), 2 running, 1 pending": the array at a glance, for the progress line.
std::string arrayLine(const cluster::SlurmArrayResult& a)
{
    std::map<std::string, int> states;
    int done = 0, failed = 0;
    for (const auto& t : a.tasks) {
        if (t.exitCode >= 0) {
            ++done;
            failed += t.exitCode != 0 ? 1 : 0;
        } else {
            ++states[t.state.empty() ? std::string("PENDING") : t.state];
        }
    }
    std::string line = "Slurm job " + a.jobId + ": " + std::to_string(done) + " of " +
                       std::to_string(a.tasks.size()) + " done";
    if (failed) line += " (" + std::to_string(failed) + " failed)";
    for (const auto& [state, n] : states)
        line += ", " + std::to_string(n) + " " + state;
    return line;
}

} // namespace

Status runTuneOnSlurm(const TuneSlurmRequest& request)
{
    std::string why;
    if (!cluster::slurmAvailable(&why)) return makeError("--launcher slurm: " + why);
    std::error_code ec;
    std::filesystem::create_directories(request.logDir, ec);
    if (ec) return makeError("cannot create " + request.logDir + ": " + ec.message());
    cluster::SlurmOptions o;
    o.partition = request.partition;
    o.gres = request.gres;
    o.time = request.time;
    o.extraArgs = request.extraArgs;
    std::string last;
    auto result = cluster::runSlurmArray(request.argv, request.count, o, request.logDir, request.stop,
                                         [&](const cluster::SlurmArrayResult& a) {
                                             std::string line = arrayLine(a);
                                             if (line != last && request.progress) request.progress(line);
                                             last = std::move(line);
                                         });
    if (!result) return makeError("--launcher slurm: " + result.message());
    // Each task recorded its kernel in the database; a task that failed has said why in its log (its
    // own one-line error), which the report's row for that kernel does not always hold (a task can die
    // before it opens the database).
    for (const auto& t : result->tasks)
        if (t.exitCode != 0)
            return makeError("Slurm task " + std::to_string(t.index) + " of job " + result->jobId +
                             " ended " + (t.state.empty() ? std::string("unknown") : t.state) + " (exit " +
                             std::to_string(t.exitCode) + "): see " + t.logPath);
    return Ok{};
}

} // namespace sassx::tune
