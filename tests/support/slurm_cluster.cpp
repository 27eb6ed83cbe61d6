#include "slurm_cluster.h"

#include "core/common/subprocess.h"
#include "core/common/temp_file.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace sassx::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct SlurmCluster::Dir
{
    TempDir temp;
};

namespace {

const char* const kTools[] = {"munged", "mungekey", "slurmctld", "slurmd",  "sbatch",
                              "srun",   "squeue",   "scontrol",  "scancel", "sinfo"};

std::string shortHostName()
{
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    std::string host(name);
    return host.substr(0, host.find('.'));
}

// munged and slurmd live in /usr/sbin, which a non-root PATH may lack.
fs::path findTool(const std::string& name)
{
    if (auto found = findExecutable(name); !found.empty()) return found;
    for (const char* dir : {"/usr/sbin", "/sbin", "/usr/local/sbin"})
        if (::access((fs::path(dir) / name).c_str(), X_OK) == 0) return fs::path(dir) / name;
    return {};
}

bool portFree(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

// Two free ports, starting from one derived from our pid so that parallel test processes start apart.
std::pair<int, int> choosePorts()
{
    int port = 20000 + int(::getpid() * 2 % 30000);
    for (int tries = 0; tries < 500; ++tries, port += 2) {
        if (port > 65000) port = 20000;
        if (portFree(port) && portFree(port + 1)) return {port, port + 1};
    }
    return {0, 0};
}

std::string tailOf(const fs::path& path, size_t lines)
{
    std::ifstream in(path);
    std::vector<std::string> all;
    for (std::string line; std::getline(in, line);)
        all.push_back(line);
    std::string out;
    for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
        out += all[i] + " | ";
    return out;
}

Status writeText(const fs::path& path, const std::string& text)
{
    std::ofstream out(path);
    out << text;
    out.close();
    if (!out) return makeError("cannot write " + path.string());
    return Ok{};
}

} // namespace

std::string SlurmCluster::missing()
{
    for (const char* tool : kTools)
        if (findTool(tool).empty())
            return std::string(tool) +
                   " not found (install the slurm-wlm and munge packages; ./run.sh test does)";
    // slurmd starts every job as its owner, which only root may do; a user-run slurmd is another set-up.
    if (::geteuid() != 0) return "a test Slurm cluster needs root (slurmd runs jobs as their owner)";
    return {};
}

SlurmCluster::SlurmCluster() = default;

SlurmCluster::~SlurmCluster()
{
    stop();
}

std::string SlurmCluster::dir() const
{
    return m_dir ? m_dir->temp.path().string() : std::string();
}

std::string SlurmCluster::conf() const
{
    return dir() + "/slurm.conf";
}

std::string SlurmCluster::logTail() const
{
    return "slurmctld: " + tailOf(dir() + "/slurmctld.log", 3) +
           "slurmd: " + tailOf(dir() + "/slurmd.log", 3);
}

Status SlurmCluster::startDaemon(const std::string& name, const std::vector<std::string>& argv)
{
    const std::string log = dir() + "/" + name + ".out";
    std::vector<std::string> args = argv;
    std::vector<char*> cargs;
    for (auto& a : args)
        cargs.push_back(a.data());
    cargs.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return makeError("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
        // Die with the test: a crashed or killed test must not leave daemons behind.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) _exit(1);
        const int in = ::open("/dev/null", O_RDONLY);
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(in, 0);
        ::dup2(out, 1);
        ::dup2(out, 2);
        ::execve(cargs[0], cargs.data(), environ);
        _exit(127);
    }
    m_daemons.push_back({name, pid});
    return Ok{};
}

Status SlurmCluster::writeConfig(int gpus)
{
    const std::string d = dir(), host = shortHostName();
    for (int i = 0; i < gpus; ++i) {
        // Slurm wants a device file for each GPU; a link to /dev/null is one (a plain file is not).
        std::error_code ec;
        fs::create_symlink("/dev/null", d + "/nvidia" + std::to_string(i), ec);
        if (ec) return makeError("cannot link " + d + "/nvidia" + std::to_string(i) + ": " + ec.message());
    }
    std::ostringstream conf;
    conf << "ClusterName=sassxtest\n"
         << "SlurmctldHost=" << host << "(127.0.0.1)\n"
         << "SlurmUser=root\nAuthType=auth/munge\nAuthInfo=socket=" << d << "/munge/munge.sock\n"
         << "CredType=cred/munge\n"
         << "SlurmctldPort=" << m_ctldPort << "\nSlurmdPort=" << m_slurmdPort << "\n"
         << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool\n"
         << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\n"
         << "SlurmctldLogFile=" << d << "/slurmctld.log\nSlurmdLogFile=" << d << "/slurmd.log\n"
         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
         << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nMpiDefault=none\n"
         << "ReturnToService=2\nJobAcctGatherType=jobacct_gather/none\n"
         << "AccountingStorageType=accounting_storage/none\nMailProg=/bin/true\n"
         // More CPUs than a small test machine has (config_overrides lets slurmd accept that), so a few
         // array tasks run at once; KillWait short so that a cancelled task ends within seconds.
         << "SlurmdParameters=config_overrides\nKillWait=5\n"
         // Array tasks wait for the main scheduler's next pass (about 3 s here by default); every second
         // keeps the tests quick.
         << "SchedulerParameters=sched_interval=1\n"
         << "GresTypes=gpu\n"
         << "NodeName=" << host << " NodeAddr=127.0.0.1 CPUs=8 Gres=gpu:" << gpus << " State=UNKNOWN\n"
         << "PartitionName=" << partition() << " Nodes=" << host
         << " Default=YES MaxTime=INFINITE State=UP\n";
    if (auto ok = writeText(d + "/slurm.conf", conf.str()); !ok) return ok;
    return writeText(d + "/gres.conf",
                     "AutoDetect=off\nName=gpu File=" + d + "/nvidia[0-" + std::to_string(gpus - 1) + "]\n");
}

Status SlurmCluster::waitForIdleNode()
{
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    const fs::path sinfo = findTool("sinfo");
    std::string last;
    while (std::chrono::steady_clock::now() < deadline) {
        for (const auto& daemon : m_daemons) {
            int status = 0;
            if (::waitpid(daemon.pid, &status, WNOHANG) == daemon.pid) {
                const std::string why =
                    daemon.name + " exited at start-up: " + tailOf(dir() + "/" + daemon.name + ".out", 2) +
                    logTail();
                m_daemons.erase(std::find_if(m_daemons.begin(), m_daemons.end(),
                                             [&](const Daemon& d) { return d.pid == daemon.pid; }));
                return makeError(why);
            }
        }
        auto out = runProcess({{sinfo.string(), "-h", "-o", "%T"}, {}, false}, 10s);
        if (out && out->ok()) {
            last = out->out.substr(0, out->out.find('\n'));
            if (last == "idle") return Ok{};
        }
        std::this_thread::sleep_for(100ms);
    }
    return makeError("the Slurm node did not become idle within 30 s (last state '" + last +
                     "'): " + logTail());
}

Status SlurmCluster::start(int gpus)
{
    if (running()) return Ok{};
    Status started = startAll(gpus);
    if (!started) stop(); // what did start must not outlive the failure
    return started;
}

Status SlurmCluster::startAll(int gpus)
{
    if (auto why = missing(); !why.empty()) return makeError(why);
    const auto t0 = std::chrono::steady_clock::now();
    auto temp = TempDir::create("sassx-slurm-");
    if (!temp) return temp.error();
    m_dir = std::make_unique<Dir>(Dir{std::move(temp.value())});
    const std::string d = dir();
    // munged refuses a socket in a directory others cannot enter; mkdtemp made ours 0700.
    ::chmod(d.c_str(), 0755);
    for (const char* sub : {"/munge", "/state", "/spool"})
        fs::create_directories(d + sub);
    ::chmod((d + "/munge").c_str(), 0755);
    auto key =
        runProcess({{findTool("mungekey").string(), "-c", "-k", d + "/munge/munge.key"}, {}, true}, 30s);
    if (!key || !key->ok()) return makeError("mungekey failed: " + (key ? key->out : key.message()));
    if (auto ok = startDaemon(
            "munged", {findTool("munged").string(), "-F", "--socket=" + d + "/munge/munge.sock",
                       "--key-file=" + d + "/munge/munge.key", "--pid-file=" + d + "/munge/munged.pid",
                       "--log-file=" + d + "/munge/munged.log", "--seed-file=" + d + "/munge/munged.seed"});
        !ok)
        return ok;
    std::tie(m_ctldPort, m_slurmdPort) = choosePorts();
    if (m_ctldPort == 0) return makeError("no two free TCP ports for slurmctld and slurmd");
    if (auto ok = writeConfig(gpus); !ok) return ok;
    if (auto ok = startWatchdog(); !ok) return ok;
    if (const char* old = std::getenv("SLURM_CONF")) m_previousConf = old;
    ::setenv("SLURM_CONF", conf().c_str(), 1);
    for (int i = 0; i < 100 && !fs::exists(d + "/munge/munge.sock"); ++i)
        std::this_thread::sleep_for(50ms);
    if (!fs::exists(d + "/munge/munge.sock"))
        return makeError("munged did not create its socket: " + tailOf(d + "/munge/munged.log", 2));
    for (const char* daemon : {"slurmctld", "slurmd"})
        if (auto ok = startDaemon(daemon, {findTool(daemon).string(), "-D", "-f", conf()}); !ok) return ok;
    if (auto ok = waitForIdleNode(); !ok) return ok;
    m_startSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return Ok{};
}

// A shell that outlives a test process killed outright (SIGKILL, a ctest timeout): it waits on a pipe
// only we write to; at end-of-file without our "done" it kills whatever carries this cluster's
// SLURM_CONF (the daemons, a slurmstepd, the tasks) and removes the directory. PR_SET_PDEATHSIG alone
// stops the daemons but not a slurmstepd, which is not our child. A shell, not a forked copy of the
// test, so nothing of a multi-threaded process runs after fork but exec.
Status SlurmCluster::startWatchdog()
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return makeError("pipe: " + std::string(std::strerror(errno)));
    const std::string script =
        "read -r word; [ \"$word\" = done ] && exit 0; "
        "for p in /proc/[0-9]*; do pid=${p#/proc/}; [ \"$pid\" = $$ ] && continue; "
        "tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -qxF \"SLURM_CONF=$1\" && kill -9 $pid; done; "
        "rm -rf \"$2\"";
    const std::string conf = this->conf(), dir = this->dir();
    const pid_t pid = ::fork();
    if (pid < 0) return makeError("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
        ::setsid(); // out of the test's process group, which a harness may kill as a whole
        ::dup2(fds[0], 0);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        ::execl("/bin/sh", "sh", "-c", script.c_str(), "sassx-slurm-watchdog", conf.c_str(), dir.c_str(),
                static_cast<char*>(nullptr));
        _exit(127);
    }
    ::close(fds[0]);
    m_watchdogPid = pid;
    m_watchdogFd = fds[1];
    return Ok{};
}

