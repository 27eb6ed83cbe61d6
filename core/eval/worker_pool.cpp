#include "core/eval/worker_pool.h"

#include "core/eval/eval_result.h"
#include "core/eval/protocol.h"

#include <poll.h>

#include <algorithm>

namespace sassx::eval {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

WorkerPool::WorkerPool(WorkerPoolOptions options) : m_options(std::move(options))
{
    if (m_options.gpus.empty()) m_options.gpus = {0};
    m_slots.resize(m_options.gpus.size());
    for (size_t i = 0; i < m_slots.size(); ++i)
        m_slots[i].gpu = m_options.gpus[i];
}

WorkerPool::~WorkerPool()
{
    shutdown();
}

void WorkerPool::log(const std::string& message)
{
    m_events.push_back(message);
}

int WorkerPool::liveWorkers() const
{
    return int(std::count_if(m_slots.begin(), m_slots.end(),
                             [](const Slot& s) { return s.state != State::Retired; }));
}

std::string WorkerPool::deviceName(int worker) const
{
    return worker >= 0 && worker < int(m_slots.size()) ? m_slots[size_t(worker)].device : std::string();
}

void WorkerPool::spawn(Slot& slot)
{
    Subprocess::Options o;
    o.argv.push_back(m_options.workerPath);
    o.argv.insert(o.argv.end(), m_options.workerArgs.begin(), m_options.workerArgs.end());
    if (slot.gpu >= 0) o.env.push_back({"CUDA_VISIBLE_DEVICES", std::to_string(slot.gpu)});
    auto p = Subprocess::spawn(o);
    if (!p) {
        retire(slot, "cannot start " + m_options.workerPath + ": " + p.message());
        return;
    }
    slot.proc = std::move(p.value());
    slot.state = State::Starting;
    slot.deadline = Clock::now() + m_options.startTimeout;
}

void WorkerPool::retire(Slot& slot, const std::string& why)
{
    if (slot.proc) slot.proc->kill();
    slot.proc.reset();
    slot.state = State::Retired;
    slot.lastError = why;
    log("worker on GPU " + std::to_string(slot.gpu) + " retired: " + why);
}

void WorkerPool::restart(Slot& slot, const std::string& why)
{
    log("worker on GPU " + std::to_string(slot.gpu) + " restarted: " + why);
    if (slot.proc) slot.proc->kill();
    slot.proc.reset();
    slot.job = -1;
    ++m_restarts;
    spawn(slot);
}

bool WorkerPool::sendLine(Slot& slot, const json& message)
{
    return slot.proc && slot.proc->writeAll(protocol::encodeLine(message));
}

void WorkerPool::failJob(Slot& slot, std::vector<PoolReply>& replies, const std::string& kind,
                         const std::string& msg)
{
    if (slot.job < 0) return;
    json request = m_jobs ? (*m_jobs)[size_t(slot.job)].request : json::object();
    PoolReply& r = replies[size_t(slot.job)];
    r.response = protocol::makeErrorResponse(request, "failed", kind, msg);
    r.response["source"] = toJson(FigureSource{slot.device, FigureKind::Measured});
    r.worker = int(&slot - m_slots.data());
    r.wallMs = std::chrono::duration<double, std::milli>(Clock::now() - slot.sent).count();
    slot.job = -1;
}

Status WorkerPool::start()
{
    for (Slot& s : m_slots)
        if (s.state == State::Dead) spawn(s);
    std::vector<PoolReply> none;
    while (
        std::any_of(m_slots.begin(), m_slots.end(), [](const Slot& s) { return s.state == State::Starting; }))
        step(none, std::chrono::milliseconds(1000));
    if (liveWorkers() == 0) {
        std::string why;
        for (const Slot& s : m_slots)
            why += (why.empty() ? "" : "; ") + s.lastError;
        return makeError("no worker could start: " + why);
    }
    return Ok{};
}

Result<json> WorkerPool::loadBaseline(const json& request)
{
    m_baseline = request;
    m_baselineAnswer.reset();
    m_baselineError.clear();
    for (Slot& s : m_slots) {
        if (s.state != State::Idle) continue;
        json r = request;
        r["id"] = s.requestId = m_nextId++;
        if (!sendLine(s, r)) {
            restart(s, "worker closed its input");
            continue;
        }
        s.state = State::Loading;
        s.deadline = Clock::now() + m_options.baselineTimeout;
    }
    std::vector<PoolReply> none;
    while (std::any_of(m_slots.begin(), m_slots.end(),
                       [](const Slot& s) { return s.state == State::Starting || s.state == State::Loading; }))
        step(none, std::chrono::milliseconds(1000));
    if (!m_baselineAnswer) {
        m_baseline.reset();
        std::string why = m_baselineError;
        if (why.empty())
            for (const Slot& s : m_slots)
                why += (why.empty() ? "" : "; ") + s.lastError;
        return makeError("load_baseline failed: " + why);
    }
    return *m_baselineAnswer;
}

void WorkerPool::onLine(Slot& slot, const std::string& line, std::vector<PoolReply>& replies)
{
    auto parsed = protocol::parseLine(line);
    if (!parsed) {
        const std::string msg =
            "worker answered something that is not protocol JSON: \"" + line.substr(0, 120) + "\"";
        if (slot.state == State::Busy) failJob(slot, replies, failure::kProtocol, msg);
        restart(slot, msg);
        return;
    }
    const json& j = parsed.value();
    switch (slot.state) {
    case State::Starting: {
        if (j.value("event", std::string()) != "ready") return; // tolerate chatter before ready
        if (j.contains("error")) {
            retire(slot, j.value("error", std::string("worker cannot use its GPU")));
            return;
        }
        slot.device = j.value("device", std::string());
        if (m_baseline) {
            json r = *m_baseline;
            r["id"] = slot.requestId = m_nextId++;
            if (!sendLine(slot, r)) {
                restart(slot, "worker closed its input");
                return;
            }
            slot.state = State::Loading;
            slot.deadline = Clock::now() + m_options.baselineTimeout;
        } else {
            slot.state = State::Idle;
            slot.startFailures = 0;
        }
        return;
    }
    case State::Loading: {
        if (j.value("id", -1) != slot.requestId) return;
        if (j.value("status", std::string()) == "ok") {
            slot.state = State::Idle;
            slot.startFailures = 0;
            if (!m_baselineAnswer) {
                m_baselineAnswer = j;
                // Restarted workers skip the noise measurement and inherit this floor.
                json replay = *m_baseline;
                replay["noise_rounds"] = 0;
                replay["noise_floor"] = j.value("noise_floor", 0.0);
                m_baseline = replay;
            }
        } else if (!m_baselineAnswer) {
            m_baselineError = j.value("error", std::string("load_baseline failed"));
            slot.state = State::Idle;
            if (j.value("status", std::string()) == "fault")
                restart(slot, "fault while loading the baseline");
        } else {
            retire(slot, "baseline reload failed: " + j.value("error", std::string("?")));
        }
        return;
    }
    case State::Busy: {
        if (j.value("id", -1) != slot.requestId) return; // a stale answer to a request we gave up on
        PoolReply& r = replies[size_t(slot.job)];
        r.response = j;
        r.worker = int(&slot - m_slots.data());
        r.wallMs = std::chrono::duration<double, std::milli>(Clock::now() - slot.sent).count();
        slot.job = -1;
        if (j.value("status", std::string()) == "fault")
            restart(slot, "candidate fault: " + j.value("error", std::string()));
        else
            slot.state = State::Idle;
        return;
    }
    default:
        return;
    }
}

void WorkerPool::step(std::vector<PoolReply>& replies, std::chrono::milliseconds maxWait)
{
    std::vector<pollfd> fds;
    auto now = Clock::now();
    auto wait = maxWait;
    for (Slot& s : m_slots) {
        if (!s.proc || s.state == State::Retired || s.state == State::Dead) continue;
        if (s.proc->stdoutFd() >= 0) fds.push_back({s.proc->stdoutFd(), POLLIN, 0});
        if (s.proc->stderrFd() >= 0) fds.push_back({s.proc->stderrFd(), POLLIN, 0});
        if (s.state != State::Idle)
            wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(s.deadline - now));
    }
    if (!fds.empty()) ::poll(fds.data(), fds.size(), int(std::max<int64_t>(0, wait.count())));
    now = Clock::now();
    for (Slot& s : m_slots) {
        if (!s.proc || s.state == State::Retired || s.state == State::Dead) continue;
        Subprocess* proc = s.proc.get();
        proc->pump();
        std::string line;
        while (s.proc.get() == proc && proc->takeLine(line))
            onLine(s, line, replies);
        if (s.proc.get() != proc || s.state == State::Retired) continue; // restarted or retired above
        if (proc->stdoutClosed()) {
            const std::optional<ProcessExit> exit = proc->wait(std::chrono::milliseconds(500));
            const std::string tail = proc->stderrTail();
            const std::string why =
                "worker exited (" + (exit ? exit->text() : std::string("no status")) + ")" +
                (tail.empty() ? "" : ": " + tail.substr(tail.size() > 300 ? tail.size() - 300 : 0));
            if (s.state == State::Busy) {
                failJob(s, replies, failure::kCrash, why);
                restart(s, why);
            } else if (s.state == State::Starting || s.state == State::Loading) {
                if (++s.startFailures >= m_options.maxStartFailures) {
                    if (!m_baselineAnswer && s.state == State::Loading) m_baselineError = why;
                    retire(s, why);
                } else {
                    restart(s, why);
                }
            } else {
                restart(s, why);
            }
            continue;
        }
        if (s.state != State::Idle && now >= s.deadline) {
            if (s.state == State::Busy) {
                const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - s.sent).count();
                const std::string why = "no answer within " + std::to_string(ms) + " ms: worker killed";
                failJob(s, replies, failure::kTimeout, why);
                restart(s, why);
            } else if (++s.startFailures >= m_options.maxStartFailures) {
                retire(s, "worker did not come up in time");
            } else {
                restart(s, "worker did not come up in time");
            }
        }
    }
}

