#include "core/session/job_tracker.h"

namespace sassx {

JobTracker::JobTracker(QObject* owner, Policy policy, int threads) : m_owner(owner), m_policy(policy)
{
    // One at a time by default: evaluators are not re-entrant, and the machine is shared.
    m_pool.setMaxThreadCount(threads);
}

JobTracker::~JobTracker()
{
    cancel();
    m_pool.waitForDone();
}

quint64 JobTracker::begin()
{
    if (m_policy == Policy::Supersede) cancel();
    const quint64 id = ++m_lastId;
    m_running.insert(id);
    m_stops[id] = std::make_shared<std::atomic_bool>(false);
    return id;
}

JobControl JobTracker::makeControl(quint64 id, std::function<void(double, const QString&)> onProgress)
{
    JobControl control;
    control.m_stop = m_stops[id];
    if (onProgress) {
        QPointer<QObject> owner = m_owner;
        auto stop = control.m_stop;
        // Progress crosses to the owner's thread like the result, and stops once the job is dropped.
        control.m_progress = [owner, stop, onProgress](double fraction, const QString& what) {
            if (!owner || stop->load()) return;
            QMetaObject::invokeMethod(
                owner.data(),
                [stop, onProgress, fraction, what] {
                    if (!stop->load()) onProgress(fraction, what);
                },
                Qt::QueuedConnection);
        };
    }
    return control;
}

bool JobTracker::finish(quint64 id)
{
    m_stops.erase(id);
    return m_running.erase(id) > 0;
}

void JobTracker::cancel()
{
    for (auto& [id, stop] : m_stops)
        stop->store(true);
    m_running.clear();
}

} // namespace sassx
