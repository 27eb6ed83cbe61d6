#include "core/cluster/slurm_launcher.h"

#include "core/cluster/slurm_script.h"
#include "core/cluster/slurm_states.h"
#include "core/common/atomic_file.h"
#include "core/common/subprocess.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

namespace sassx::cluster {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Slurm's own client timeout (MessageTimeout) is 10 s by default; a tool that takes far longer than
// that is stuck, not slow.
constexpr auto kToolTimeout = 60s;
// How long squeue may keep failing (a controller restarting or failing over) before we give up.
constexpr auto kControllerOutage = 5min;
// How long a cancelled array may take to end (Slurm's KillWait is 30 s by default) before we stop
// waiting and report "cancelled" anyway.
constexpr auto kCancelWait = 2min;

struct Tools
{
    fs::path sbatch, squeue, scancel, scontrol, sacct; // sacct may be empty
};

Result<Tools> findTools()
{
    Tools tools{findExecutable("sbatch"), findExecutable("squeue"), findExecutable("scancel"),
                findExecutable("scontrol"), findExecutable("sacct")};
    for (const auto& [path, name] : {std::pair{&tools.sbatch, "sbatch"},
                                     {&tools.squeue, "squeue"},
                                     {&tools.scancel, "scancel"},
                                     {&tools.scontrol, "scontrol"}})
        if (path->empty())
            return makeError(std::string(name) +
                             " not found on PATH: Slurm's client tools are not installed here");
    return tools;
}

Result<ProcessOutput> runTool(const fs::path& tool, std::vector<std::string> args)
{
    args.insert(args.begin(), tool.string());
    return runProcess({std::move(args), {}, false}, kToolTimeout);
}

// The line that says why a Slurm tool failed: its first error line ("sbatch: error: ..."), else its
// first line of any kind, else how it ended.
std::string whyFailed(const ProcessOutput& out)
{
    std::string first;
    for (const std::string* text : {&out.err, &out.out}) {
        size_t pos = 0;
        while (pos < text->size()) {
            const size_t nl = std::min(text->find('\n', pos), text->size());
            const std::string line = text->substr(pos, nl - pos);
            pos = nl + 1;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            if (line.find("error") != std::string::npos) return line;
            if (first.empty()) first = line;
        }
    }
    return first.empty() ? out.exit.text() : first;
}

std::string escapePercent(const std::string& path)
{
    std::string out;
    for (char c : path)
        out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
}

std::vector<std::string> commonArgs(const SlurmOptions& options)
{
    std::vector<std::string> args{"--job-name=" + options.jobName};
    if (!options.partition.empty()) args.push_back("--partition=" + options.partition);
    if (!options.gres.empty()) args.push_back("--gres=" + options.gres);
    if (!options.time.empty()) args.push_back("--time=" + options.time);
    if (!options.account.empty()) args.push_back("--account=" + options.account);
    args.insert(args.end(), options.extraArgs.begin(), options.extraArgs.end());
    return args;
}

// Writes the batch script into logDir and submits it; returns the job id.
Result<std::string> submit(const Tools& tools, const std::vector<std::string>& argv, int count,
                           const SlurmOptions& options, const std::string& logDir)
{
    static std::atomic_int counter{0};
    const std::string script =
        logDir + "/sassx-array-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".sh";
    if (auto written = writeFileAtomically(script, arrayTaskScript(argv, logDir)); !written)
        return written.error();
    std::vector<std::string> args{
        "--parsable",
        "--array=0-" + std::to_string(count - 1) +
            (options.maxParallel > 0 ? "%" + std::to_string(options.maxParallel) : std::string()),
        "--output=" + escapePercent(logDir) + "/slurm-%A_%a.out"};
    const auto common = commonArgs(options);
    args.insert(args.end(), common.begin(), common.end());
    args.push_back(script);
    auto out = runTool(tools.sbatch, args);
    if (!out) return makeError("sbatch: " + out.message());
    if (!out->ok()) {
        std::error_code ec;
        fs::remove(script, ec);
        std::string why = whyFailed(*out);
        if (why.rfind("sbatch: ", 0) != 0) why = "sbatch: " + why;
        return makeError(why);
    }
    // --parsable prints "jobid" or "jobid;cluster".
    std::string jobId = out->out.substr(0, out->out.find_first_of(";\n"));
    if (jobId.empty() || jobId.find_first_not_of("0123456789") != std::string::npos)
        return makeError("sbatch printed no job id: " + whyFailed(*out));
    // Beside its logs under the job's own name, for whoever reads them later.
    std::error_code ec;
    fs::rename(script, logDir + "/slurm-" + jobId + ".sh", ec);
    return jobId;
}

std::optional<int> readRcFile(const std::string& path)
{
    std::ifstream in(path);
    int rc = 0;
    if (in >> rc) return rc;
    return std::nullopt;
}

class ArrayWatch
{
public:
    ArrayWatch(const Tools& tools, std::string jobId, int count, std::string logDir,
               const std::atomic_bool* stop, std::function<void(const SlurmArrayResult&)> progress)
        : m_tools(tools), m_logDir(std::move(logDir)), m_stop(stop), m_progress(std::move(progress))
    {
        m_result.jobId = std::move(jobId);
        for (int i = 0; i < count; ++i)
            m_result.tasks.push_back({i, -1, "PENDING", taskLogPath(m_logDir, m_result.jobId, i)});
        m_started.assign(size_t(count), false);
    }

