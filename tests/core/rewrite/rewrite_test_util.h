#pragma once
// Helpers shared by the rewrite tests: sample kernels, random in-block moves, nvdisasm availability.
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/block_positions.h"
#include "core/rewrite/patch_limits.h"
#include "core/rewrite/variant.h"
#include "core/sass/listing.h"

#include <QFileInfo>
#include <QString>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace rewrite_test {

// Random moves inside blocks that never cross an instruction the writer cannot follow (these need
// not be legal: the writer must reproduce whatever order it is given).
inline std::vector<sassx::Edit> randomMoves(const sassx::KernelAnalysis& a,
                                            const std::vector<uint32_t>& walls, std::mt19937& rng, int count)
{
    // Walls stay in place while nothing crosses them, so a wall's original index is its position in
    // every schedule these moves make.
    std::set<sassx::Position> wall;
    for (uint32_t w : walls)
        wall.insert(sassx::Position(w));
    std::vector<sassx::Edit> edits;
    const auto& blocks = a.cfg.blocks;
    for (int tries = 0; int(edits.size()) < count && tries < count * 20; ++tries) {
        const auto& b = blocks[std::uniform_int_distribution<size_t>(0, blocks.size() - 1)(rng)];
        if (b.size() < 2) continue;
        std::uniform_int_distribution<uint32_t> offset(0, b.end - 1 - b.first);
        const sassx::Position from = sassx::firstPosition(b) + offset(rng);
        const sassx::Position to = sassx::firstPosition(b) + offset(rng);
        if (from == to) continue;
        auto lo = wall.lower_bound(std::min(from, to));
        if (lo != wall.end() && *lo <= std::max(from, to)) continue;
        edits.push_back(sassx::Edit::move(from, to));
    }
    return edits;
}

// Random control edits. nvdisasm rejects some (stall, yield, reuse, scoreboard) combinations per
// opclass (stall 0 or 15 on LDC/S2R, a flipped yield on BRA, a write SB on an ALU op), so each edit
// copies one field from another instruction with the same opcode; wait masks may take any value.
inline void randomControl(const sassx::KernelAnalysis& a, sassx::Schedule& s, std::mt19937& rng, int count)
{
    const auto& insts = a.listing.instructions;
    const auto n = uint32_t(insts.size());
    // Peers share the opcode *and* the operand kinds: nvdisasm (and the GPU) reject some control values
    // on some operand classes (e.g. reuse bits on an immediate slot: "undefined value for TABLES_opex").
    auto signature = [&](const sassx::Instruction& ins) {
        std::string sig = ins.opcode;
        for (const auto& op : ins.operands)
            sig += char('a' + int(op.kind));
        return sig;
    };
    std::map<std::string, std::vector<uint32_t>> byOpcode;
    for (uint32_t i = 0; i < n; ++i)
        byOpcode[signature(insts[i])].push_back(i);
    for (int k = 0; k < count && n; ++k) {
        const sassx::InstrId i(std::uniform_int_distribution<uint32_t>(0, n - 1)(rng));
        const auto& peers = byOpcode[signature(insts[i.value()])];
        const sassx::Control& from = insts[peers[rng() % peers.size()]].control;
        auto& c = s.control[i];
        switch (rng() % 5) {
        case 0:
            c.stall = from.stall, c.yield = from.yield;
            break;
        case 1:
            c.reuse = from.reuse;
            break;
        case 2:
            c.wbar = from.wbar;
            break;
        case 3:
            c.rbar = from.rbar;
            break;
        default:
            c.wait = rng() % 64;
            break;
        }
    }
}

} // namespace rewrite_test
