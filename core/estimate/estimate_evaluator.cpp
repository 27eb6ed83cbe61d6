#include "core/estimate/estimate_evaluator.h"

#include "core/rewrite/schedule_recovery.h"

#include "core/analysis/arch_model.h"
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/eval/race.h"
#include "core/sass/listing.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace sassx::eval {

namespace {

nlohmann::json estimateJson(const Estimate& e)
{
    nlohmann::json segs = nlohmann::json::array();
    for (const SegmentEstimate& s : e.segments)
        segs.push_back({{"first_block", s.firstBlock},
                        {"loop_depth", s.loopDepth},
                        {"weight", s.weight},
                        {"cycles_per_pass", s.cyclesPerPass}});
    return {{"cycles", e.cycles},
            {"microseconds", e.microseconds},
            {"smsp_cycles", e.smspCycles},
            {"blocks_per_sm", e.occupancy.blocksPerSm},
            {"warps_per_smsp", e.occupancy.warpsPerSmsp},
            {"simulated_warps", e.occupancy.simulatedWarps},
            {"waves", e.occupancy.waves},
            {"occupancy_limiter", e.occupancy.limiter},
            {"segments", segs},
            {"source", "estimate"}};
}

} // namespace

EstimateEvaluator::EstimateEvaluator() = default;
EstimateEvaluator::EstimateEvaluator(ModelParams params) : m_params(std::move(params)), m_fixedParams(true) {}
EstimateEvaluator::~EstimateEvaluator() = default;

FigureSource EstimateEvaluator::figureSource() const
{
    return {"model " + (m_params ? m_params->arch : std::string("?")), FigureKind::Estimate};
}

Result<std::shared_ptr<const KernelAnalysis>> EstimateEvaluator::analyse(const std::vector<uint8_t>& bytes,
                                                                         LaunchShape* shape) const
{
    auto cubin = Cubin::parse(bytes);
    if (!cubin) return makeError("the cubin does not parse: " + cubin.message());
    if (Status s = validateAgainstCubin(m_spec, cubin.value()); !s) return s.error();
    const Kernel* k = cubin->findKernel(m_spec.kernel);
    if (!k) return makeError("kernel " + m_spec.kernel + " is not in the cubin");
    auto listing = disassembleKernel(cubin.value(), m_spec.kernel);
    if (!listing) return makeError("cannot disassemble " + m_spec.kernel + ": " + listing.message());
    if (shape) {
        shape->blocks = uint64_t(m_spec.grid[0]) * m_spec.grid[1] * m_spec.grid[2];
        shape->threadsPerBlock = m_spec.block[0] * m_spec.block[1] * m_spec.block[2];
        // Without REGCOUNT assume the worst case: residency is then bounded by registers.
        shape->regsPerThread = k->regCount.value_or(255);
        shape->sharedPerBlock = k->sharedMemStatic + m_spec.dynamicShared;
    }
    return KernelAnalysis::build(std::move(listing.value()));
}

Status EstimateEvaluator::setBaseline(const LaunchSpec& spec, const std::vector<uint8_t>& cubin)
{
    m_hasBaseline = false;
    m_spec = spec;
    LaunchShape shape;
    auto a = analyse(cubin, &shape);
    if (!a) return a.error();
    if (!m_fixedParams) {
        auto p = ModelParams::load(a.value()->listing.sm);
        if (!p) return p.error();
        m_params = std::move(p.value());
    }
    m_shape = shape;
    m_analysis = a.value();
    m_referenceSchedule.reset();
    auto e = estimate(*m_analysis, Schedule::identity(*m_analysis));
    if (!e) return e.error();
    m_baselineEstimate = e.value();
    m_baseline = {};
    m_baseline.source = figureSource();
    m_baseline.medianUs = m_baselineEstimate.microseconds;
    m_baseline.noiseFloor = 0.0;
    m_baseline.launchMode = LaunchMode::Estimate;
    m_baseline.launchesPerSample = 1;
    m_baseline.raw = estimateJson(m_baselineEstimate);
    m_baseline.raw["clock_mhz"] = m_params->clockMhz;
    m_baseline.raw["model_source"] = m_params->source;
    m_hasBaseline = true;
    return Ok{};
}

