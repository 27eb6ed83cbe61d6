#pragma once
// One search at a time off the UI thread: the GUI's face of SearchRun (search_run.h). The run goes
// through a JobTracker like every other long job of the session; its evaluator is made on the job
// thread (makeEvaluator; starting GPU workers takes seconds). Every evaluation comes back to the
// owner's thread as `evaluation`, in step order, batched so a fast backend (the estimate answers
// thousands per second) cannot flood the event queue.
//
// stop() ends the run after the evaluation in flight; SearchRun still checkpoints and writes its
// outputs, and `finished` reports them. Only destroying the job drops a run's result.
#include "core/search/search_engine.h"
#include "core/session/job_tracker.h"
#include "core/session/search_record.h"
#include "core/session/search_run.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace sassx {

// What a finished (or stopped) run hands back: SearchRun's report and the engine's final state.
struct SearchJobResult
{
    SearchReport report;
    search::SearchState state;
    std::string outDir;
    QString backend, reason; // the evaluator the run used, and why
};

class SearchJob : public QObject
{
    Q_OBJECT
public:
    explicit SearchJob(QObject* parent = nullptr);
    ~SearchJob() override; // stops a running search and waits for it; its result is dropped

    // Starts a run, unless one is running (then returns false and changes nothing). With `resume`, the
    // run continues outDir's checkpoint (its configuration wins; a budget in `config` replaces the
    // saved one) and history() starts with the evaluations the checkpoint holds.
    bool start(std::shared_ptr<const KernelWorkspace> kernel, eval::LaunchSpec spec, EvaluatorOptions options,
               search::SearchConfig config, const QString& outDir, SearchMeasurePlan plan = {},
               bool resume = false);
    // Holds the run between evaluations (SearchControl::pause); resume() lets it go on.
    void pause();
    void resume();
    // Ends the run after the evaluation in flight; it still writes its outputs and reports `finished`.
    void stop();

    bool isRunning() const { return m_jobs.isRunning(); }
    bool isPaused() const { return m_paused; }
    bool isStopping() const;

    // The current (or last) run: its configuration (with --space auto resolved once `started` says the
    // backend), kernel, output directory and the evaluations received so far, in step order.
    const search::SearchConfig& config() const { return m_config; }
    const std::shared_ptr<const KernelWorkspace>& kernel() const { return m_kernel; }
    QString outDir() const { return m_outDir; }
    const std::vector<search::SearchEvaluation>& history() const { return m_history; }
    const search::SearchStatus& status() const { return m_status; }
    // Empty until the run has made its evaluator.
    QString backend() const { return m_backend; }
    QString backendReason() const { return m_reason; }

Q_SIGNALS:
    void started(const QString& backend, const QString& reason);
    void evaluation(const sassx::search::SearchEvaluation& row, const sassx::search::SearchStatus& status);
    void finished(const sassx::SearchJobResult& result);
    void failed(const QString& message); // one line
    void runningChanged(bool running);
    void pausedChanged(bool paused);

private:
    struct Shared;
    void drain(const std::shared_ptr<Shared>& shared);

    std::shared_ptr<Shared> m_shared; // the current run's flags and pending rows
    search::SearchConfig m_config;
    std::shared_ptr<const KernelWorkspace> m_kernel;
    QString m_outDir, m_backend, m_reason;
    std::vector<search::SearchEvaluation> m_history;
    search::SearchStatus m_status;
    bool m_paused = false;
    // Last, so it is destroyed first: it waits for the run while everything above still exists.
    JobTracker m_jobs{this, JobTracker::Policy::Queue};
};

} // namespace sassx

Q_DECLARE_METATYPE(sassx::search::SearchEvaluation)
Q_DECLARE_METATYPE(sassx::search::SearchStatus)
Q_DECLARE_METATYPE(sassx::SearchJobResult)
