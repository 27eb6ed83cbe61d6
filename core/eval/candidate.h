#pragma once
// What an evaluator measures: one version of the baseline's kernel. It is the original, whole cubin
// bytes (a file the user brings), or a schedule of the kernel whose cubin is written on demand. A
// backend that needs bytes (the GPU) asks for them; a backend that models schedules (the estimate,
// core/estimate) takes the schedule and never writes a cubin. So no caller needs to know which backend
// it holds (docs/evaluator.md).
//
// This layer does not link the analysis or rewrite layers: Schedule and KernelAnalysis are only named
// here, and reach a backend that understands them through the candidate.
#include "core/common/result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace sassx {
struct Schedule;
struct KernelAnalysis;
} // namespace sassx

namespace sassx::eval {

class Candidate
{
public:
    using Writer = std::function<Result<std::vector<uint8_t>>()>;

    // The original (the baseline itself). Its bytes() are empty: the protocol's "the baseline".
    Candidate();
    static Candidate original() { return Candidate(); }
    static Candidate fromBytes(std::vector<uint8_t> bytes);
    // A schedule of `analysis`' kernel; `write` makes its cubin, and runs at most once (copies of a
    // candidate share what it wrote).
    static Candidate fromSchedule(std::shared_ptr<const Schedule> schedule,
                                  std::shared_ptr<const KernelAnalysis> analysis, Writer write);

    bool isOriginal() const;
    // The cubin, written now if it was not yet; the error is the writer's sentence. Valid while this
    // candidate (or a copy) lives.
    Result<const std::vector<uint8_t>*> bytes() const;
    // The schedule and the analysis it is a schedule of, when the candidate was made from one.
    const Schedule* schedule() const;
    const KernelAnalysis* analysis() const;

private:
    struct State;
    std::shared_ptr<State> m_state;
};

} // namespace sassx::eval