Result<Estimate> EstimateEvaluator::estimate(const KernelAnalysis& analysis, const Schedule& schedule) const
{
    if (!m_params) return makeError("the estimate backend has no model parameters yet: set a baseline first");
    // A family's parts share its model file (sm_103 estimates with sm_100's, sm_121 with sm_120's).
    if (m_params->arch != "" &&
        m_params->arch != "sm_" + std::to_string(ArchModel::forSm(analysis.listing.sm)->tableSm()))
        return makeError("the model is for " + m_params->arch + ", the kernel is sm_" +
                         std::to_string(analysis.listing.sm));
    return estimateSchedule(analysis, schedule, *m_params, m_shape);
}

Result<Estimate> EstimateEvaluator::estimateCubin(const std::vector<uint8_t>& cubin) const
{
    if (!m_hasBaseline) return makeError("no baseline: call setBaseline first");
    if (auto parsed = Cubin::parse(cubin); parsed) {
        const Kernel* k = parsed->findKernel(m_spec.kernel);
        if (k && k->regCount.value_or(255) == m_shape.regsPerThread &&
            k->sharedMemStatic + m_spec.dynamicShared == m_shape.sharedPerBlock)
            if (auto s = recoverSchedule(*m_analysis, parsed.value(), *k)) return estimate(*m_analysis, *s);
    }
    // Not a permutation of the original's words: analyse it on its own (nvdisasm).
    LaunchShape shape;
    auto a = analyse(cubin, &shape);
    if (!a) return a.error();
    // A candidate is a reschedule: same instructions in each block. Anything else is not comparable.
    if (a.value()->listing.instructions.size() != m_analysis->listing.instructions.size())
        return makeError("the candidate has " + std::to_string(a.value()->listing.instructions.size()) +
                         " instructions, the original " +
                         std::to_string(m_analysis->listing.instructions.size()) + ": not a reschedule");
    if (shape.regsPerThread != m_shape.regsPerThread || shape.sharedPerBlock != m_shape.sharedPerBlock)
        return makeError("the candidate's register count or shared memory differs from the original's");
    return estimate(*a.value(), Schedule::identity(*a.value()));
}

EvalResult EstimateEvaluator::resultFor(const Result<Estimate>& e) const
{
    if (!e) return failedResult(failure::kError, e.message());
    EvalResult r;
    r.correct = true; // not refuted; see the header: callers print "unverified"
    r.outputCheck = OutputCheck::NotRun;
    r.failure = kUnverified;
    r.source = figureSource();
    TimingFigures t;
    const double base = m_baselineEstimate.cycles;
    const double ratio = base > 0 ? e->cycles / base : 1.0;
    t.ratio = {ratio, ratio, ratio, 0};
    t.baselineMedianUs = m_baselineEstimate.microseconds;
    t.candidateMedianUs = e->microseconds;
    t.noiseFloor = 0.0;
    t.verdict = decide(t.ratio, 0.0);
    t.launchMode = LaunchMode::Estimate;
    r.timing = t;
    auto metric = [&](const char* name, double v, const char* unit) {
        r.metrics.push_back({name, v, unit, r.source});
    };
    metric("estimate__cycles", e->cycles, "cycle");
    metric("estimate__duration_us", e->microseconds, "us");
    metric("estimate__warps_per_smsp", e->occupancy.warpsPerSmsp, "warp");
    metric("estimate__blocks_per_sm", e->occupancy.blocksPerSm, "block");
    metric("estimate__waves", double(e->occupancy.waves), "wave");
    return r;
}

Result<Estimate> EstimateEvaluator::estimateOf(const Candidate& candidate) const
{
    if (candidate.isOriginal()) return m_baselineEstimate;
    // A schedule is estimated over this backend's own analysis of the baseline (the one its baseline
    // estimate stands on); the candidate's analysis only has to be of the same kernel.
    const KernelAnalysis* a = candidate.analysis();
    if (candidate.schedule() && a &&
        a->listing.instructions.size() == m_analysis->listing.instructions.size())
        return estimate(*m_analysis, *candidate.schedule());
    auto bytes = candidate.bytes();
    if (!bytes) return makeError("the writer refused the schedule: " + bytes.message());
    return estimateCubin(**bytes);
}