    Result<SlurmArrayResult> run();

private:
    Status waitUntilEnded();
    void settle();
    bool pickUpEndedTasks(const std::map<int, std::string>& listed);
    bool controllerHasLiveTasks() const;
    std::chrono::milliseconds pollInterval() const;
    void sleepOrStop(std::chrono::milliseconds interval) const;
    bool stopRequested() const { return m_stop && m_stop->load(); }
    void notify() const
    {
        if (m_progress) m_progress(m_result);
    }

    const Tools& m_tools;
    std::string m_logDir;
    const std::atomic_bool* m_stop;
    std::function<void(const SlurmArrayResult&)> m_progress;
    SlurmArrayResult m_result;
    std::vector<bool> m_started;
    bool m_cancelled = false;
    std::chrono::steady_clock::time_point m_begin = std::chrono::steady_clock::now();
};

std::chrono::milliseconds ArrayWatch::pollInterval() const
{
    // Quick at first (short tasks, tests), then gentle on the controller for long searches.
    const auto elapsed = std::chrono::steady_clock::now() - m_begin;
    if (elapsed < 15s) return 250ms;
    if (elapsed < 2min) return 1s;
    return 3s;
}

void ArrayWatch::sleepOrStop(std::chrono::milliseconds interval) const
{
    const auto until = std::chrono::steady_clock::now() + interval;
    while (std::chrono::steady_clock::now() < until) {
        if (stopRequested() && !m_cancelled) return;
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(50ms, interval));
    }
}

// Polls squeue until every task has reached a final state or the job has left the queue.
Status ArrayWatch::waitUntilEnded()
{
    auto lastAnswer = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point cancelledAt;
    while (true) {
        if (stopRequested() && !m_cancelled) {
            m_cancelled = true;
            cancelledAt = std::chrono::steady_clock::now();
            (void)runTool(m_tools.scancel, {m_result.jobId}); // a failure shows as tasks that go on
        }
        if (m_cancelled && std::chrono::steady_clock::now() - cancelledAt > kCancelWait) return Ok{};
        auto out = runTool(m_tools.squeue, {"-h", "-r", "-j", m_result.jobId, "-o", "%i %T"});
        if (out && out->ok()) {
            lastAnswer = std::chrono::steady_clock::now();
            const auto states = parseSqueueStates(out->out, m_result.jobId);
            bool changed = pickUpEndedTasks(states), allEnded = true;
            for (const auto& [index, state] : states) {
                if (index < 0 || index >= int(m_result.tasks.size())) continue;
                if (state == "RUNNING" || state == "COMPLETING") m_started[size_t(index)] = true;
                if (!isTerminalState(state)) allEnded = false;
                auto& task = m_result.tasks[size_t(index)];
                if (task.state != state) task.state = state, changed = true;
            }
            if (changed) notify();
            // None listed any more, or all in a final state. An empty answer is checked against the
            // controller's records, so that a job squeue does not show yet is not taken as ended.
            if (allEnded && (!states.empty() || !controllerHasLiveTasks())) return Ok{};
        } else if (out && out->err.find("Invalid job id") != std::string::npos) {
            return Ok{}; // the controller has already forgotten the job
        } else if (std::chrono::steady_clock::now() - lastAnswer > kControllerOutage) {
            return makeError(
                "squeue has not answered for " +
                std::to_string(std::chrono::duration_cast<std::chrono::minutes>(kControllerOutage).count()) +
                " minutes: " + (out ? whyFailed(*out) : out.message()));
        }
        sleepOrStop(pollInterval());
    }
}

bool ArrayWatch::controllerHasLiveTasks() const
{
    auto out = runTool(m_tools.scontrol, {"-o", "show", "job", m_result.jobId});
    if (!out || !out->ok()) return false;
    for (const auto& [index, report] : parseScontrolRecords(out->out, m_result.jobId))
        if (!isTerminalState(report.state)) return true;
    return false;
}

// squeue no longer lists a task that has ended while others go on; its .rc file says how it ended,
// so that progress shows it done without waiting for the whole array.
bool ArrayWatch::pickUpEndedTasks(const std::map<int, std::string>& listed)
{
    bool changed = false;
    for (auto& task : m_result.tasks) {
        if (listed.count(task.index) || isTerminalState(task.state)) continue;
        if (const auto rc = readRcFile(taskRcPath(m_logDir, m_result.jobId, task.index))) {
            task.exitCode = *rc;
            task.state = *rc == 0 ? "COMPLETED" : "FAILED";
            m_started[size_t(task.index)] = true;
            changed = true;
        }
    }
    return changed;
}

