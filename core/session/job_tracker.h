#pragma once
// One helper for every long job the GUI runs off its thread (loading, analysis, measuring, searches):
// an id, a stop flag, progress, the result handed back as a queued call on the owner's thread, and
// cancel. A result whose job was cancelled or superseded is dropped there, so a slow old job can never
// overwrite what a newer one produced. (KDAB hotspot's JobTracker is the model.)
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace sassx {

// What a running job sees: its stop flag and a way to report progress (0..1, words).
class JobControl
{
public:
    bool stopped() const { return m_stop->load(); }
    const std::atomic_bool* stopFlag() const { return m_stop.get(); }
    void progress(double fraction, const QString& what) const
    {
        if (m_progress) m_progress(fraction, what);
    }

private:
    friend class JobTracker;
    std::shared_ptr<std::atomic_bool> m_stop;
    std::function<void(double, const QString&)> m_progress;
};

class JobTracker
{
public:
    enum class Policy
    {
        Supersede, // starting a job cancels the one before (load: only the newest request matters)
        Queue      // jobs run one after another on the pool; cancel() stops all of them
    };

    JobTracker(QObject* owner, Policy policy, int threads = 1);
    ~JobTracker(); // stops every job and waits for them: they may still call back into the owner
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;

    // Runs `work(control)` on the tracker's pool; then `done(result)` on the owner's thread unless the
    // job was cancelled or superseded meanwhile (then `dropped()` runs instead, if given). Returns the id.
    template <class Work, class Done>
    quint64 start(Work work, Done done, std::function<void()> dropped = {},
                  std::function<void(double, const QString&)> onProgress = {})
    {
        const quint64 id = begin();
        JobControl control = makeControl(id, std::move(onProgress));
        QPointer<QObject> owner = m_owner;
        m_pool.start([this, id, control, owner, work = std::move(work), done = std::move(done),
                      dropped = std::move(dropped)]() mutable {
            auto result = work(control);
            if (!owner) return;
            QMetaObject::invokeMethod(
                owner.data(),
                [this, id, control, result = std::move(result), done = std::move(done),
                 dropped = std::move(dropped)]() mutable {
                    const bool live = finish(id) && !control.stopped();
                    if (live)
                        done(std::move(result));
                    else if (dropped)
                        dropped();
                },
                Qt::QueuedConnection);
        });
        return id;
    }

    void cancel(); // stops every running job; their results are dropped
    bool isRunning() const { return !m_running.empty(); }
    int runningCount() const { return int(m_running.size()); }
    quint64 lastId() const { return m_lastId; }

private:
    quint64 begin();
    JobControl makeControl(quint64 id, std::function<void(double, const QString&)> onProgress);
    bool finish(quint64 id); // false when the job no longer counts

    QObject* m_owner;
    Policy m_policy;
    QThreadPool m_pool;
    quint64 m_lastId = 0;
    std::set<quint64> m_running;
    std::map<quint64, std::shared_ptr<std::atomic_bool>> m_stops;
};

} // namespace sassx
