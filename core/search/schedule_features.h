#pragma once
// What the learning agent sees of a schedule (docs/ppo.md): features of every instruction at its current
// position, one row per legal action built from them, and a few features of the whole schedule. Plain
// floats (agent.h), Qt- and torch-free, so tests check them without libtorch and the plug-in never
// needs sassx's types. Rows have a fixed width whatever the kernel's length: the agent scores each row
// with one network, so kernels of any length and any number of legal actions fit.
#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/variant.h"
#include "core/search/agent.h"

#include <vector>

namespace sassx::search {

class FeatureExtractor
{
public:
    // Per instruction: 7 class groups (global load, global store, shared access, async copy or tensor,
    // fixed latency, other variable latency, control or other), stall/15, yield, sets a write
    // scoreboard, sets a read scoreboard, waits/6, reuse, nearest producer and nearest consumer in its
    // block (positions, /16, capped at 1; 1 when none), live registers/255, position in its block
    // (0..1), displacement from its original position (/16, clamped to ±1).
    static constexpr int kInstructionDim = 18;
    // The edited instruction's identity, so that actions on different instructions never look alike:
    // its opcode class (one-hot over every InstrClass, finer than the 7 groups: FP32 apart from
    // integer), its basic block's index and its position in the kernel (both 0..1).
    static constexpr int kClassCount = int(InstrClass::Other) + 1;
    static constexpr int kIdentityDim = kClassCount + 2;
    // Per action: the instruction it edits, the instruction at the target position (zeros for a
    // control edit), then signed and absolute distance (/32), kind (move, yield, reuse, stall) and the
    // new value (yield bit, reuse ≠ 0, stall/15), then the edited instruction's identity.
    static constexpr int kActionDim = 2 * kInstructionDim + 7 + kIdentityDim;
    // Episode progress, speed-up − 1 (×10, clamped to ±1), share of instructions displaced, log of the
    // action count (/10), then the mean instruction row.
    static constexpr int kStateDim = kInstructionDim + 4;

    explicit FeatureExtractor(const KernelAnalysis& analysis);

    // Rows follow `actions` (legal edits of `schedule`, EditProposer::legalActions). `progress` is the
    // episode's share done (0..1), `speedup` the current schedule's last figure.
    Observation observe(const Schedule& schedule, const std::vector<Edit>& actions, double progress,
                        double speedup) const;
    // kInstructionDim floats per position, position-major.
    std::vector<float> instructionRows(const Schedule& schedule) const;

private:
    const KernelAnalysis& m_analysis;
};

// A hash of the schedule's order and control codes: it seeds the subset of actions shown when there
// are more than max_actions, so the same schedule always shows the same rows (docs/ppo.md).
uint64_t scheduleHash(const Schedule& schedule);

} // namespace sassx::search
