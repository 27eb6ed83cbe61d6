// Session: warp-stall samples of variants (docs/stalls.md). Sampling runs on the measure queue through the
// same evaluator as measurements; imported samples go through the same checks.
#include "core/session/session.h"

#include "core/session/kernel_evaluator.h"
#include "core/session/kernel_stalls.h"
#include "core/session/measure_state.h"

#include <QFile>

#include <nlohmann/json.hpp>

namespace sassx {

quint64 Session::sampleStalls(int variantId)
{
    const QString why = measureUnavailableReason(variantId);
    if (!why.isEmpty()) {
        Q_EMIT stallsFailed(variantId, why);
        return 0;
    }
    const VariantRecord* v = variant(variantId);
    auto scheduled = m_kernelWs->schedule(v->edits);
    if (!scheduled) {
        Q_EMIT stallsFailed(variantId, QString::fromStdString(scheduled.message()));
        return 0;
    }
    const std::vector<Edit> edits = v->edits;
    auto kernel = m_kernelWs;
    auto state = m_measureState;
    auto injected = m_injectedEvaluator;
    const EvaluatorOptions options = m_options.evaluator;
    const std::string specPath = m_launchSpecPath.toStdString();
    Schedule schedule = std::move(*scheduled);
    Q_EMIT stallsStarted(variantId);
    // On the measure queue: one evaluator, one GPU job at a time.
    return m_measureJobs.start(
        [=](const JobControl& job) -> Result<eval::StallProfile> {
            if (Status s = ensureKernelEvaluator(state->evaluator, kernel, injected, options, specPath); !s)
                return s.error();
            if (job.stopped()) return makeError("cancelled");
            return state->evaluator->stalls(schedule);
        },
        [this, variantId, edits, kernel](Result<eval::StallProfile> profile) {
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

bool Session::attachStalls(int variantId, const std::vector<Edit>& edits,
                           const std::shared_ptr<const KernelWorkspace>& kernel, eval::StallProfile profile,
                           QString* error)
{
    VariantRecord* v = mutableVariant(variantId);
    if (!v || v->edits != edits || kernel != m_kernelWs || !kernel) {
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
    v->stalls = std::move(profile);
    Q_EMIT variantChanged(variantId);
    Q_EMIT stallsFinished(variantId);
    markModified();
    return true;
}

bool Session::importStalls(int variantId, const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) *error = tr("cannot read %1").arg(path);
        return false;
    }
    auto j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    // `sassx-cli stalls --json` wraps the profile; a bare profile is accepted too.
    if (j.is_object() && j.contains("profile")) j = j.at("profile");
    auto profile = eval::stallProfileFromJson(j);
    if (!profile) {
        if (error) *error = QString::fromStdString(profile.message());
        return false;
    }
    const VariantRecord* v = variant(variantId);
    if (!v || !m_kernelWs) {
        if (error) *error = tr("no such variant");
        return false;
    }
    return attachStalls(variantId, v->edits, m_kernelWs, std::move(*profile), error);
}

std::optional<KernelStalls> Session::kernelStalls(int variantId) const
{
    const VariantRecord* v = variant(variantId);
    if (!v || !v->stalls || !m_kernelWs) return std::nullopt;
    auto schedule = m_kernelWs->schedule(v->edits);
    if (!schedule) return std::nullopt;
    auto mapped = mapStalls(*v->stalls, m_kernelWs->analysis(), *schedule);
    if (!mapped) return std::nullopt;
    return std::move(*mapped);
}

} // namespace sassx
