#pragma once
// Measures schedules of one kernel against its original: the baseline, the estimate's fast path (a
// schedule is estimated without writing a cubin), the tuned cubin otherwise, and metrics. The GUI's
// Measure, `sassx-cli bench` and searches all go through this, so a figure means the same everywhere.
// Not thread-safe (evaluators are not re-entrant): one owner thread at a time.
#include "core/eval/launch_spec.h"
#include "core/session/evaluator_options.h"
#include "core/session/workspace.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sassx {

struct MeasureOptions
{
    eval::EvalOptions eval;
    bool metrics = false;                   // also collect hardware (or estimate) metrics of a correct result
    const std::atomic_bool* stop = nullptr; // polled between steps; a stopped measure returns an error
};

class KernelEvaluator
{
public:
    // `choice` from makeEvaluator(); the spec names how to launch the kernel.
    KernelEvaluator(std::shared_ptr<const KernelWorkspace> kernel, EvaluatorChoice choice,
                    eval::LaunchSpec spec);

    const EvaluatorChoice& choice() const { return m_choice; }
    const eval::LaunchSpec& spec() const { return m_spec; }
    const KernelWorkspace& kernel() const { return *m_kernel; }
    const std::shared_ptr<const KernelWorkspace>& kernelPtr() const { return m_kernel; }
    // Sets the original as the baseline on first use (checks the spec against the cubin's parameters).
    Status prepare();
    const eval::BaselineInfo* baseline() const
    {
        return m_prepared ? &m_choice.evaluator->baseline() : nullptr;
    }

    // What an evaluator takes for a schedule of this kernel (identity: the original).
    eval::Candidate candidate(const Schedule& schedule) const;
    // Figures of a schedule (identity: the original itself, run as a candidate).
    Result<eval::EvalResult> measure(const Schedule& schedule, const MeasureOptions& options = {});
    // Figures of whole cubin bytes (a file the user brings, e.g. `bench --cubin`).
    Result<eval::EvalResult> measureCubin(const std::vector<uint8_t>& bytes,
                                          const MeasureOptions& options = {});
    Result<eval::EvalResult> measure(const eval::Candidate& candidate, const MeasureOptions& options = {});
    // Warp-stall samples of one launch of `schedule` (GPU backends only; the estimate says why not).
    Result<eval::StallProfile> stalls(const Schedule& schedule, int periodExponent = 0);
    // The same of whole cubin bytes (a file the user brings: `sassx-cli stalls --cubin`).
    Result<eval::StallProfile> stallsOfCubin(const std::vector<uint8_t>& bytes, int periodExponent = 0);

private:
    void addMetrics(const eval::Candidate& candidate, eval::EvalResult& result);

    std::shared_ptr<const KernelWorkspace> m_kernel;
    EvaluatorChoice m_choice;
    eval::LaunchSpec m_spec;
    bool m_prepared = false;
};

// Makes `owned` once: with `injected` when given (tests, tools), else from `options`; the spec from
// `specPath`. For a thread that keeps one evaluator across jobs (starting GPU workers takes seconds).
Status ensureKernelEvaluator(std::unique_ptr<KernelEvaluator>& owned,
                             const std::shared_ptr<const KernelWorkspace>& kernel,
                             const std::shared_ptr<eval::Evaluator>& injected,
                             const EvaluatorOptions& options, const std::string& specPath);

} // namespace sassx
