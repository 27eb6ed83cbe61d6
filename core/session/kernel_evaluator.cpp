#include "core/session/kernel_evaluator.h"

#include "core/eval/estimate_evaluator.h"

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

void KernelEvaluator::addMetrics(const std::vector<uint8_t>& bytes, eval::EvalResult& result)
{
    auto metrics = m_choice.evaluator->metrics(bytes);
    if (metrics) result.metrics.insert(result.metrics.end(), metrics->begin(), metrics->end());
}

Result<eval::EvalResult> KernelEvaluator::measure(const Schedule& schedule, const MeasureOptions& options)
{
    if (Status s = prepare(); !s) return s.error();
    if (stopped(options)) return makeError("cancelled");
    const bool original = schedule.isIdentity(m_kernel->analysis());
    // The estimate backend estimates a schedule of the baseline's analysis directly: no cubin to write,
    // no nvdisasm round trip, and no per-cubin metrics either.
    if (!original)
        if (auto* estimate = dynamic_cast<eval::EstimateEvaluator*>(m_choice.evaluator.get())) {
            eval::EvalResult r = estimate->evaluate(schedule);
            if (r.source.kind.empty()) r.source.kind = m_choice.evaluator->sourceKind();
            return r;
        }
    std::vector<uint8_t> bytes;
    if (original) {
        bytes = m_kernel->cubin().bytes();
    } else {
        auto built = m_kernel->write(schedule);
        if (!built) return built.error();
        bytes = std::move(*built);
    }
    if (stopped(options)) return makeError("cancelled");
    return measureCubin(bytes, options);
}

Result<eval::StallProfile> KernelEvaluator::stalls(const Schedule& schedule, int periodExponent)
{
    if (Status s = prepare(); !s) return s.error();
    if (schedule.isIdentity(m_kernel->analysis())) return m_choice.evaluator->stalls({}, periodExponent);
    auto built = m_kernel->write(schedule);
    if (!built) return built.error();
    return m_choice.evaluator->stalls(*built, periodExponent);
}

Result<eval::EvalResult> KernelEvaluator::measureCubin(const std::vector<uint8_t>& bytes,
                                                       const MeasureOptions& options)
{
    if (Status s = prepare(); !s) return s.error();
    if (stopped(options)) return makeError("cancelled");
    eval::EvalResult r = m_choice.evaluator->evaluate(bytes, options.eval);
    if (options.metrics && r.ok() && !stopped(options)) addMetrics(bytes, r);
    if (r.source.kind.empty()) r.source.kind = m_choice.evaluator->sourceKind();
    return r;
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
        choice = {injected, injected->sourceKind() == "estimate" ? "estimate" : "gpu", "set by the caller"};
    } else {
        auto made = makeEvaluator(options);
        if (!made) return made.error();
        choice = std::move(*made);
    }
    owned = std::make_unique<KernelEvaluator>(kernel, std::move(choice), std::move(*spec));
    return Ok{};
}

} // namespace sassx
