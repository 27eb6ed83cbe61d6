#pragma once
// Basic blocks and control flow of one kernel. Block starts never move under sassx edits, so every
// PC-relative branch stays valid (docs/sass-facts.md §6).
#include "core/sass/listing.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

struct BasicBlock
{
    int index = 0;
    uint32_t first = 0; // first instruction index
    uint32_t end = 0;   // one past the last instruction
    std::string label;  // ".L_x_3" style for targets, "entry" for the first block
    std::vector<int> successors;
    std::vector<int> predecessors;
    bool isBranchTarget = false;
    bool isLoopHeader = false;
    int loopDepth = 0;
    bool endsInIndirect = false; // BRX/JMX: successors unknown

    uint32_t size() const { return end - first; }
};

struct ControlFlowGraph
{
    std::vector<BasicBlock> blocks;
    std::vector<int> blockOf; // instruction index → block index

    static ControlFlowGraph build(const KernelListing& listing);
};

} // namespace sassx
