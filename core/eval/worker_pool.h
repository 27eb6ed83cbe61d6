#pragma once
// One sassx-worker process per GPU. Requests are spread over idle workers; each has a deadline. A
// worker that crashes, hangs past its deadline, answers garbage or reports a fault is killed and
// restarted (its baseline replayed), and only the request it was running is marked failed, with
// the reason: a broken candidate never takes down the caller (docs/sass-facts.md §9: one illegal address
// kills the CUDA context, so isolation is by process).
//
// Not thread-safe: use a pool from one thread at a time. It needs no event loop.
#include "core/common/result.h"
#include "core/common/subprocess.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sassx::eval {

struct WorkerPoolOptions
{
    std::string workerPath;              // the sassx-worker executable
    std::vector<std::string> workerArgs; // extra arguments
    std::vector<int> gpus{0};            // one worker each; it sees only that GPU (CUDA_VISIBLE_DEVICES)
    std::chrono::milliseconds requestTimeout{60000};
    std::chrono::milliseconds startTimeout{60000};
    std::chrono::milliseconds baselineTimeout{300000};
    int maxStartFailures = 3; // a slot whose fresh worker fails to come up this often in a row retires
};

struct PoolJob
{
    nlohmann::json request;
    std::chrono::milliseconds timeout{0}; // 0: the pool's requestTimeout
};

struct PoolReply
{
    nlohmann::json response; // the worker's response, or a synthesized {"status":"failed", ...}
    int worker = -1;
    double wallMs = 0.0;
};

class WorkerPool
{
public:
    explicit WorkerPool(WorkerPoolOptions options);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Starts every worker and waits for its "ready" line. Fails only when none came up.
    Status start();
    // Sends load_baseline to every worker and waits for all. Remembered: a restarted worker gets it
    // again (without re-measuring the noise floor, which it inherits from this first answer).
    Result<nlohmann::json> loadBaseline(const nlohmann::json& request);
    // Runs the jobs on the workers, as many at once as there are live workers; replies in job order.
    std::vector<PoolReply> run(std::vector<PoolJob> jobs);
    PoolReply runOne(PoolJob job);
    // Replaces every idle worker by a freshly started process (its baseline replayed, the noise floor
    // inherited): a new context, new buffers, new module placement. Not counted as a restart.
    void renew();
    void shutdown();

    int workerCount() const { return int(m_slots.size()); }
    int liveWorkers() const;
    int restarts() const { return m_restarts; }
    std::string deviceName(int worker) const;
    // Kills, restarts and their reasons, oldest first (for logs and the benchmark reports).
    const std::vector<std::string>& events() const { return m_events; }

private:
    enum class State
    {
        Dead,
        Starting,
        Loading,
        Idle,
        Busy,
        Retired,
    };
    struct Slot
    {
        int gpu = 0;
        std::unique_ptr<Subprocess> proc;
        State state = State::Dead;
        std::chrono::steady_clock::time_point deadline;
        std::chrono::steady_clock::time_point sent;
        int job = -1; // index into the current run's jobs
        int requestId = 0;
        int startFailures = 0;
        std::string device;
        std::string lastError;
    };

    void spawn(Slot& slot);
    void restart(Slot& slot, const std::string& why);
    void retire(Slot& slot, const std::string& why);
    bool sendLine(Slot& slot, const nlohmann::json& message);
    void onLine(Slot& slot, const std::string& line, std::vector<PoolReply>& replies);
    void failJob(Slot& slot, std::vector<PoolReply>& replies, const std::string& kind,
                 const std::string& message);
    // One round of waiting: poll, read lines, enforce deadlines.
    void step(std::vector<PoolReply>& replies, std::chrono::milliseconds maxWait);
    void log(const std::string& message);

    WorkerPoolOptions m_options;
    std::vector<Slot> m_slots;
    std::vector<PoolJob>* m_jobs = nullptr;
    std::deque<int> m_pending;
    std::optional<nlohmann::json> m_baseline; // replayed on restart
    std::optional<nlohmann::json> m_baselineAnswer;
    std::string m_baselineError;
    int m_nextId = 1;
    int m_restarts = 0;
    std::vector<std::string> m_events;
};

} // namespace sassx::eval
