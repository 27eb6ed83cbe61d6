#include "core/common/subprocess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

extern char** environ;

namespace sassx {

namespace {
constexpr size_t kTailBytes = 4096;

void closeFd(int& fd)
{
    if (fd >= 0) ::close(fd);
    fd = -1;
}

} // namespace

std::string ProcessExit::text() const
{
    const std::string name(enumName(kProcessEndNames, end));
    return end == ProcessEnd::TimedOut ? name : name + " " + std::to_string(code);
}

ProcessExit ProcessExit::fromWaitStatus(int status)
{
    if (WIFEXITED(status)) return {ProcessEnd::Exited, WEXITSTATUS(status)};
    // waitpid() is never asked about stopped or continued children, so what did not exit was signalled.
    return {ProcessEnd::Signaled, WIFSIGNALED(status) ? WTERMSIG(status) : status};
}

Result<std::unique_ptr<Subprocess>> Subprocess::spawn(const Options& options)
{
    if (options.argv.empty()) return makeError("spawn: empty command");
    // A worker that dies must not kill us with SIGPIPE when we write its next request.
    std::signal(SIGPIPE, SIG_IGN);
    // status: closed by a successful exec (close-on-exec), or carries the child's errno when exec fails,
    // so that a missing or non-executable program is an error here, as QProcess reported it, rather
    // than a child that exits 127.
    int in[2], out[2], err[2], status[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(status, O_CLOEXEC))
        return makeError(std::string("pipe: ") + std::strerror(errno));

    // Build argv/envp before fork: the child may only call async-signal-safe functions.
    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e) {
        std::string s(*e);
        bool replaced = false;
        for (const auto& [k, v] : options.env)
            if (s.compare(0, k.size() + 1, k + "=") == 0) replaced = true;
        if (!replaced) envStrings.push_back(std::move(s));
    }
    for (const auto& [k, v] : options.env)
        envStrings.push_back(k + "=" + v);
    std::vector<char*> envp, argv;
    for (auto& s : envStrings)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = options.argv;
    for (auto& s : args)
        argv.push_back(s.data());
    argv.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0) {
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], status[0], status[1]})
            ::close(fd);
        return makeError(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(options.mergeStderr ? out[1] : err[1], 2);
        // Own process group: a kill reaches anything the child spawned (ncu's target, say).
        setpgid(0, 0);
        execve(argv[0], argv.data(), envp.data());
        const int why = errno;
        (void)!write(status[1], &why, sizeof why);
        _exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    ::close(status[1]);
    int why = 0;
    ssize_t got;
    while ((got = ::read(status[0], &why, sizeof why)) < 0 && errno == EINTR) {
    }
    ::close(status[0]);
    if (got == ssize_t(sizeof why)) {
        int ignored = 0;
        while (waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
        }
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        return makeError(std::string("exec: ") + std::strerror(why));
    }
    std::unique_ptr<Subprocess> p(new Subprocess());
    p->m_pid = pid;
    p->m_inFd = in[1];
    p->m_outFd = out[0];
    p->m_errFd = err[0];
    fcntl(p->m_outFd, F_SETFL, O_NONBLOCK);
    fcntl(p->m_errFd, F_SETFL, O_NONBLOCK);
    return p;
}

Subprocess::~Subprocess()
{
    kill();
    closeFd(m_inFd);
    closeFd(m_outFd);
    closeFd(m_errFd);
}

void Subprocess::closeStdin()
{
    closeFd(m_inFd);
}

bool Subprocess::writeAll(std::string_view data)
{
    while (!data.empty()) {
        if (m_inFd < 0) return false;
        const ssize_t n = ::write(m_inFd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            closeFd(m_inFd);
            return false;
        }
        data.remove_prefix(size_t(n));
    }
    return true;
}

void Subprocess::readFrom(int& fd, std::string& buffer, bool tail)
{
    char chunk[65536];
    while (fd >= 0) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n > 0) {
            buffer.append(chunk, size_t(n));
            if (tail && buffer.size() > kTailBytes) buffer.erase(0, buffer.size() - kTailBytes);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        closeFd(fd); // EOF or a real error
    }
}

