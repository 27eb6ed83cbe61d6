#include "core/analysis/liveness.h"

namespace sassx {

Liveness Liveness::compute(const KernelListing& listing, const ControlFlowGraph& cfg)
{
    const auto& insts = listing.instructions;
    Liveness lv;
    const size_t nb = cfg.blocks.size();
    std::vector<RegSet> gen(nb), kill(nb);
    for (const auto& b : cfg.blocks) {
        RegSet g, k;
        for (uint32_t i = b.end; i-- > b.first;) {
            const auto& ins = insts[i];
            // A predicated write may keep the old value: it does not kill.
            if (!ins.guard)
                for (const auto& r : ins.defs) {
                    g.reset(r.key());
                    k.set(r.key());
                }
            for (const auto& r : ins.uses)
                g.set(r.key());
        }
        gen[b.index] = g;
        kill[b.index] = k;
    }
    lv.blockLiveIn.assign(nb, {});
    lv.blockLiveOut.assign(nb, {});
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t bi = nb; bi-- > 0;) {
            const auto& b = cfg.blocks[bi];
            RegSet out;
            for (int s : b.successors)
                out |= lv.blockLiveIn[s];
            if (b.endsInIndirect)
                for (const auto& other : lv.blockLiveIn)
                    out |= other;
            RegSet in = gen[bi] | (out & ~kill[bi]);
            if (out != lv.blockLiveOut[bi] || in != lv.blockLiveIn[bi]) {
                lv.blockLiveOut[bi] = out;
                lv.blockLiveIn[bi] = in;
                changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < insts.size() && i < 8; ++i) {
        const auto& ins = insts[i];
        bool fromStackConstant = false;
        for (const auto& op : ins.operands)
            fromStackConstant =
                fromStackConstant || (op.kind == Operand::Kind::Constant && op.constOffset == 0x28);
        if (fromStackConstant && !ins.operands.empty() && ins.operands[0].reg &&
            *ins.operands[0].reg == Reg{RegFile::R, 1}) {
            lv.stackPointerFrom = int(i);
            break;
        }
    }
    lv.liveIn.assign(insts.size(), {});
    lv.liveOut.assign(insts.size(), {});
    for (const auto& b : cfg.blocks) {
        RegSet live = lv.blockLiveOut[b.index];
        for (uint32_t i = b.end; i-- > b.first;) {
            lv.liveOut[i] = live;
            const auto& ins = insts[i];
            if (!ins.guard)
                for (const auto& r : ins.defs)
                    live.reset(r.key());
            for (const auto& r : ins.uses)
                live.set(r.key());
            lv.liveIn[i] = live;
        }
    }
    return lv;
}

int Liveness::liveGprCount(const KernelListing& listing, uint32_t index) const
{
    RegSet s = liveIn[index] & liveOut[index];
    for (const auto& r : listing.instructions[index].defs)
        s.set(r.key());
    for (const auto& r : listing.instructions[index].uses)
        s.set(r.key());
    // R1 is the ABI stack pointer: once initialised, nvdisasm (and the register allocator) count it as
    // live for the rest of the kernel whether or not anything reads it.
    if (stackPointerFrom >= 0 && int(index) > stackPointerFrom) s.set(Reg{RegFile::R, 1}.key());
    int n = 0;
    for (int k = 0; k < 256; ++k)
        n += s.test(k);
    return n;
}

} // namespace sassx
