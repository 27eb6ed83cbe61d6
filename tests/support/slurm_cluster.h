#pragma once
// A real one-node Slurm cluster for tests (docs/cluster.md, "Testing"): munged, slurmctld and slurmd
// started in the foreground under a fresh temporary directory, with ports of its own, two fake GPUs
// (GRES files that are links to /dev/null) and SLURM_CONF exported, so that sbatch, srun, squeue and
// the launcher in core/cluster talk to it. Needs the slurm-wlm and munge packages (./run.sh test
// installs them); where they are missing, tests skip with the reason.
//
// The daemons are our children and get SIGTERM when the test process dies (PR_SET_PDEATHSIG), so a
// crashed or killed test leaves nothing running; stop() (and the destructor) cancels what is still
// queued and stops them by pid.
#include "core/common/result.h"

#include <QTest>

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sassx::test {

class SlurmCluster
{
public:
    // Why a cluster cannot be started here ("slurmctld not found (install slurm-wlm and munge)"), or
    // an empty string when everything needed is installed.
    static std::string missing();

    SlurmCluster();
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    // Starts the daemons and waits until the node is idle. One-line error with the daemons' last log
    // lines when it does not come up.
    Status start(int gpus = 2);
    void stop();
    bool running() const { return !m_daemons.empty(); }

    std::string dir() const;  // the temporary directory with the configuration, state and logs
    std::string conf() const; // slurm.conf (also exported as SLURM_CONF)
    std::string partition() const { return "debug"; }
    double startSeconds() const { return m_startSeconds; } // from the first daemon to an idle node
    std::string logTail() const;                           // the last lines of slurmctld's and slurmd's logs

private:
    struct Daemon
    {
        std::string name;
        pid_t pid = -1;
    };
    Status startAll(int gpus);
    Status startDaemon(const std::string& name, const std::vector<std::string>& argv);
    Status writeConfig(int gpus);
    Status waitForIdleNode();
    Status startWatchdog();
    void dismissWatchdog();
    bool daemonRuns(const std::string& name);
    void stopDaemons();
    void killLeftovers();

    struct Dir;
    std::unique_ptr<Dir> m_dir;
    std::vector<Daemon> m_daemons;
    std::optional<std::string> m_previousConf;
    int m_ctldPort = 0, m_slurmdPort = 0;
    pid_t m_watchdogPid = -1;
    int m_watchdogFd = -1;
    double m_startSeconds = 0;
};

} // namespace sassx::test

// In a test function: skips (with the reason) where Slurm is not installed, else starts `cluster` if
// it is not running yet and fails the test when it cannot start.
#define SASSX_REQUIRE_SLURM(cluster)                                                                         \
    do {                                                                                                     \
        if (const std::string why_ = sassx::test::SlurmCluster::missing(); !why_.empty())                    \
            QSKIP(why_.c_str());                                                                             \
        if (!(cluster).running()) {                                                                          \
            const sassx::Status started_ = (cluster).start();                                                \
            QVERIFY2(started_.ok(), started_.ok() ? "" : started_.message().c_str());                        \
        }                                                                                                    \
    } while (false)
