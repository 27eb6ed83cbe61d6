#pragma once
// The Session's measuring part: measurements and warp-stall samples of variants, one at a time in the
// order asked (a JobTracker queue), through one evaluator per kernel and launch spec made on first use
// (core/session/kernel_evaluator.h). Results land on the variant tree, which drops those whose variant
// changed meanwhile.
#include "core/eval/stall_profile.h"
#include "core/rewrite/variant.h"
#include "core/session/evaluator_options.h"
#include "core/session/job_tracker.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace sassx {

namespace eval {
class Evaluator;
}
class KernelWorkspace;
class VariantTree;
struct Edit;

class MeasureQueue : public QObject
{
    Q_OBJECT
public:
    explicit MeasureQueue(VariantTree* variants, QObject* parent = nullptr);
    ~MeasureQueue() override;

    // Measures with this evaluator instead of one made from the evaluator options (tests, tools).
    void setEvaluator(std::shared_ptr<eval::Evaluator> evaluator);
    // Empty when `variantId` can be measured now, else the reason in words.
    QString measureUnavailableReason(int variantId) const;
    quint64 measure(int variantId);
    // Samples where the warps of `variantId` wait (one launch, GPU only), queued with measurements;
    // stallsFinished or stallsFailed follow. The samples stay with the variant until its edits change.
    quint64 sampleStalls(int variantId);
    // Attaches samples read from `path` (a stall profile, or `sassx-cli stalls --json` output) to
    // `variantId`; false with the reason when they belong to another kernel or code.
    bool importStalls(int variantId, const QString& path, QString* error = nullptr);
    // Stops every queued and running measurement; each reports measureFailed("cancelled").
    void cancelMeasure();
    bool isMeasuring() const { return m_jobs.isRunning(); }
    // "gpu" or "estimate" and why, once the first measurement chose; empty before.
    QString evaluatorBackend() const { return m_evaluatorBackend; }
    QString evaluatorReason() const { return m_evaluatorReason; }

    // ---- for the Session: what the evaluator is made from; each change starts a new one --------
    void setLaunchSpec(const QString& path);
    void setEvaluatorOptions(const EvaluatorOptions& options);
    void reset(); // a new kernel: the old evaluator (and its baseline) is of no use

Q_SIGNALS:
    void measureStarted(int id);
    void measureFinished(int id);
    void measureFailed(int id, const QString& message);
    void stallsStarted(int id);
    void stallsFinished(int id);
    void stallsFailed(int id, const QString& message);
    void evaluatorChosen(const QString& backend, const QString& reason);

private:
    struct State;
    // What a measure or stall job takes to its thread: the variant's edits and schedule, the kernel, and
    // the evaluator's holder and options as they are now.
    struct JobInput
    {
        std::vector<Edit> edits;
        std::shared_ptr<const KernelWorkspace> kernel;
        std::shared_ptr<State> state;
        std::shared_ptr<eval::Evaluator> injected;
        EvaluatorOptions options;
        std::string specPath;
        Schedule schedule;
    };
    // The job's input, or why the variant cannot be measured now (one line).
    Result<JobInput> jobInput(int variantId) const;
    bool attachStalls(int variantId, const std::vector<Edit>& edits,
                      const std::shared_ptr<const KernelWorkspace>& kernel, eval::StallProfile profile,
                      QString* error);

    VariantTree* m_variants;
    JobTracker m_jobs{this, JobTracker::Policy::Queue};
    QString m_launchSpec;
    EvaluatorOptions m_options;
    std::shared_ptr<eval::Evaluator> m_injectedEvaluator;
    // The evaluator of the current kernel and spec; only the measure thread touches its inside. A new
    // kernel, spec or evaluator replaces the holder, so a job still running keeps the one it started with.
    std::shared_ptr<State> m_state;
    QString m_evaluatorBackend, m_evaluatorReason;
};

} // namespace sassx
