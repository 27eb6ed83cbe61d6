#pragma once
// A schedule permutes instructions only inside their basic block, so blocks never change membership:
// a block's [first, end) are positions in every schedule as well as original indices, and the block at
// a position is the original block there. These are the one place that identifies the two.
#include "core/analysis/cfg.h"
#include "core/rewrite/schedule_index.h"

namespace sassx {

inline Position firstPosition(const BasicBlock& b)
{
    return Position(b.first);
}

inline Position endPosition(const BasicBlock& b)
{
    return Position(b.end);
}

inline IndexRange<Position> positionsOf(const BasicBlock& b)
{
    return indexRange(firstPosition(b), endPosition(b));
}

// The block at position p of any schedule of the kernel.
inline int blockAt(const ControlFlowGraph& cfg, Position p)
{
    return cfg.blockOf[p.value()];
}

inline const BasicBlock& blockOfPosition(const ControlFlowGraph& cfg, Position p)
{
    return cfg.blocks[size_t(cfg.blockOf[p.value()])];
}

// Where p lies in its block b: 0 for the block's first position (per-block arrays are indexed so).
inline uint32_t offsetInBlock(const BasicBlock& b, Position p)
{
    return uint32_t(p - firstPosition(b));
}

} // namespace sassx
