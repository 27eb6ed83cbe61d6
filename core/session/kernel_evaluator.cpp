#include "core/session/kernel_evaluator.h"

#include "core/analysis/kernel_analysis.h"

#include <algorithm>

namespace sassx {

namespace {

bool stopped(const MeasureOptions& o)
{
    return o.stop && o.stop->load();
}

} // namespace

KernelEvaluator::KernelEvaluator(std::shared_ptr<const KernelWorkspace> kernel, EvaluatorChoice choice,
                                 eval::LaunchSpec spec)
    : m_kernel(std::move(kernel)), m_choice(std::move(choice)), m_spec(std::move(spec))
{
}

Status KernelEvaluator::prepare()
{
    if (m_prepared) return Ok{};
    if (!m_choice.evaluator) return makeError("no evaluator");
    if (Status s = m_choice.evaluator->setBaseline(m_spec, m_kernel->cubin().bytes()); !s) return s;
    m_prepared = true;
    return Ok{};
}

eval::Candidate KernelEvaluator::candidate(const Schedule& schedule) const
{
    if (schedule.isIdentity(m_kernel->analysis())) return eval::Candidate::original();
    auto kernel = m_kernel;
    auto copy = std::make_shared<const Schedule>(schedule);
    // The analysis shares the kernel's lifetime, so a candidate outliving this evaluator stays valid.
    std::shared_ptr<const KernelAnalysis> analysis(kernel, &kernel->analysis());
    return eval::Candidate::fromSchedule(copy, std::move(analysis),
                                         [kernel, copy] { return kernel->write(*copy); });
}

void KernelEvaluator::addMetrics(const eval::Candidate& candidate, eval::EvalResult& result)
{
    auto metrics = m_choice.evaluator->metrics(candidate);
    if (!metrics) return;
    // A backend may already have put some figures in the result (the estimate puts all of its own).
    for (const auto& m : *metrics) {
        const bool known = std::any_of(result.metrics.begin(), result.metrics.end(),
                                       [&](const eval::MetricValue& k) { return k.name == m.name; });
        if (!known) result.metrics.push_back(m);
    }
}

Result<eval::EvalResult> KernelEvaluator::measure(const Schedule& schedule, const MeasureOptions& options)
{
    return measure(candidate(schedule), options);
}

Result<eval::EvalResult> KernelEvaluator::measureCubin(const std::vector<uint8_t>& bytes,
                                                       const MeasureOptions& options)
{
    return measure(eval::Candidate::fromBytes(bytes), options);
}

Result<eval::EvalResult> KernelEvaluator::measure(const eval::Candidate& candidate,
                                                  const MeasureOptions& options)
{
    if (Status s = prepare(); !s) return s.error();
    if (stopped(options)) return makeError("cancelled");
    eval::EvalResult r = m_choice.evaluator->evaluate(candidate, options.eval);
    if (options.metrics && r.ok() && !stopped(options)) addMetrics(candidate, r);
    if (!r.source.kind) r.source.kind = m_choice.evaluator->sourceKind();
    return r;
}

Result<eval::StallProfile> KernelEvaluator::stalls(const Schedule& schedule, int periodExponent)
{
    if (Status s = prepare(); !s) return s.error();
    return m_choice.evaluator->stalls(candidate(schedule), periodExponent);
}

Result<eval::StallProfile> KernelEvaluator::stallsOfCubin(const std::vector<uint8_t>& bytes,
                                                          int periodExponent)
{
    if (Status s = prepare(); !s) return s.error();
    return m_choice.evaluator->stalls(eval::Candidate::fromBytes(bytes), periodExponent);
}

Status ensureKernelEvaluator(std::unique_ptr<KernelEvaluator>& owned,
                             const std::shared_ptr<const KernelWorkspace>& kernel,
                             const std::shared_ptr<eval::Evaluator>& injected,
                             const EvaluatorOptions& options, const std::string& specPath)
{
    if (owned) return Ok{};
    auto spec = eval::loadLaunchSpec(specPath);
    if (!spec) return spec.error();
    EvaluatorChoice choice;
    if (injected) {
        choice = {injected,
                  injected->sourceKind() == eval::FigureKind::Estimate ? eval::Backend::Estimate
                                                                       : eval::Backend::Gpu,
                  "set by the caller"};
    } else {
        auto made = makeEvaluator(options);
        if (!made) return made.error();
        choice = std::move(*made);
    }
    owned = std::make_unique<KernelEvaluator>(kernel, std::move(choice), std::move(*spec));
    return Ok{};
}

} // namespace sassx
