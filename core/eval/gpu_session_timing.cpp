// The worker's timing: interleaved rounds, the screen-then-confirm plan against the baseline, and paired
// rounds against a search's incumbent, raced (core/eval/race.h). Split from gpu_session.cpp, which sets
// up buffers and judges correctness.
#include "core/eval/gpu_session.h"

#include "core/eval/eval_result.h"

#include <algorithm>

namespace sassx::eval {

std::optional<Failure> GpuSession::prepareTiming(KernelHandle& k)
{
    if (!m_useGraph || k.graphExec) return std::nullopt;
    return m_ctx->buildGraph(k, m_launchesPerSample);
}

std::optional<Failure> GpuSession::interleave(const KernelHandle& a, const KernelHandle& b, int rounds,
                                              std::vector<double>& ta, std::vector<double>& tb)
{
    ta.clear();
    tb.clear();
    for (int r = 0; r < rounds; ++r) {
        double ua = 0, ub = 0;
        // Alternate the order so that neither kernel always runs second (warmer clocks, hotter L2).
        const bool aFirst = (r % 2) == 0;
        for (int pass = 0; pass < 2; ++pass) {
            const bool doA = (pass == 0) == aFirst;
            double& u = doA ? ua : ub;
            if (auto f =
                    m_ctx->timeSample(doA ? a : b, m_launchesPerSample, m_useGraph, m_options.l2Flush, u))
                return f;
        }
        ta.push_back(ua);
        tb.push_back(ub);
    }
    return std::nullopt;
}

std::optional<Failure> GpuSession::freshInstance(const std::vector<uint8_t>& cubin, KernelHandle& k)
{
    // The next instance is loaded before the old one goes, so that it lands elsewhere: where a module
    // lands moves its time by up to a few tenths of a percent for as long as it is loaded.
    KernelHandle next;
    if (auto f = m_ctx->load(cubin, next)) return f;
    m_ctx->unload(k);
    k = next;
    return prepareTiming(k);
}

std::optional<Failure> GpuSession::timeAdaptive(const std::vector<uint8_t>& cubin, const AdaptivePlan& plan,
                                                KernelHandle& cand, TimingFigures& t)
{
    if (auto f = prepareTiming(cand)) return f;
    std::vector<double> ta, tb;
    if (auto f = interleave(m_baseline, cand, plan.screenRounds, ta, tb)) return f;
    t.ratio = ratioInterval(ta, tb);
    t.screenRounds = plan.screenRounds;
    if (plan.shouldConfirm(t.ratio)) {
        // Fresh rounds only: the screen's rounds selected this candidate and must not also estimate it.
        // Every stage runs on a freshly loaded instance: the screen selected this instance partly for
        // a lucky placement, and fresh instances average that out instead of confirming it.
        const int instances = std::clamp(plan.instances, 1, std::max(1, plan.confirmRounds));
        const int stage = instances > 1           ? (plan.confirmRounds + instances - 1) / instances
                          : plan.confirmStage > 0 ? plan.confirmStage
                                                  : plan.confirmRounds;
        std::vector<double> fa, fb;
        std::vector<RatioInterval> perInstance;
        while (int(fa.size()) < plan.confirmRounds) {
            const int n = std::min(stage, plan.confirmRounds - int(fa.size()));
            if (auto f = freshInstance(cubin, cand)) return f;
            // A final figure also reloads the baseline: its placement is as much a part of a
            // process's offset as the candidate's.
            if (instances > 1)
                if (auto f = freshInstance(m_baselineCubin, m_baseline)) return f;
            if (auto f = interleave(m_baseline, cand, n, ta, tb)) return f;
            perInstance.push_back(ratioInterval(ta, tb));
            fa.insert(fa.end(), ta.begin(), ta.end());
            fb.insert(fb.end(), tb.begin(), tb.end());
            t.ratio = ratioInterval(fa, fb);
            if (instances > 1) {
                t.ratio = instancesInterval(perInstance, t.ratio);
                continue;
            }
            if (plan.futile(t.ratio, m_noiseFloor)) {
                t.stoppedEarly = true;
                break;
            }
        }
        ta = std::move(fa);
        tb = std::move(fb);
        t.confirmed = true;
    }
    t.baselineMedianUs = median(ta);
    t.candidateMedianUs = median(tb);
    return std::nullopt;
}

std::optional<Failure> GpuSession::timePaired(const std::vector<uint8_t>& cubin,
                                              const std::vector<uint8_t>& reference,
                                              const protocol::EvaluateOptions& options, KernelHandle& cand,
                                              TimingFigures& t)
{
    // The reference (a search's incumbent) stays loaded between requests; fresh stages give both it and
    // the candidate new instances, so neither one's placement judges the other.
    KernelHandle* ref = &m_baseline;
    if (!reference.empty()) {
        if (reference != m_incumbentCubin || !m_incumbent.module) {
            if (m_incumbent.module) m_ctx->unload(m_incumbent);
            m_incumbent = {};
            m_incumbentCubin = reference;
            if (auto f = m_ctx->load(reference, m_incumbent)) {
                m_incumbentCubin.clear();
                return Failure{f->status, f->kind,
                               "the reference (incumbent) cannot be loaded: " + f->message};
            }
            if (auto f = prepareTiming(m_incumbent)) return f;
        }
        ref = &m_incumbent;
    }
    if (auto f = prepareTiming(cand)) return f;
    const std::vector<uint8_t>& refBytes = reference.empty() ? m_baselineCubin : reference;
    auto measure = [&](int rounds, bool fresh, std::vector<double>& a,
                       std::vector<double>& b) -> std::optional<std::string> {
        std::vector<double> ra, rb;
        // The baseline keeps its long-lived instance (every worker has one); a reference is reloaded.
        std::optional<Failure> f;
        if (fresh) f = freshInstance(cubin, cand);
        if (fresh && !f && !reference.empty()) f = freshInstance(refBytes, m_incumbent);
        if (!f) f = interleave(*ref, cand, rounds, ra, rb);
        if (f) {
            m_lastTimingFailure = *f;
            return f->message;
        }
        a.insert(a.end(), ra.begin(), ra.end());
        b.insert(b.end(), rb.begin(), rb.end());
        return std::nullopt;
    };
    RacePlan plan = options.race;
    if (!plan.enabled()) {
        // Paired without racing (annealing's screen): the plan's screen rounds, decided by the caller.
        std::vector<double> a, b;
        if (auto e = measure(options.plan.screenRounds, false, a, b)) return timingFailure(*e);
        t.ratio = ratioInterval(a, b);
        t.screenRounds = t.ratio.rounds;
        t.baselineMedianUs = median(a);
        t.candidateMedianUs = median(b);
        t.paired = !reference.empty();
        return std::nullopt;
    }
    RaceRun run = runRace(plan, measure);
    if (run.error) return timingFailure(*run.error);
    const RaceResult& r = run.result;
    t.ratio = r.ratio;
    t.confirmed = r.confirmed;
    t.screenRounds = r.screenRounds;
    t.stoppedEarly =
        r.outcome == RaceOutcome::Dropped || (r.confirmed && r.confirmationRounds < plan.confirmRounds);
    t.baselineMedianUs = median(r.referenceUs);
    t.candidateMedianUs = median(r.candidateUs);
    t.paired = !reference.empty();
    t.race = raceOutcomeName(r.outcome);
    return std::nullopt;
}

std::optional<Failure> GpuSession::timingFailure(const std::string& message)
{
    // A failure inside the race's callback keeps its kind (a fault ends the worker).
    if (m_lastTimingFailure && m_lastTimingFailure->message == message) {
        Failure f = *m_lastTimingFailure;
        m_lastTimingFailure.reset();
        return f;
    }
    return Failure{"failed", failure::kError, message};
}

} // namespace sassx::eval
