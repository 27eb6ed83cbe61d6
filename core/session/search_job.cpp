#include "core/session/search_job.h"

#include <QMetaObject>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>
#include <utility>

namespace sassx {

using search::SearchEvaluation;
using search::SearchStatus;

// What the job thread and the owner's thread share for one run: the engine's stop and pause flags,
// and the evaluations reported but not yet handed over.
struct SearchJob::Shared
{
    std::atomic_bool stop{false};
    std::atomic_bool pause{false};
    std::mutex mutex;
    std::vector<std::pair<SearchEvaluation, SearchStatus>> pending;
};

namespace {

// A run of --space auto names its folder once its backend has picked the space: the folder was made as
// "...-climb-auto" before the evaluator was chosen, and is still empty, so it is renamed
// "...-climb-mem" (another number appended when that exists). Kept as it was when it cannot be.
std::string folderForResolvedSpace(const std::string& dir, const search::SearchConfig& resolved)
{
    namespace fs = std::filesystem;
    const fs::path from(dir);
    const std::string name = from.filename().string();
    const std::string tag = "-auto";
    const size_t at = name.rfind(tag);
    if (at == std::string::npos) return dir;
    const std::string rest = name.substr(at + tag.size()); // "" or "-N" when the first name was taken
    if (!rest.empty() && (rest[0] != '-' || rest.find_first_not_of("0123456789", 1) != std::string::npos))
        return dir;
    const std::string stem = name.substr(0, at) + "-" + search::spaceName(resolved.space);
    std::error_code ec;
    fs::path to = from.parent_path() / stem;
    for (int n = 2; fs::exists(to, ec); ++n)
        to = from.parent_path() / (stem + "-" + std::to_string(n));
    if (!fs::is_empty(from, ec) || ec) return dir;
    fs::rename(from, to, ec);
    return ec ? dir : to.string();
}

QString oneLine(const std::string& message)
{
    QString s = QString::fromStdString(message).simplified();
    return s.isEmpty() ? QStringLiteral("the search failed without saying why") : s;
}

} // namespace

SearchJob::SearchJob(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<search::SearchEvaluation>();
    qRegisterMetaType<search::SearchStatus>();
    qRegisterMetaType<SearchJobResult>();
}

SearchJob::~SearchJob()
{
    // The engine polls this flag, not the tracker's: stop it now, then m_jobs waits for it.
    if (m_shared) {
        m_shared->pause = false;
        m_shared->stop = true;
    }
}

bool SearchJob::isStopping() const
{
    return isRunning() && m_shared && m_shared->stop.load();
}

bool SearchJob::start(std::shared_ptr<const KernelWorkspace> kernel, eval::LaunchSpec spec,
                      EvaluatorOptions options, search::SearchConfig config, const QString& outDir,
                      SearchMeasurePlan plan, bool resume)
{
    if (isRunning() || !kernel) return false;
    std::optional<search::SearchState> saved;
    if (resume) {
        auto state = readSearchCheckpoint(outDir.toStdString());
        if (!state) return false;
        saved = std::move(*state);
    }
    auto shared = std::make_shared<Shared>();
    m_shared = shared;
    m_config = config;
    m_kernel = kernel;
    m_outDir = outDir;
    m_backend.clear();
    m_reason.clear();
    m_history.clear();
    m_status = SearchStatus{};
    if (saved) {
        // The rows the checkpoint holds come first; the run streams the ones after them.
        m_config = saved->config;
        m_history = std::move(saved->history);
        m_status.evaluations = int64_t(m_history.size());
    }
    if (m_paused) {
        m_paused = false;
        Q_EMIT pausedChanged(false);
    }

    struct Outcome
    {
        Result<SearchReport> report = makeError("the search did not run");
        std::optional<search::SearchState> state;
        QString backend, reason;
        std::string dir; // the run's folder, named after the space an auto space resolved to
    };
    const std::string dir = outDir.toStdString();
    m_jobs.start(
        [this, shared, kernel, spec = std::move(spec), options, config, dir, plan,
         resume](const JobControl&) {
            Outcome out;
            auto choice = makeEvaluator(options);
            if (!choice) {
                out.report = choice.error();
                return out;
            }
            out.backend = QString::fromStdString(eval::backendName(choice->backend));
            out.reason = QString::fromStdString(choice->reason);
            SearchRun run(kernel, spec, *choice, options);
            // The space --space auto picks for this backend (a resumed run keeps its own).
            const search::SearchConfig resolved = resume ? config : run.resolvedConfig(config);
            out.dir = resume || config.autoSpace == search::AutoSpace::Off
                          ? dir
                          : folderForResolvedSpace(dir, resolved);
            QMetaObject::invokeMethod(
                this,
                [this, shared, backend = out.backend, reason = out.reason, resolved, resume,
                 runDir = out.dir] {
                    if (shared != m_shared) return;
                    m_backend = backend;
                    m_reason = reason;
                    m_outDir = QString::fromStdString(runDir);
                    if (!resume) m_config = resolved;
                    Q_EMIT started(backend, reason);
                },
                Qt::QueuedConnection);

            SearchRunOptions ro;
            ro.config = resolved;
            ro.outDir = out.dir;
            ro.resume = resume;
            ro.plan = plan;
            ro.control.stop = &shared->stop;
            ro.control.pause = &shared->pause;
            search::SearchCallbacks callbacks;
            callbacks.onEvaluation = [this, shared](const SearchEvaluation& e, const SearchStatus& s) {
                bool first = false;
                {
                    std::lock_guard lock(shared->mutex);
                    first = shared->pending.empty();
                    shared->pending.emplace_back(e, s);
                }
                // One hand-over in flight at a time: it takes everything pending when it runs.
                if (first)
                    QMetaObject::invokeMethod(
                        this, [this, shared] { drain(shared); }, Qt::QueuedConnection);
            };
            // Only the final checkpoint is kept (finished, or stopped with a reason): copying the whole
            // history at every checkpoint would cost quadratic time on long runs.
            callbacks.onCheckpoint = [&out](const search::SearchState& s) {
                if (s.finished || s.stopReason) out.state = s;
            };
            out.report = run.run(ro, callbacks);
            if (out.report && !out.state) {
                auto saved = readSearchCheckpoint(out.dir);
                if (saved) out.state = std::move(*saved);
            }
            return out;
        },
        [this, shared](Outcome out) {
            drain(shared); // rows still pending arrive before the result
            if (m_paused) {
                m_paused = false;
                Q_EMIT pausedChanged(false);
            }
            Q_EMIT runningChanged(false);
            if (!out.report) {
                Q_EMIT failed(oneLine(out.report.message()));
                return;
            }
            if (!out.state) {
                Q_EMIT failed(tr("the search finished but left no final state in %1").arg(m_outDir));
                return;
            }
            SearchJobResult result;
            result.report = std::move(*out.report);
            result.state = std::move(*out.state);
            result.outDir = out.dir;
            result.backend = out.backend;
            result.reason = out.reason;
            Q_EMIT finished(result);
        });
    Q_EMIT runningChanged(true);
    return true;
}

void SearchJob::drain(const std::shared_ptr<Shared>& shared)
{
    if (shared != m_shared) return; // a row of an older run
    std::vector<std::pair<SearchEvaluation, SearchStatus>> rows;
    {
        std::lock_guard lock(shared->mutex);
        rows.swap(shared->pending);
    }
    for (auto& [e, s] : rows) {
        m_status = s;
        m_history.push_back(e);
        Q_EMIT evaluation(m_history.back(), m_status);
    }
}

void SearchJob::pause()
{
    if (!isRunning() || m_paused || !m_shared) return;
    m_shared->pause = true;
    m_paused = true;
    Q_EMIT pausedChanged(true);
}

void SearchJob::resume()
{
    if (!m_paused || !m_shared) return;
    m_shared->pause = false;
    m_paused = false;
    Q_EMIT pausedChanged(false);
}

void SearchJob::stop()
{
    if (!isRunning() || !m_shared) return;
    m_shared->stop = true;
    // A paused engine checks the stop flag first, but let it out of the pause anyway.
    m_shared->pause = false;
    if (m_paused) {
        m_paused = false;
        Q_EMIT pausedChanged(false);
    }
}

} // namespace sassx
