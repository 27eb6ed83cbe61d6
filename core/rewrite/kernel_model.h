#pragma once
// The immutable kernel model the schedule checker, the move/edit enumerator and the rescheduler share:
// the analysed kernel (listing, blocks, dependencies, its architecture's rules), the walls nothing
// crosses, and the bounds derived once from ptxas' schedule: distances to producers and consumers in
// other blocks, the closest issue spacing of each memory class, and the control-value rules. Built once
// per kernel and shared read-only, so every part judges a schedule by the same rule table.
#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/control_rules.h"
#include "core/rewrite/variant.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sassx {

class KernelModel
{
public:
    explicit KernelModel(std::shared_ptr<const KernelAnalysis> analysis);

    // This model with more walls (instructions the cubin writer cannot follow), each with its reason;
    // everything else is shared as computed.
    std::shared_ptr<const KernelModel>
    withWalls(const std::vector<std::pair<InstrId, std::string>>& walls) const;

    const KernelAnalysis& analysis() const { return *m_analysis; }
    const std::shared_ptr<const KernelAnalysis>& analysisPtr() const { return m_analysis; }
    const ControlRules& controlRules() const { return *m_controlRules; }

    bool isWall(InstrId i) const;
    std::string wallReasonOf(InstrId i) const;
    // A wall, or an instruction whose protection the analysis could not attribute: nothing moves past it.
    bool isFixed(InstrId i) const { return isWall(i) || m_analysis->deps.unresolved()[i.value()]; }

    // Least issue cycle of instruction i from its block's start (it reads a value written shortly before
    // the block) and least cycles from its issue to the block's end (it writes a value read shortly
    // after); cycles from its issue to its block's end as ptxas left them.
    int needFromStart(InstrId i) const { return m_needFromStart[i.value()]; }
    int needToEnd(InstrId i) const { return m_needToEnd[i.value()]; }
    int originalTail(InstrId i) const { return m_origTail[i.value()]; }
    // Per memory class (base opcode): the smallest issue distance ptxas left between two of them.
    const std::map<std::string, int>& spacing() const { return m_spacing; }

    // The least stall the instruction at `position` of `schedule` may take when nothing needs more, or
    // nullopt when it keeps its stall: walls, pinned instructions, stall 0 or above 11, and an
    // instruction issued right before a wall or at its block's end (its distance to what follows is
    // not modelled).
    std::optional<uint8_t> stallFloor(const Schedule& schedule, Position position) const;

private:
    void computeCrossBlockDistances(); // cross_block_distances.cpp

    std::shared_ptr<const KernelAnalysis> m_analysis;
    std::shared_ptr<const ControlRules> m_controlRules;
    IndexVector<InstrId, std::string> m_extraWalls; // per instruction, empty if none
    // Cycles since the last fixed-latency write of each register when a block starts (entry) and
    // until its first read after the block ends (exit), capped at the longest fixed latency.
    std::vector<std::vector<uint8_t>> m_entryAge, m_exitDistance;
    int m_maxFixed = 15;
    std::vector<int> m_needFromStart, m_needToEnd;
    std::vector<int> m_origTail;
    std::map<std::string, int> m_spacing;
};

} // namespace sassx
