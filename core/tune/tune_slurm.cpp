#include "core/tune/tune_slurm.h"

#include "core/cluster/slurm_launcher.h"
#include "core/cluster/slurm_states.h"
#include "core/tune/tune_task.h"

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

// While the array runs, a task has ended when its exit status is known (the batch script writes it
// after the command returns): a CANCELLED or TIMEOUT state comes with the signal, while the task may
// still be checkpointing into its database. Once the array is over, every task in a final state has.
bool ended(const cluster::SlurmArrayTask& t, bool arrayOver)
{
    return t.exitCode >= 0 || (arrayOver && cluster::isTerminalState(t.state));
}

// Merges each task's own database into the tune's once, as the task ends.
class TaskMerger
{
public:
    explicit TaskMerger(const TuneSlurmRequest& r) : m_request(r), m_merged(r.plan->kernels.size(), false) {}

    void mergeEnded(const cluster::SlurmArrayResult& a, bool arrayOver)
    {
        for (const auto& t : a.tasks)
            if (ended(t, arrayOver)) merge(t);
    }
    const std::string& firstFailure() const { return m_firstFailure; }
    int failures() const { return m_failures; }

private:
    void merge(const cluster::SlurmArrayTask& t)
    {
        if (t.index < 0 || size_t(t.index) >= m_merged.size() || m_merged[size_t(t.index)]) return;
        m_merged[size_t(t.index)] = true;
        const std::string& kernel = m_request.plan->kernels[size_t(t.index)].name;
        const std::string path = taskDbPath(m_request.runsDir, kernel);
        std::error_code ec;
        std::string line;
        if (!std::filesystem::exists(path, ec)) {
            line = "no results from Slurm task " + std::to_string(t.index) + " (" + kernel + "): " + path +
                   " is missing";
            if (t.exitCode != 0) line += " (see " + t.logPath + ")";
            fail(line);
        } else if (auto merged = m_request.db->mergeTaskDb(path); !merged) {
            fail("results of Slurm task " + std::to_string(t.index) + " (" + kernel +
                 ") not merged: " + merged.message());
        } else {
            say("merged Slurm task " + std::to_string(t.index) + " (" + kernel +
                "): " + std::to_string(merged->runs) + " run(s), " + std::to_string(merged->evaluations) +
                " evaluation(s)");
        }
    }
    void fail(const std::string& line)
    {
        if (m_failures++ == 0) m_firstFailure = line;
        say(line);
    }
    void say(const std::string& line) const
    {
        if (m_request.progress) m_request.progress(line);
    }

    const TuneSlurmRequest& m_request;
    std::vector<bool> m_merged;
    std::string m_firstFailure;
    int m_failures = 0;
};

// The plan's kernels (and those it cannot tune) in the tune's database before any task runs, so that
// the report lists every kernel even when a task never records one.
Status recordPlan(const TunePlan& plan, TuneDb& db)
{
    for (const TuneKernel& k : plan.kernels)
        if (auto id = db.upsertKernel(k, plan.sharesNote); !id) return id.error();
    for (const SkippedKernel& s : plan.skipped)
        if (Status r = db.recordSkipped(s.name, s.reason); !r) return r;
    return Ok{};
}

} // namespace

Status runTuneOnSlurm(const TuneSlurmRequest& request)
{
    if (!request.plan || !request.db) return makeError("--launcher slurm: no plan or database");
    std::string why;
    if (!cluster::slurmAvailable(&why)) return makeError("--launcher slurm: " + why);
    std::error_code ec;
    std::filesystem::create_directories(request.logDir, ec);
    if (ec) return makeError("cannot create " + request.logDir + ": " + ec.message());
    if (Status s = recordPlan(*request.plan, *request.db); !s) return s;
    cluster::SlurmOptions o;
    o.partition = request.partition;
    o.gres = request.gres;
    o.time = request.time;
    o.extraArgs = request.extraArgs;
    TaskMerger merger(request);
    std::string last;
    cluster::SlurmArrayResult seen;
    auto result = cluster::runSlurmArray(request.argv, int(request.plan->kernels.size()), o, request.logDir,
                                         request.stop, [&](const cluster::SlurmArrayResult& a) {
                                             std::string line = arrayLine(a);
                                             if (line != last && request.progress) request.progress(line);
                                             last = std::move(line);
                                             merger.mergeEnded(a, false);
                                             seen = a;
                                         });
    // Stopped or lost: what the tasks that ended left is kept all the same (the next tune resumes the
    // others from their checkpoints).
    if (!result) {
        merger.mergeEnded(seen, true);
        return makeError("--launcher slurm: " + result.message());
    }
    merger.mergeEnded(*result, true);
    // A task that failed has said why in its log (its own one-line error), which the report's row for
    // that kernel does not always hold (a task can die before it opens its database).
    for (const auto& t : result->tasks)
        if (t.exitCode != 0)
            return makeError("Slurm task " + std::to_string(t.index) + " of job " + result->jobId +
                             " ended " + (t.state.empty() ? std::string("unknown") : t.state) + " (exit " +
                             std::to_string(t.exitCode) + "): see " + t.logPath);
    if (merger.failures() > 0)
        return makeError(merger.firstFailure() +
                         (merger.failures() > 1
                              ? " (and " + std::to_string(merger.failures() - 1) + " more, above)"
                              : std::string()));
    return Ok{};
}

} // namespace sassx::tune
