#include "core/session/measure_queue.h"

#include "core/eval/evaluator.h"
#include "core/session/kernel_evaluator.h"
#include "core/session/kernel_stalls.h"
#include "core/session/variant_tree.h"

#include <QDateTime>

#include <chrono>

namespace sassx {

// The measure thread's side: one evaluator, made on that thread on first use and used only there.
struct MeasureQueue::State
{
    std::unique_ptr<KernelEvaluator> evaluator;
};

MeasureQueue::MeasureQueue(VariantTree* variants, QObject* parent) : QObject(parent), m_variants(variants)
{
    reset();
}

// The job tracker stops its jobs and waits for them; queued results die with the object.
MeasureQueue::~MeasureQueue() = default;

void MeasureQueue::reset()
{
    m_state = std::make_shared<State>();
}

void MeasureQueue::setLaunchSpec(const QString& path)
{
    m_launchSpec = path;
    reset(); // the baseline belongs to the old spec
}

void MeasureQueue::setEvaluatorOptions(const EvaluatorOptions& options)
{
    m_options = options;
    reset();
}

void MeasureQueue::setEvaluator(std::shared_ptr<eval::Evaluator> evaluator)
{
    m_injectedEvaluator = std::move(evaluator);
    reset();
}

QString MeasureQueue::measureUnavailableReason(int variantId) const
{
    if (!m_variants->kernel() || !m_variants->variant(variantId)) return tr("No kernel is open.");
    if (m_launchSpec.isEmpty())
        return tr(
            "No launch spec: choose one with File ▸ Set Launch Spec… (the evaluator needs to know how to "
            "run the kernel).");
    return {};
}

namespace {

// The measure thread's side: make the evaluator on first use (starting GPU workers takes seconds),
// then measure. Only this function touches the state's inside, and jobs run one at a time.
Result<VariantFigures> measureOnThread(KernelEvaluator*& evaluator, std::unique_ptr<KernelEvaluator>& owned,
                                       const std::shared_ptr<const KernelWorkspace>& kernel,
                                       const std::shared_ptr<eval::Evaluator>& injected,
                                       const EvaluatorOptions& options, const std::string& specPath,
                                       const Schedule& schedule, const JobControl& job)
{
    if (Status s = ensureKernelEvaluator(owned, kernel, injected, options, specPath); !s) return s.error();
    evaluator = owned.get();
    if (job.stopped()) return makeError("cancelled");
    const auto t0 = std::chrono::steady_clock::now();
    MeasureOptions mo;
    mo.metrics = true;
    mo.stop = job.stopFlag();
    auto measured = owned->measure(schedule, mo);
    if (!measured) return measured.error();
    VariantFigures figures;
    figures.result = std::move(*measured);
    figures.result.wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    figures.when = QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
    return figures;
}

} // namespace

Result<MeasureQueue::JobInput> MeasureQueue::jobInput(int variantId) const
{
    const QString why = measureUnavailableReason(variantId);
    if (!why.isEmpty()) return makeError(why.toStdString());
    const VariantRecord* v = m_variants->variant(variantId);
    JobInput in;
    in.kernel = m_variants->kernel();
    auto scheduled = in.kernel->schedule(v->edits);
    if (!scheduled) return scheduled.error();
    in.edits = v->edits;
    in.state = m_state;
    in.injected = m_injectedEvaluator;
    in.options = m_options;
    in.specPath = m_launchSpec.toStdString();
    in.schedule = std::move(*scheduled);
    return in;
}

quint64 MeasureQueue::measure(int variantId)
{
    auto input = jobInput(variantId);
    if (!input) {
        Q_EMIT measureFailed(variantId, QString::fromStdString(input.message()));
        return 0;
    }
    const JobInput in = std::move(*input);
    struct Outcome
    {
        Result<VariantFigures> figures = makeError("not run");
        QString backend, reason;
    };
    Q_EMIT measureStarted(variantId);
    return m_jobs.start(
        [in](const JobControl& job) {
            Outcome out;
            KernelEvaluator* used = nullptr;
            out.figures = measureOnThread(used, in.state->evaluator, in.kernel, in.injected, in.options,
                                          in.specPath, in.schedule, job);
            if (used) {
                out.backend = QString::fromStdString(eval::backendName(used->choice().backend));
                out.reason = QString::fromStdString(used->choice().reason);
            }
            return out;
        },
        [this, variantId, edits = in.edits, kernel = in.kernel](Outcome out) {
            if (!out.backend.isEmpty() &&
                (out.backend != m_evaluatorBackend || out.reason != m_evaluatorReason)) {
                m_evaluatorBackend = out.backend;
                m_evaluatorReason = out.reason;
                Q_EMIT evaluatorChosen(out.backend, out.reason);
            }
            if (!out.figures) {
                Q_EMIT measureFailed(variantId, QString::fromStdString(out.figures.message()));
                return;
            }
            if (!m_variants->attachFigures(variantId, edits, kernel, std::move(*out.figures))) {
                Q_EMIT measureFailed(variantId, tr("the variant changed while it was being measured"));
                return;
            }
            Q_EMIT measureFinished(variantId);
        },
        [this, variantId] { Q_EMIT measureFailed(variantId, tr("cancelled")); });
}

void MeasureQueue::cancelMeasure()
{
    m_jobs.cancel();
}

// ---- warp-stall samples (docs/stalls.md) ------------------------------------------------------------
// Sampling runs on the measure queue through the same evaluator as measurements; imported samples go
// through the same checks.

quint64 MeasureQueue::sampleStalls(int variantId)
{
    auto input = jobInput(variantId);
    if (!input) {
        Q_EMIT stallsFailed(variantId, QString::fromStdString(input.message()));
        return 0;
    }
    const JobInput in = std::move(*input);
    Q_EMIT stallsStarted(variantId);
    // On the measure queue: one evaluator, one GPU job at a time.
    return m_jobs.start(
        [in](const JobControl& job) -> Result<eval::StallProfile> {
            if (Status s = ensureKernelEvaluator(in.state->evaluator, in.kernel, in.injected, in.options,
                                                 in.specPath);
                !s)
                return s.error();
            if (job.stopped()) return makeError("cancelled");
            return in.state->evaluator->stalls(in.schedule);
        },
        [this, variantId, edits = in.edits, kernel = in.kernel](Result<eval::StallProfile> profile) {
            if (!profile) {
                Q_EMIT stallsFailed(variantId, QString::fromStdString(profile.message()));
                return;
            }
            QString error;
            if (!attachStalls(variantId, edits, kernel, std::move(*profile), &error))
                Q_EMIT stallsFailed(variantId, error);
        },
        [this, variantId] { Q_EMIT stallsFailed(variantId, tr("cancelled")); });
}

bool MeasureQueue::attachStalls(int variantId, const std::vector<Edit>& edits,
                                const std::shared_ptr<const KernelWorkspace>& kernel,
                                eval::StallProfile profile, QString* error)
{
    const VariantRecord* v = m_variants->variant(variantId);
    if (!v || v->edits != edits || kernel != m_variants->kernel() || !kernel) {
        if (error) *error = tr("the variant changed while it was being sampled");
        return false;
    }
    if (profile.kernel != kernel->name()) {
        if (error)
            *error = tr("the samples are of kernel '%1', not '%2'")
                         .arg(QString::fromStdString(profile.kernel), QString::fromStdString(kernel->name()));
        return false;
    }
    auto schedule = kernel->schedule(edits);
    if (!schedule) {
        if (error) *error = QString::fromStdString(schedule.message());
        return false;
    }
    if (auto mapped = mapStalls(profile, kernel->analysis(), *schedule); !mapped) {
        if (error) *error = QString::fromStdString(mapped.message());
        return false;
    }
    m_variants->attachStalls(variantId, edits, kernel, std::move(profile));
    Q_EMIT stallsFinished(variantId);
    return true;
}

bool MeasureQueue::importStalls(int variantId, const QString& path, QString* error)
{
    auto profile = readStallProfile(path.toStdString());
    if (!profile) {
        if (error) *error = QString::fromStdString(profile.message());
        return false;
    }
    const VariantRecord* v = m_variants->variant(variantId);
    if (!v || !m_variants->kernel()) {
        if (error) *error = tr("no such variant");
        return false;
    }
    return attachStalls(variantId, v->edits, m_variants->kernel(), std::move(*profile), error);
}

} // namespace sassx