void SlurmCluster::dismissWatchdog()
{
    if (m_watchdogFd < 0) return;
    (void)!::write(m_watchdogFd, "done\n", 5);
    ::close(m_watchdogFd);
    m_watchdogFd = -1;
    ::waitpid(m_watchdogPid, nullptr, 0);
    m_watchdogPid = -1;
}

bool SlurmCluster::daemonRuns(const std::string& name)
{
    for (const auto& daemon : m_daemons)
        if (daemon.name == name) return ::waitpid(daemon.pid, nullptr, WNOHANG) == 0;
    return false;
}

void SlurmCluster::stopDaemons()
{
    // Reverse order: slurmd, then slurmctld, then munged, which both still need while shutting down.
    for (auto it = m_daemons.rbegin(); it != m_daemons.rend(); ++it) {
        ::kill(it->pid, SIGTERM);
        int status = 0;
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (::waitpid(it->pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() > deadline) {
                ::kill(it->pid, SIGKILL);
                ::waitpid(it->pid, &status, 0);
                break;
            }
            std::this_thread::sleep_for(20ms);
        }
    }
    m_daemons.clear();
}

// Last resort after the daemons are gone: a slurmstepd whose job could not end while the controller was
// up (it ignores SIGTERM and waits for the controller), and the tasks under it. They all carry our
// SLURM_CONF, a path no other cluster uses, so no process of anyone else is touched.
void SlurmCluster::killLeftovers()
{
    const std::string mark = "SLURM_CONF=" + conf();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = pid_t(std::stol(name));
        if (pid == ::getpid()) continue;
        std::ifstream in(entry.path() / "environ", std::ios::binary);
        for (std::string var; std::getline(in, var, '\0');)
            if (var == mark) {
                ::kill(pid, SIGKILL);
                break;
            }
    }
}

void SlurmCluster::stop()
{
    if (running() && daemonRuns("slurmctld")) {
        // Jobs a failed test left behind: their slurmstepd processes are not our children.
        const fs::path scancel = findTool("scancel"), squeue = findTool("squeue");
        const passwd* me = ::getpwuid(::geteuid());
        (void)runProcess(
            {{scancel.string(), "--full", std::string("--user=") + (me ? me->pw_name : "root")}, {}, true},
            10s);
        const auto deadline = std::chrono::steady_clock::now() + 15s;
        while (std::chrono::steady_clock::now() < deadline) {
            auto out = runProcess({{squeue.string(), "-h", "-o", "%i"}, {}, false}, 10s);
            if (!out || !out->ok() || out->out.empty()) break;
            std::this_thread::sleep_for(200ms);
        }
    }
    if (running()) {
        stopDaemons();
        killLeftovers();
    }
    dismissWatchdog();
    if (m_dir) {
        if (m_previousConf)
            ::setenv("SLURM_CONF", m_previousConf->c_str(), 1);
        else
            ::unsetenv("SLURM_CONF");
        m_previousConf.reset();
    }
    m_dir.reset();
}

} // namespace sassx::test
