// The Slurm launcher (core/cluster, docs/cluster.md). The batch script and the parsing of Slurm's output
// are tested everywhere; submitting, waiting, cancelling and srun run against a real one-node Slurm
// started by the test (tests/support/slurm_cluster.h), and skip with the reason where Slurm is not
// installed.
#include "core/cluster/slurm_launcher.h"
#include "core/cluster/slurm_script.h"
#include "core/cluster/slurm_states.h"
#include "core/common/subprocess.h"
#include "core/common/temp_file.h"
#include "slurm_cluster.h"

#include <QTest>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <csignal>

using namespace sassx;
using namespace sassx::cluster;
using namespace std::chrono_literals;

namespace {

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Restores an environment variable when it goes out of scope (also when a QVERIFY returns early).
class EnvOverride
{
public:
    EnvOverride(const char* name, const std::string& value) : m_name(name)
    {
        if (const char* old = std::getenv(name)) m_old = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~EnvOverride()
    {
        if (m_old)
            ::setenv(m_name, m_old->c_str(), 1);
        else
            ::unsetenv(m_name);
    }

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

// A killed process whose parent is gone may stay a zombie for a while (until init reaps it): it no
// longer runs.
bool processRuns(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return false;
    const size_t paren = text.rfind(')');
    return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z' &&
           text[paren + 2] != 'X';
}

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

class TestSlurmLauncher : public QObject
{
    Q_OBJECT

private:
    test::SlurmCluster m_cluster;
    bool m_reportedStart = false;

    void reportStart()
    {
        if (m_reportedStart) return;
        m_reportedStart = true;
        qInfo("test Slurm cluster up in %.2f s (%s)", m_cluster.startSeconds(), m_cluster.dir().c_str());
    }

private slots:
    void cleanupTestCase() { m_cluster.stop(); }

    // The script each task runs: hostile arguments stay literal, {task} becomes the index, and the
    // command's status is both the script's status and the .rc file's content.
    void taskScriptQuotesAndRecordsStatus()
    {
        auto dir = TempDir::create("sassx-slurm-script-");
        QVERIFY(dir.ok());
        const std::string rcDir = dir->path().string();
        const std::vector<std::string> argv = {"sh", "-c", "printf '%s|%s|' \"$0\" \"$1\"; exit 3",
                                               "it's task {task}{task}", "$HOME `id` \"q\" {tas"};
        const std::string script = rcDir + "/task.sh";
        std::ofstream(script) << arrayTaskScript(argv, rcDir);
        auto out = runProcess(
            {{"/bin/sh", script}, {{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_JOB_ID", "42"}}}, 10s);
        QVERIFY(out.ok());
        QCOMPARE(out->out, std::string("it's task 77|$HOME `id` \"q\" {tas|"));
        QVERIFY2(out->exit.exitedWith(3), out->exit.text().c_str());
        QCOMPARE(readFile(taskRcPath(rcDir, "42", 7)), std::string("3\n"));
        QVERIFY(!std::filesystem::exists(taskRcPath(rcDir, "42", 7) + ".tmp"));
        QCOMPARE(shellWordWithTask(""), std::string("''"));
        QCOMPARE(shellWordWithTask("{task}"), std::string("\"$SLURM_ARRAY_TASK_ID\""));
    }

    // Output captured from Slurm 22.05 (squeue -r, scontrol -o show job, sacct -P).
    void parsesSlurmOutput()
    {
        const auto states = parseSqueueStates("1_2 PENDING\n1_1 RUNNING\n1_0 COMPLETING\n9_0 RUNNING\n"
                                              "1_[3-4] PENDING\n",
                                              "1");
        QCOMPARE(states.size(), size_t(3));
        QCOMPARE(states.at(0), std::string("COMPLETING"));
        QCOMPARE(states.at(2), std::string("PENDING"));

        const std::string scontrol =
            "JobId=3 ArrayJobId=1 ArrayTaskId=1 JobName=wrap JobState=FAILED Reason=NonZeroExitCode "
            "ExitCode=1:0 NodeList=vm BatchHost=vm\n"
            "JobId=2 ArrayJobId=1 ArrayTaskId=0 JobName=wrap JobState=CANCELLED Reason=None ExitCode=0:15 "
            "NodeList=vm BatchHost=vm\n"
            "JobId=1 ArrayJobId=1 ArrayTaskId=2-3%1 JobName=wrap JobState=CANCELLED Reason=None "
            "ExitCode=0:0 NodeList=(null)\n"
            "JobId=7 ArrayJobId=7 ArrayTaskId=0 JobState=COMPLETED ExitCode=0:0 NodeList=vm\n";
        const auto reports = parseScontrolRecords(scontrol, "1");
        QCOMPARE(reports.size(), size_t(4));
        QCOMPARE(reports.at(1).state, std::string("FAILED"));
        QCOMPARE(reports.at(1).exitCode.value_or(-1), 1);
        QCOMPARE(reports.at(1).reason, std::string("NonZeroExitCode"));
        QCOMPARE(reports.at(0).exitCode.value_or(-1), 128 + 15);
        QVERIFY(reports.at(0).ranOnNode);
        QVERIFY(!reports.at(3).ranOnNode);
        QVERIFY(!reports.at(3).exitCode); // a queued task's 0:0 is not an exit status

        const auto sacct = parseSacctLines("5_0|COMPLETED|0:0\n5_1|CANCELLED by 0|0:15\n5_[2-3]|CANCELLED by "
                                           "0|0:0\n",
                                           "5");
        QCOMPARE(sacct.size(), size_t(4));
        QCOMPARE(sacct.at(1).state, std::string("CANCELLED"));
        QCOMPARE(sacct.at(1).exitCode.value_or(-1), 143);
        QVERIFY(!sacct.at(3).exitCode);

        QVERIFY(!parseExitCode("x"));
        QVERIFY(isTerminalState("TIMEOUT"));
        QVERIFY(!isTerminalState("COMPLETING"));
    }

    void sbatchMissingIsOneLine()
    {
        auto empty = TempDir::create("sassx-no-slurm-");
        QVERIFY(empty.ok());
        EnvOverride path("PATH", empty->path().string());
        auto result = runSlurmArray({"true"}, 1, {}, (empty->path() / "logs").string());
        QVERIFY(!result.ok());
        QVERIFY2(result.message().find("sbatch not found") != std::string::npos, result.message().c_str());
        QVERIFY(result.message().find('\n') == std::string::npos);
        std::string why;
        QVERIFY(!slurmAvailable(&why));
        QVERIFY2(why.find("sbatch") != std::string::npos, why.c_str());
    }

    void srunCommandShape()
    {
        SlurmOptions options;
        options.gres = "gpu:1";
        options.partition = "gpu";
        options.extraArgs = {"--exclusive"};
        const auto argv = srunWorkerCommand(options, {"/opt/sassx-worker", "--serve"});
        QVERIFY(argv.size() > 4);
        QVERIFY(argv.front() == "srun" || argv.front().ends_with("/srun"));
        auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
        QVERIFY(has("--ntasks=1") && has("--gres=gpu:1") && has("--partition=gpu") && has("--exclusive"));
        QVERIFY(!has("--unbuffered") && !has("-u") && !has("--pty"));
        QCOMPARE(argv[argv.size() - 2], std::string("/opt/sassx-worker"));
        QCOMPARE(argv.back(), std::string("--serve"));
    }

    void slurmAvailableWithCluster()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        reportStart();
        std::string why;
        QVERIFY2(slurmAvailable(&why), why.c_str());
    }

    void arrayOfThreeReportsExitCodesAndLogs()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        reportStart();
        auto logs = TempDir::create("sassx-slurm-logs-");
        QVERIFY(logs.ok());
        const std::string logDir = (logs->path() / "runs").string();
        int calls = 0;
        std::string lastStates;
        const auto t0 = std::chrono::steady_clock::now();
        auto result = runSlurmArray({"sh", "-c", "echo task {task}; exit $(({task} % 2))"}, 3, {}, logDir,
                                    nullptr, [&](const SlurmArrayResult& r) {
                                        ++calls;
                                        lastStates.clear();
                                        for (const auto& t : r.tasks)
                                            lastStates += t.state + " ";
                                    });
        const double seconds = secondsSince(t0);
        QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
        qInfo("array of 3 tasks, sbatch to all exit codes: %.2f s", seconds);
        QVERIFY(!result->jobId.empty());
        QCOMPARE(result->tasks.size(), size_t(3));
        for (int i = 0; i < 3; ++i) {
            const auto& task = result->tasks[size_t(i)];
            QCOMPARE(task.index, i);
            QCOMPARE(task.exitCode, i % 2);
            QCOMPARE(task.state, std::string(i % 2 ? "FAILED" : "COMPLETED"));
            QCOMPARE(task.logPath, logDir + "/slurm-" + result->jobId + "_" + std::to_string(i) + ".out");
            QCOMPARE(readFile(task.logPath), "task " + std::to_string(i) + "\n");
        }
        QVERIFY(calls >= 2);
        QCOMPARE(lastStates, std::string("COMPLETED FAILED COMPLETED "));
        QVERIFY(std::filesystem::exists(logDir + "/slurm-" + result->jobId + ".sh"));
    }

    // maxParallel = 1 (--array=0-2%1): the tasks run one after another.
    void throttleRunsTasksOneAtATime()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        auto logs = TempDir::create("sassx-slurm-logs-");
        QVERIFY(logs.ok());
        SlurmOptions options;
        options.maxParallel = 1;
        auto result = runSlurmArray({"sh", "-c", "date +%s.%N; sleep 0.3; date +%s.%N"}, 3, options,
                                    logs->path().string());
        QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
        std::vector<std::pair<double, double>> spans;
        for (const auto& task : result->tasks) {
            QCOMPARE(task.exitCode, 0);
            std::istringstream log(readFile(task.logPath));
            double begin = 0, end = 0;
            QVERIFY(log >> begin >> end);
            spans.emplace_back(begin, end);
        }
        std::sort(spans.begin(), spans.end());
        for (size_t i = 1; i < spans.size(); ++i)
            QVERIFY2(spans[i].first >= spans[i - 1].second, "two tasks of a %1 array overlapped");
    }

    void gresGivesEachTaskAGpu()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        auto logs = TempDir::create("sassx-slurm-logs-");
        QVERIFY(logs.ok());
        SlurmOptions options;
        options.gres = "gpu:1";
        options.jobName = "sassx-gres";
        auto result = runSlurmArray({"sh", "-c", "echo \"gpu=$CUDA_VISIBLE_DEVICES\""}, 2, options,
                                    logs->path().string());
        QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
        for (const auto& task : result->tasks) {
            QCOMPARE(task.exitCode, 0);
            const std::string log = readFile(task.logPath);
            QVERIFY2(std::regex_match(log, std::regex("gpu=[01]\n")), log.c_str());
        }
    }

    void stopCancelsTheJob()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        auto logs = TempDir::create("sassx-slurm-logs-");
        QVERIFY(logs.ok());
        const std::string dir = logs->path().string();
        // Each task writes its pid, then becomes `sleep 300`; the flag turns once both are asleep.
        std::atomic_bool stop{false};
        std::thread flagger([&] {
            for (int i = 0; i < 1200 && !stop; ++i) {
                if (std::filesystem::exists(dir + "/pid-0") && std::filesystem::exists(dir + "/pid-1")) break;
                std::this_thread::sleep_for(50ms);
            }
            stop = true;
        });
        std::string jobId;
        const auto t0 = std::chrono::steady_clock::now();
        auto result = runSlurmArray({"sh", "-c",
                                     "echo $$ > " + dir + "/pid-{task}.tmp && mv " + dir +
                                         "/pid-{task}.tmp " + dir + "/pid-{task}; exec sleep 300"},
                                    2, {}, dir, &stop, [&](const SlurmArrayResult& r) { jobId = r.jobId; });
        flagger.join();
        QVERIFY(!result.ok());
        QCOMPARE(result.message(), std::string("cancelled"));
        QVERIFY(!jobId.empty());
        QVERIFY2(secondsSince(t0) < 60, "cancelling took longer than Slurm's KillWait allows");
        // Nothing of the job is left: not in the queue, and both sleeps are gone.
        auto q = runProcess(
            {{findExecutable("squeue").string(), "-h", "-r", "-j", jobId, "-o", "%i %T"}, {}, false}, 20s);
        QVERIFY(q.ok());
        QVERIFY2(q->out.find("RUNNING") == std::string::npos && q->out.find("PENDING") == std::string::npos,
                 q->out.c_str());
        for (int i = 0; i < 2; ++i) {
            const pid_t pid = pid_t(std::stol(readFile(dir + "/pid-" + std::to_string(i))));
            QVERIFY(pid > 0);
            QVERIFY2(!processRuns(pid), "a cancelled task is still running");
        }
        // A cancelled task records no exit status of its own.
        QVERIFY(!std::filesystem::exists(taskRcPath(dir, jobId, 0)));
    }

    // Tasks cancelled from outside while still queued (held here) never ran: a one-line error.
    void taskThatNeverStartedIsAnError()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        auto logs = TempDir::create("sassx-slurm-logs-");
        QVERIFY(logs.ok());
        SlurmOptions options;
        options.extraArgs = {"--hold"};
        bool cancelled = false;
        auto result = runSlurmArray(
            {"true"}, 2, options, logs->path().string(), nullptr, [&](const SlurmArrayResult& r) {
                if (cancelled) return;
                cancelled = true;
                (void)runProcess({{findExecutable("scancel").string(), r.jobId}, {}, false}, 20s);
            });
        QVERIFY(!result.ok());
        QVERIFY2(result.message().find("never started") != std::string::npos, result.message().c_str());
        QVERIFY(result.message().find("task 0,1") != std::string::npos);
        QVERIFY(result.message().find('\n') == std::string::npos);
    }