Result<double> EstimateEvaluator::referenceRatio(const Candidate& reference)
{
    const Schedule* s = reference.schedule();
    if (s && m_referenceSchedule && s->order == m_referenceSchedule->order &&
        s->control == m_referenceSchedule->control)
        return m_referenceRatio;
    EvalResult r = resultFor(estimateOf(reference));
    if (!r.failureKind.empty()) return makeError(r.failure);
    if (!r.timing) return makeError("the reference has no estimate");
    m_referenceRatio = r.timing->ratio.median;
    if (s)
        m_referenceSchedule = *s;
    else
        m_referenceSchedule.reset();
    return m_referenceRatio;
}

EvalResult EstimateEvaluator::evaluate(const Candidate& candidate, const EvalOptions& options)
{
    if (!m_hasBaseline) return failedResult(failure::kError, "no baseline: call setBaseline first");
    Result<double> reference = 1.0;
    if (options.reference) {
        reference = referenceRatio(*options.reference);
        if (!reference) return failedResult(failure::kError, reference.message());
    }
    return pairedResult(candidate, *reference, options);
}

EvalResult EstimateEvaluator::pairedResult(const Candidate& candidate, double reference,
                                           const EvalOptions& options) const
{
    EvalResult r = resultFor(estimateOf(candidate));
    if (!options.reference || !r.timing) return r;
    // Deterministic: candidate / reference is the quotient of the two estimates, decided at once.
    TimingFigures& t = *r.timing;
    const double q = reference > 0 ? t.ratio.median / reference : 0.0;
    t.ratio.median = t.ratio.low = t.ratio.high = q;
    t.paired = true;
    if (options.race.enabled())
        t.race = raceOutcomeName(q < options.race.bar ? RaceOutcome::Won : RaceOutcome::Dropped);
    return r;
}

std::vector<EvalResult> EstimateEvaluator::evaluateBatch(const std::vector<Candidate>& candidates,
                                                         const EvalOptions& options)
{
    // Only schedules of the baseline's kernel go to threads: the model over them reads shared constant
    // data alone, while a candidate given as bytes runs the cubin writer and nvdisasm, kept on this
    // thread as evaluate() runs them.
    const bool bySchedule = std::all_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
        return c.isOriginal() ||
               (c.schedule() && c.analysis() && m_analysis &&
                c.analysis()->listing.instructions.size() == m_analysis->listing.instructions.size());
    });
    constexpr size_t kMaxThreads = 8;
    const size_t threads =
        std::min({candidates.size(), kMaxThreads, size_t(std::max(1u, std::thread::hardware_concurrency()))});
    if (!m_hasBaseline || !bySchedule || threads < 2) return Evaluator::evaluateBatch(candidates, options);
    Result<double> reference = 1.0;
    if (options.reference) reference = referenceRatio(*options.reference); // the cache: this thread only
    if (!reference)
        return std::vector<EvalResult>(candidates.size(), failedResult(failure::kError, reference.message()));
    std::vector<EvalResult> out(candidates.size());
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (size_t i = t; i < candidates.size(); i += threads)
                out[i] = pairedResult(candidates[i], *reference, options);
        });
    for (std::thread& t : pool)
        t.join();
    return out;
}

Result<std::vector<MetricValue>> EstimateEvaluator::metrics(const Candidate& candidate,
                                                            const std::vector<std::string>& names)
{
    if (!m_hasBaseline) return makeError("no baseline: call setBaseline first");
    EvalResult r = resultFor(estimateOf(candidate));
    if (!r.failureKind.empty()) return makeError(r.failure);
    if (names.empty()) return r.metrics;
    std::vector<MetricValue> out;
    for (const std::string& n : names) {
        auto it = std::find_if(r.metrics.begin(), r.metrics.end(),
                               [&](const MetricValue& m) { return m.name == n; });
        if (it == r.metrics.end())
            return makeError(
                "the estimate backend has no figure " + n +
                " (it models schedules, it has no hardware "
                "counters); it offers estimate__cycles, estimate__duration_us, estimate__warps_per_smsp, "
                "estimate__blocks_per_sm, estimate__waves");
        out.push_back(*it);
    }
    return out;
}

} // namespace sassx::eval