// Final states and exit codes: the controller's records (kept for MinJobAge after the end), then
// accounting where it exists, then the .rc files the tasks wrote, which win for the exit code.
void ArrayWatch::settle()
{
    std::map<int, TaskReport> reports;
    if (auto out = runTool(m_tools.scontrol, {"-o", "show", "job", m_result.jobId}); out && out->ok())
        reports = parseScontrolRecords(out->out, m_result.jobId);
    if (reports.size() < m_result.tasks.size() && !m_tools.sacct.empty()) {
        auto out =
            runTool(m_tools.sacct, {"-n", "-P", "-X", "-j", m_result.jobId, "--format=JobID,State,ExitCode"});
        if (out && out->ok())
            for (auto& [index, report] : parseSacctLines(out->out, m_result.jobId))
                reports.emplace(index, report);
    }
    for (auto& task : m_result.tasks) {
        const auto found = reports.find(task.index);
        std::error_code ec;
        if (fs::exists(task.logPath, ec)) m_started[size_t(task.index)] = true;
        if (found != reports.end()) {
            if (!found->second.state.empty()) task.state = found->second.state;
            if (found->second.exitCode) task.exitCode = *found->second.exitCode;
            if (found->second.ranOnNode) m_started[size_t(task.index)] = true;
        }
        if (const auto rc = readRcFile(taskRcPath(m_logDir, m_result.jobId, task.index))) {
            task.exitCode = *rc;
            m_started[size_t(task.index)] = true;
            if (!isTerminalState(task.state)) task.state = *rc == 0 ? "COMPLETED" : "FAILED";
        }
        if (!isTerminalState(task.state) && task.exitCode < 0) task.state = "UNKNOWN";
    }
}

Result<SlurmArrayResult> ArrayWatch::run()
{
    notify();
    if (auto ended = waitUntilEnded(); !ended) return ended.error();
    settle();
    notify();
    if (m_cancelled) return makeError("cancelled");
    std::string never;
    for (const auto& task : m_result.tasks)
        if (!m_started[size_t(task.index)]) never += (never.empty() ? "" : ",") + std::to_string(task.index);
    if (!never.empty())
        return makeError("Slurm job " + m_result.jobId + ": task " + never + " never started (state " +
                         m_result.tasks[size_t(std::stoi(never))].state + "; see " + m_logDir + ")");
    return m_result;
}

} // namespace

Result<SlurmArrayResult> runSlurmArray(const std::vector<std::string>& argv, int count,
                                       const SlurmOptions& options, const std::string& logDir,
                                       const std::atomic_bool* stop,
                                       std::function<void(const SlurmArrayResult&)> progress)
{
    if (argv.empty()) return makeError("slurm: no command to run");
    if (count < 1) return makeError("slurm: an array needs at least one task, not " + std::to_string(count));
    auto tools = findTools();
    if (!tools) return tools.error();
    std::error_code ec;
    fs::create_directories(logDir, ec);
    const fs::path dir = fs::absolute(logDir, ec).lexically_normal();
    if (ec || !fs::is_directory(dir, ec)) return makeError("cannot create log directory " + logDir);
    std::string dirText = dir.string();
    while (dirText.size() > 1 && dirText.back() == '/')
        dirText.pop_back();
    if (stop && stop->load()) return makeError("cancelled");
    auto jobId = submit(*tools, argv, count, options, dirText);
    if (!jobId) return jobId.error();
    return ArrayWatch(*tools, *jobId, count, dirText, stop, std::move(progress)).run();
}

bool slurmAvailable(std::string* why)
{
    auto say = [&](std::string text) {
        if (why) *why = std::move(text);
        return false;
    };
    auto tools = findTools();
    if (!tools) return say(tools.message());
    auto ping = runTool(tools->scontrol, {"ping"});
    if (!ping) return say("scontrol ping: " + ping.message());
    // `scontrol ping` prints "Slurmctld(primary) at HOST is UP" when the controller answers.
    if (!ping->ok() || ping->out.find("is UP") == std::string::npos)
        return say("no Slurm controller answers: " + whyFailed(*ping));
    return true;
}

std::vector<std::string> srunWorkerCommand(const SlurmOptions& options,
                                           const std::vector<std::string>& workerArgv)
{
    const fs::path srun = findExecutable("srun");
    // One task on one node, its stdin from ours (--input=0: to task 0, the only one), and no MPI plug-in
    // to load (a site's default may be PMIx, which a worker does not use).
    std::vector<std::string> argv{srun.empty() ? std::string("srun") : srun.string(), "--nodes=1",
                                  "--ntasks=1", "--input=0", "--mpi=none"};
    const auto common = commonArgs(options);
    argv.insert(argv.end(), common.begin(), common.end());
    argv.insert(argv.end(), workerArgv.begin(), workerArgv.end());
    return argv;
}

} // namespace sassx::cluster