    void badPartitionIsSbatchsError()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        auto logs = TempDir::create("sassx-slurm-logs-");
        QVERIFY(logs.ok());
        SlurmOptions options;
        options.partition = "no-such-partition";
        auto result = runSlurmArray({"true"}, 2, options, logs->path().string());
        QVERIFY(!result.ok());
        QVERIFY2(result.message().rfind("sbatch: ", 0) == 0, result.message().c_str());
        QVERIFY2(result.message().find("partition") != std::string::npos, result.message().c_str());
        QVERIFY(result.message().find('\n') == std::string::npos);
    }

    // A worker behind srun: stdin and stdout pass line by line (a long line intact), the GPU is bound,
    // and closing stdin ends the task with its exit status.
    void srunForwardsLinesBothWays()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        SlurmOptions options;
        options.gres = "gpu:1";
        options.jobName = "sassx-worker";
        const auto argv = srunWorkerCommand(
            options,
            {"/bin/sh", "-c",
             "echo \"gpu=$CUDA_VISIBLE_DEVICES\"; while IFS= read -r l; do printf '%s\\n' \"$l\"; done; "
             "exit 4"});
        auto spawned = Subprocess::spawn({argv, {}, false});
        QVERIFY2(spawned.ok(), spawned.ok() ? "" : spawned.message().c_str());
        Subprocess& srun = *spawned.value();
        std::string line;
        QVERIFY2(srun.readLine(line, 60s), srun.stderrTail().c_str());
        QVERIFY2(line == "gpu=0" || line == "gpu=1", line.c_str());
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 20; ++i) {
            const std::string request = "{\"id\":" + std::to_string(i) + "}";
            QVERIFY(srun.writeAll(request + "\n"));
            QVERIFY2(srun.readLine(line, 30s), srun.stderrTail().c_str());
            QCOMPARE(line, request);
        }
        qInfo("srun line round trip: %.2f ms mean over 20", secondsSince(t0) * 1000 / 20);
        const std::string big(1 << 20, 'x');
        QVERIFY(srun.writeAll(big + "\n"));
        QVERIFY(srun.readLine(line, 30s));
        QCOMPARE(line.size(), big.size());
        QVERIFY(line == big);
        srun.closeStdin();
        QVERIFY(!srun.readLine(line, 30s)); // EOF, no stray output
        const std::optional<ProcessExit> srunExit = srun.wait(30s);
        QVERIFY2(srunExit && srunExit->exitedWith(4), srunExit ? srunExit->text().c_str() : "still running");
    }

    // Stopping a worker behind srun: SIGTERM to srun ends the remote task and its allocation. (A
    // SIGKILLed srun cannot: the task runs on until the site's InactiveLimit or an scancel; see
    // docs/cluster.md.)
    void srunEndsTheTaskOnSigterm()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        SlurmOptions options;
        options.jobName = "sassx-sigterm";
        const auto argv = srunWorkerCommand(options, {"/bin/sh", "-c", "echo up; exec sleep 300"});
        auto spawned = Subprocess::spawn({argv, {}, false});
        QVERIFY2(spawned.ok(), spawned.ok() ? "" : spawned.message().c_str());
        Subprocess& srun = *spawned.value();
        std::string line;
        QVERIFY2(srun.readLine(line, 60s), srun.stderrTail().c_str());
        QCOMPARE(line, std::string("up"));
        ::kill(srun.pid(), SIGTERM);
        QVERIFY(srun.wait(30s).has_value());
        const auto squeue = findExecutable("squeue").string();
        std::string left = "?";
        for (int i = 0; i < 100 && !left.empty(); ++i) {
            auto q = runProcess({{squeue, "-h", "--name=sassx-sigterm", "-o", "%i %T"}, {}, false}, 20s);
            QVERIFY(q.ok());
            left = q->out;
            if (!left.empty()) std::this_thread::sleep_for(100ms);
        }
        QVERIFY2(left.empty(), left.c_str());
    }

    // Last: with the controller gone, slurmAvailable says so in one line.
    void unavailableWithoutController()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        // The configuration outlives the cluster (stop() removes its directory), so that the tools
        // still know where the controller was.
        auto saved = TempDir::create("sassx-slurm-conf-");
        QVERIFY(saved.ok());
        for (const char* name : {"slurm.conf", "gres.conf"})
            std::filesystem::copy_file(m_cluster.dir() + "/" + name, saved->path() / name);
        m_cluster.stop();
        EnvOverride env("SLURM_CONF", (saved->path() / "slurm.conf").string());
        const auto t0 = std::chrono::steady_clock::now();
        std::string why;
        QVERIFY(!slurmAvailable(&why));
        QVERIFY2(!why.empty() && why.find('\n') == std::string::npos, why.c_str());
        qInfo("without a controller (%.1f s): %s", secondsSince(t0), why.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSlurmLauncher)
#include "test_slurm_launcher.moc"
