#pragma once
// A child process with piped stdin/stdout/stderr (POSIX fork/exec + poll). The pool and the ncu
// runner use it instead of QProcess so that core/eval needs no event loop: the pool can run in
// any thread, and the worker, its tests and the benchmarks build without Qt's GUI pieces.
#include "core/common/result.h"

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sassx::eval {

class Subprocess
{
public:
    struct Options
    {
        std::vector<std::string> argv;                        // argv[0] is the program path
        std::vector<std::pair<std::string, std::string>> env; // added to / replacing the parent's
    };

    static Result<std::unique_ptr<Subprocess>> spawn(const Options& options);
    ~Subprocess(); // kills the child if still running
    Subprocess(const Subprocess&) = delete;
    Subprocess& operator=(const Subprocess&) = delete;

    pid_t pid() const { return m_pid; }
    bool writeAll(std::string_view data); // false when the child closed its stdin (died)

    // Moves whatever the child has written into the buffers; false once stdout reached EOF.
    bool pump();
    // Next complete stdout line (without '\n'), if one is buffered.
    bool takeLine(std::string& line);
    // Waits up to `timeout` for a complete stdout line. Returns false on timeout or EOF.
    bool readLine(std::string& line, std::chrono::milliseconds timeout);
    bool stdoutClosed() const { return m_outFd < 0; }
    int stdoutFd() const { return m_outFd; }
    int stderrFd() const { return m_errFd; }
    // The last few KiB the child wrote to stderr, for failure messages.
    std::string stderrTail() const { return m_errTail; }

    // SIGKILL and reap. Safe to call twice.
    void kill();
    // Reaps the child if it exited within `timeout`; returns a description ("exit 3", "signal 9")
    // or an empty string if it is still running.
    std::string wait(std::chrono::milliseconds timeout);
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
    std::string m_exit; // set once reaped
};

struct ProcessOutput
{
    std::string out;
    std::string err;
    std::string exit; // "exit 0", "signal 9", "timeout"
    bool ok() const { return exit == "exit 0"; }
};

// Runs a program to completion, collecting stdout and stderr, killing it after `timeout`.
Result<ProcessOutput> runProcess(const Subprocess::Options& options, std::chrono::milliseconds timeout);

} // namespace sassx::eval
