#pragma once
// A child process with piped stdin/stdout/stderr (POSIX fork/exec + poll), and a run-to-completion
// helper. Used instead of QProcess so that no layer below core/session needs Qt or an event loop: the
// evaluator's pool runs in any thread, the worker builds without Qt, and nvdisasm, nvcc and ptxas run
// the same way from every face of sassx.
#include "core/common/enum_names.h"
#include "core/common/result.h"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sassx {

// How a child process ended, decided on as a value; its text ("exit 3", "signal 9", "timeout") is for
// messages alone.
enum class ProcessEnd
{
    Exited,   // it returned an exit status
    Signaled, // a signal ended it
    TimedOut, // runProcess killed it at its deadline
};

inline constexpr std::array<EnumName<ProcessEnd>, 3> kProcessEndNames{{
    {ProcessEnd::Exited, "exit"},
    {ProcessEnd::Signaled, "signal"},
    {ProcessEnd::TimedOut, "timeout"},
}};

struct ProcessExit
{
    ProcessEnd end = ProcessEnd::Exited;
    int code = 0; // the exit status, or the signal's number; 0 for a timeout
    bool ok() const { return exitedWith(0); }
    bool exitedWith(int status) const { return end == ProcessEnd::Exited && code == status; }
    bool timedOut() const { return end == ProcessEnd::TimedOut; }
    std::string text() const;                      // "exit 3", "signal 9", "timeout"
    static ProcessExit fromWaitStatus(int status); // what waitpid() reported
    friend bool operator==(const ProcessExit&, const ProcessExit&) = default;
};

class Subprocess
{
public:
    struct Options
    {
        std::vector<std::string> argv;                        // argv[0] is the program path (no PATH search)
        std::vector<std::pair<std::string, std::string>> env; // added to / replacing the parent's
        bool mergeStderr = false; // the child's stderr goes to its stdout pipe (one interleaved stream)
    };

    // Fails when the pipes cannot be made, fork fails, or the program cannot be executed ("exec: <why>").
    static Result<std::unique_ptr<Subprocess>> spawn(const Options& options);
    ~Subprocess(); // kills the child if still running
    Subprocess(const Subprocess&) = delete;
    Subprocess& operator=(const Subprocess&) = delete;

    pid_t pid() const { return m_pid; }
    bool writeAll(std::string_view data); // false when the child closed its stdin (died)
    void closeStdin();                    // the child reads EOF from now on

    // Moves whatever the child has written into the buffers; false once stdout reached EOF.
    bool pump();
    // Next complete stdout line (without '\n'), if one is buffered.
    bool takeLine(std::string& line);
    // Everything buffered from stdout so far, complete lines or not.
    std::string takeOutput();
    // Waits up to `timeout` for a complete stdout line. Returns false on timeout or EOF.
    bool readLine(std::string& line, std::chrono::milliseconds timeout);
    bool stdoutClosed() const { return m_outFd < 0; }
    int stdoutFd() const { return m_outFd; }
    int stderrFd() const { return m_errFd; }
    // The last few KiB the child wrote to stderr, for failure messages.
    std::string stderrTail() const { return m_errTail; }

    // SIGKILL and reap. Safe to call twice.
    void kill();
    // Reaps the child if it exited within `timeout`; nothing while it still runs.
    std::optional<ProcessExit> wait(std::chrono::milliseconds timeout);
    bool running();

private:
    Subprocess() = default;
    void readFrom(int& fd, std::string& buffer, bool tail);
    pid_t m_pid = -1;
    int m_inFd = -1;
    int m_outFd = -1;
    int m_errFd = -1;
    std::string m_out;
    std::string m_errTail;
    std::optional<ProcessExit> m_exit; // set once reaped
};

struct ProcessOutput
{
    std::string out; // all of stdout (with mergeStderr: stdout and stderr interleaved)
    std::string err; // the last few KiB of stderr
    ProcessExit exit;
    bool ok() const { return exit.ok(); }
};

// Runs a program to completion with its stdin closed, collecting stdout and stderr, killing it (and
// its process group) after `timeout`. Fails only when it cannot be started.
Result<ProcessOutput> runProcess(const Subprocess::Options& options, std::chrono::milliseconds timeout);

// The first executable regular file called `name` in the directories of $PATH (absolute), or an empty
// path. A name with a '/' is not searched for: it is returned if executable.
std::filesystem::path findExecutable(std::string_view name);

} // namespace sassx
