#pragma once
// Live registers (backward data flow over the CFG), per instruction.
#include "core/analysis/cfg.h"

#include <bitset>
#include <vector>

namespace sassx {

using RegSet = std::bitset<Reg::kKeyCount>;

struct Liveness
{
    std::vector<RegSet> liveIn;  // per instruction: live just before it issues
    std::vector<RegSet> liveOut; // live just after it
    std::vector<RegSet> blockLiveIn;
    std::vector<RegSet> blockLiveOut;
    int stackPointerFrom = -1; // index of the instruction initialising R1 (the stack pointer), if any

    static Liveness compute(const KernelListing& listing, const ControlFlowGraph& cfg);

    // Number of live 32-bit GPRs at an instruction, counted as nvdisasm -plr does: the registers
    // live across it plus the ones it defines.
    int liveGprCount(const KernelListing& listing, uint32_t index) const;
};

} // namespace sassx