std::vector<PoolReply> WorkerPool::run(std::vector<PoolJob> jobs)
{
    std::vector<PoolReply> replies(jobs.size());
    m_jobs = &jobs;
    m_pending.clear();
    for (size_t i = 0; i < jobs.size(); ++i)
        m_pending.push_back(int(i));
    while (true) {
        for (Slot& s : m_slots) {
            if (m_pending.empty()) break;
            if (s.state != State::Idle) continue;
            const int job = m_pending.front();
            json r = jobs[size_t(job)].request;
            r["id"] = s.requestId = m_nextId++;
            if (!sendLine(s, r)) {
                restart(s, "worker closed its input"); // the job never reached it: keep it queued
                continue;
            }
            m_pending.pop_front();
            s.job = job;
            s.state = State::Busy;
            s.sent = Clock::now();
            const auto t =
                jobs[size_t(job)].timeout.count() > 0 ? jobs[size_t(job)].timeout : m_options.requestTimeout;
            s.deadline = s.sent + t;
        }
        const bool busy =
            std::any_of(m_slots.begin(), m_slots.end(), [](const Slot& s) { return s.state == State::Busy; });
        if (m_pending.empty() && !busy) break;
        if (liveWorkers() == 0) {
            std::string why;
            for (const Slot& s : m_slots)
                why += (why.empty() ? "" : "; ") + s.lastError;
            for (int job : m_pending) {
                replies[size_t(job)].response = protocol::makeErrorResponse(
                    jobs[size_t(job)].request, "failed", failure::kCrash, "no worker left: " + why);
            }
            m_pending.clear();
            break;
        }
        step(replies, std::chrono::milliseconds(1000));
    }
    m_jobs = nullptr;
    return replies;
}

void WorkerPool::renew()
{
    for (Slot& s : m_slots) {
        if (s.state != State::Idle) continue;
        log("worker on GPU " + std::to_string(s.gpu) + " renewed: a fresh process for a final figure");
        if (s.proc) s.proc->kill();
        s.proc.reset();
        spawn(s);
    }
}

PoolReply WorkerPool::runOne(PoolJob job)
{
    std::vector<PoolJob> jobs;
    jobs.push_back(std::move(job));
    return run(std::move(jobs)).front();
}

void WorkerPool::shutdown()
{
    for (Slot& s : m_slots) {
        if (!s.proc) continue;
        if (s.state == State::Idle) sendLine(s, protocol::makeShutdown(m_nextId++));
        if (!s.proc->wait(std::chrono::milliseconds(s.state == State::Idle ? 2000 : 0))) s.proc->kill();
        s.proc.reset();
        s.state = State::Dead;
    }
}

} // namespace sassx::eval