bool Subprocess::pump()
{
    readFrom(m_errFd, m_errTail, true);
    readFrom(m_outFd, m_out, false);
    return m_outFd >= 0;
}

bool Subprocess::takeLine(std::string& line)
{
    const size_t nl = m_out.find('\n');
    if (nl == std::string::npos) return false;
    line.assign(m_out, 0, nl);
    m_out.erase(0, nl + 1);
    return true;
}

std::string Subprocess::takeOutput()
{
    std::string out;
    out.swap(m_out);
    return out;
}

bool Subprocess::readLine(std::string& line, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (takeLine(line)) return true;
        if (m_outFd < 0) return false;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd fds[2] = {{m_outFd, POLLIN, 0}, {m_errFd, POLLIN, 0}};
        ::poll(fds, m_errFd >= 0 ? 2 : 1, int(std::min<int64_t>(left.count(), 1000)));
        pump();
    }
}

void Subprocess::kill()
{
    if (m_pid <= 0 || m_exit) return;
    ::kill(-m_pid, SIGKILL); // the whole group
    ::kill(m_pid, SIGKILL);
    int status = 0;
    while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_exit = ProcessExit::fromWaitStatus(status);
}

std::optional<ProcessExit> Subprocess::wait(std::chrono::milliseconds timeout)
{
    if (m_exit || m_pid <= 0) return m_exit;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        int status = 0;
        const pid_t r = waitpid(m_pid, &status, WNOHANG);
        if (r == m_pid) {
            m_exit = ProcessExit::fromWaitStatus(status);
            return m_exit;
        }
        if (std::chrono::steady_clock::now() >= deadline) return {};
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

bool Subprocess::running()
{
    return !wait(std::chrono::milliseconds(0));
}

Result<ProcessOutput> runProcess(const Subprocess::Options& options, std::chrono::milliseconds timeout)
{
    auto spawned = Subprocess::spawn(options);
    if (!spawned) return spawned.error();
    Subprocess& p = *spawned.value();
    p.closeStdin();
    ProcessOutput result;
    std::optional<ProcessExit> exit;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto msLeft = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                     std::chrono::steady_clock::now())
            .count();
    };
    // Drain both pipes until EOF: a child blocked on a full stderr pipe would never exit.
    while (!p.stdoutClosed() || p.stderrFd() >= 0) {
        const auto left = msLeft();
        if (left <= 0) {
            p.kill();
            exit = ProcessExit{ProcessEnd::TimedOut, 0};
            break;
        }
        pollfd fds[2] = {{p.stdoutFd(), POLLIN, 0}, {p.stderrFd(), POLLIN, 0}}; // poll skips fd < 0
        ::poll(fds, 2, int(std::min<int64_t>(left, 200)));
        p.pump();
        result.out += p.takeOutput();
    }
    result.out += p.takeOutput();
    if (!exit) {
        exit = p.wait(std::chrono::milliseconds(std::max<int64_t>(1, msLeft())));
        if (!exit) {
            p.kill();
            exit = ProcessExit{ProcessEnd::TimedOut, 0};
        }
    }
    result.exit = *exit;
    result.err = p.stderrTail();
    return result;
}

std::filesystem::path findExecutable(std::string_view name)
{
    namespace fs = std::filesystem;
    auto usable = [](const fs::path& p) {
        std::error_code ec;
        return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
    };
    if (name.empty()) return {};
    if (name.find('/') != std::string_view::npos)
        return usable(fs::path(name)) ? fs::absolute(fs::path(name)).lexically_normal() : fs::path{};
    const char* env = std::getenv("PATH");
    std::string_view dirs = env ? env : "";
    while (!dirs.empty()) {
        const size_t colon = dirs.find(':');
        const std::string_view dir = dirs.substr(0, colon);
        dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
        if (dir.empty()) continue; // an empty entry would mean the working directory: never searched
        const fs::path candidate = fs::path(dir) / fs::path(name);
        if (usable(candidate)) return fs::absolute(candidate).lexically_normal();
    }
    return {};
}

} // namespace sassx
