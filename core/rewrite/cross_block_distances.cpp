// KernelModel::computeCrossBlockDistances (declared in kernel_model.h): the distances a schedule must
// keep to producers and consumers in other blocks (docs/legality.md, "What the checker enforces on a
// schedule", 4). A forward and a backward data-flow over the ages of register values at block edges,
// capped at the longest fixed latency, give each instruction the least issue cycle from its block's
// start and the least cycles to its block's end.
#include "core/rewrite/kernel_model.h"

#include <algorithm>

namespace sassx {

void KernelModel::computeCrossBlockDistances()
{
    const auto& a = *m_analysis;
    const auto& insts = a.listing.instructions;
    m_maxFixed = a.latencies.isEmpty() ? 15 : a.latencies.maxFixedLatency();
    const uint8_t cap = uint8_t(m_maxFixed);
    const size_t nb = a.cfg.blocks.size();
    std::vector<int> length(nb, 0);
    for (const auto& b : a.cfg.blocks)
        for (uint32_t i = b.first; i < b.end; ++i)
            length[b.index] += issueGap(insts[i].control);
    auto sat = [&](int v) { return uint8_t(std::min<int>(v, cap)); };

    // Forward: age of each register's value at block entry.
    m_entryAge.assign(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    std::vector<std::vector<uint8_t>> ageOut(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& b : a.cfg.blocks) {
            auto& in = m_entryAge[b.index];
            for (int p : b.predecessors)
                for (int k = 0; k < Reg::kKeyCount; ++k)
                    if (ageOut[p][k] < in[k]) {
                        in[k] = ageOut[p][k];
                        changed = true;
                    }
            std::vector<uint8_t> out(Reg::kKeyCount);
            for (int k = 0; k < Reg::kKeyCount; ++k)
                out[k] = sat(in[k] + length[b.index]);
            for (uint32_t i = b.first; i < b.end; ++i)
                for (const auto& r : insts[i].defs)
                    out[r.key()] = insts[i].variableLatency ? cap : sat(length[b.index] - a.facts[i].cycle);
            if (out != ageOut[b.index]) {
                ageOut[b.index] = std::move(out);
                changed = true;
            }
        }
    }
    // Backward: cycles from block exit to the first read of each register.
    m_exitDistance.assign(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    std::vector<std::vector<uint8_t>> distIn(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t bi = nb; bi-- > 0;) {
            const auto& b = a.cfg.blocks[bi];
            auto& out = m_exitDistance[bi];
            for (int sidx : b.successors)
                for (int k = 0; k < Reg::kKeyCount; ++k)
                    if (distIn[sidx][k] < out[k]) {
                        out[k] = distIn[sidx][k];
                        changed = true;
                    }
            std::vector<uint8_t> in(Reg::kKeyCount);
            for (int k = 0; k < Reg::kKeyCount; ++k)
                in[k] = sat(out[k] + length[bi]);
            for (uint32_t i = b.end; i-- > b.first;) {
                for (const auto& r : insts[i].defs)
                    if (!insts[i].guard) in[r.key()] = cap;
                for (const auto& r : insts[i].uses)
                    in[r.key()] = sat(a.facts[i].cycle);
            }
            if (in != distIn[bi]) {
                distIn[bi] = std::move(in);
                changed = true;
            }
        }
    }
    // Per instruction: the least issue cycle from its block start (it reads a young value from before
    // the block) and the least cycles to its block end (it writes a value read soon after the block).
    m_needFromStart.assign(insts.size(), 0);
    m_needToEnd.assign(insts.size(), 0);
    m_origTail.assign(insts.size(), 0);
    for (const auto& b : a.cfg.blocks)
        for (uint32_t i = b.first; i < b.end; ++i)
            m_origTail[i] = length[b.index] - a.facts[i].cycle;
    for (const auto& b : a.cfg.blocks) {
        for (uint32_t i = b.first; i < b.end; ++i) {
            const auto& ins = insts[i];
            for (const auto& r : ins.uses) {
                int age = m_entryAge[b.index][r.key()];
                if (age >= m_maxFixed) continue;
                bool inBlock = false;
                for (uint32_t e : a.deps.incoming(i)) {
                    const auto& d = a.deps.edges()[e];
                    inBlock = inBlock ||
                              ((d.kind == DepKind::Raw || d.kind == DepKind::Waw) && d.hasReg && d.reg == r);
                }
                if (!inBlock)
                    m_needFromStart[i] =
                        std::max(m_needFromStart[i], std::min(m_maxFixed - age, a.facts[i].cycle));
            }
            if (ins.variableLatency) continue;
            const int origTail = length[b.index] - a.facts[i].cycle;
            for (const auto& r : ins.defs) {
                int dist = m_exitDistance[b.index][r.key()];
                if (dist >= m_maxFixed) continue;
                bool redefined = false;
                for (uint32_t e : a.deps.outgoing(i)) {
                    const auto& d = a.deps.edges()[e];
                    redefined = redefined || (d.kind == DepKind::Waw && d.hasReg && d.reg == r);
                }
                if (!redefined)
                    m_needToEnd[i] = std::max(m_needToEnd[i], std::min(m_maxFixed - dist, origTail));
            }
        }
    }
}

} // namespace sassx
