// MoveEnumerator's moves (declared in move_enumerator.h): every legal single move of a schedule,
// computed incrementally (a move changes issue cycles only between its two positions) and held to the
// same rules as ScheduleChecker::check (tests/core/rewrite/test_legality.cpp compares them on every
// sample kernel).
#include "core/rewrite/move_enumerator.h"
#include "core/rewrite/schedule_predicates.h"

#include <algorithm>
#include <array>
#include <set>

namespace sassx {

MoveEnumerator::MoveEnumerator(std::shared_ptr<const KernelModel> model) : m_model(model), m_checker(model) {}

std::vector<uint32_t> MoveEnumerator::legalTargets(const Schedule& current, uint32_t p) const
{
    if (p >= current.order.size()) return {};
    const auto pos = current.positionOf();
    const auto& b = m_model->analysis().cfg.blocks[m_model->analysis().cfg.blockOf[p]];
    std::vector<int> cyc(b.size() + 1);
    for (uint32_t q = b.first; q < b.end; ++q) {
        const Control& c = current.control[current.order[q]];
        cyc[q - b.first + 1] = cyc[q - b.first] + issueGap(c);
    }
    return targetsFor(current, pos, cyc, p);
}

std::vector<std::pair<uint32_t, uint32_t>> MoveEnumerator::legalMoves(const Schedule& current,
                                                                      bool memoryOnly) const
{
    const auto& a = m_model->analysis();
    std::vector<std::pair<uint32_t, uint32_t>> out;
    const auto pos = current.positionOf();
    for (const auto& b : a.cfg.blocks) {
        std::vector<int> cyc(b.size() + 1);
        for (uint32_t q = b.first; q < b.end; ++q) {
            const Control& c = current.control[current.order[q]];
            cyc[q - b.first + 1] = cyc[q - b.first] + issueGap(c);
        }
        for (uint32_t p = b.first; p < b.end; ++p) {
            if (memoryOnly && !a.listing.instructions[current.order[p]].isMemory()) continue;
            for (uint32_t t : targetsFor(current, pos, cyc, p))
                out.emplace_back(p, t);
        }
    }
    return out;
}

std::pair<uint32_t, uint32_t> MoveEnumerator::targetRange(const Schedule& current,
                                                          const std::vector<uint32_t>& pos, uint32_t p) const
{
    const auto& a = m_model->analysis();
    const auto& b = a.cfg.blocks[a.cfg.blockOf[p]];
    const uint32_t x = current.order[p];
    if (m_model->isFixed(x)) return {1, 0};
    // Edges bound the range: x stays after its predecessors and before its successors; walls too.
    uint32_t lo = b.first, hi = b.end - 1;
    for (uint32_t e : a.deps.incoming(x))
        lo = std::max(lo, pos[a.deps.edges()[e].from] + 1);
    for (uint32_t e : a.deps.outgoing(x))
        if (pos[a.deps.edges()[e].to] > 0) hi = std::min(hi, pos[a.deps.edges()[e].to] - 1);
    for (uint32_t q = p; q-- > lo;)
        if (m_model->isFixed(current.order[q])) {
            lo = q + 1;
            break;
        }
    for (uint32_t q = p + 1; q <= hi; ++q)
        if (m_model->isFixed(current.order[q])) {
            hi = q - 1;
            break;
        }
    return {lo, hi};
}

std::vector<uint32_t> MoveEnumerator::targetsFor(const Schedule& current, const std::vector<uint32_t>& pos,
                                                 const std::vector<int>& cyc, uint32_t p) const
{
    std::vector<uint32_t> out;
    const auto [lo, hi] = targetRange(current, pos, p);
    for (uint32_t t = lo; t <= hi && lo <= hi; ++t)
        if (t != p && targetLegal(current, pos, cyc, p, t)) out.push_back(t);
    return out;
}

bool MoveEnumerator::targetLegal(const Schedule& current, const std::vector<uint32_t>& pos,
                                 const std::vector<int>& cyc, uint32_t p, uint32_t t) const
{
    const auto& a = m_model->analysis();
    const auto& insts = a.listing.instructions;
    const auto& b = a.cfg.blocks[a.cfg.blockOf[p]];
    const uint32_t x = current.order[p];
    // cyc: current issue cycles of the block; a move changes cycles only between its two positions.
    auto stallOf = [&](uint32_t inst) { return issueGap(current.control[inst]); };
    const int blockCycles = cyc[b.size()];
    const uint32_t rlo = std::min(p, t), rhi = std::max(p, t);
    const auto& spacingOf = m_model->spacing();
    auto orderAt = [&](uint32_t q) -> uint32_t {
        if (q < rlo || q > rhi) return current.order[q];
        if (q == t) return x;
        return p < t ? current.order[q + 1] : current.order[q - 1];
    };
    // New cycles inside [rlo, rhi]; outside, unchanged.
    std::vector<int> rc(rhi - rlo + 1);
    int c = cyc[rlo - b.first];
    for (uint32_t q = rlo; q <= rhi; ++q) {
        rc[q - rlo] = c;
        c += stallOf(orderAt(q));
    }
    auto newPos = [&](uint32_t i) -> uint32_t {
        if (i == x) return t;
        uint32_t q = pos[i];
        if (q < rlo || q > rhi) return q;
        return p < t ? q - 1 : q + 1;
    };
    auto newCycle = [&](uint32_t i) {
        uint32_t q = newPos(i);
        return (q >= rlo && q <= rhi) ? rc[q - rlo] : cyc[q - b.first];
    };
    bool ok = true;
    // Fixed-latency distances of every edge touching the region, and the cross-block bounds.
    for (uint32_t q = rlo; q <= rhi && ok; ++q) {
        const uint32_t y = orderAt(q);
        const int cy = rc[q - rlo];
        if (cy < m_model->needFromStart(y) || blockCycles - cy < m_model->needToEnd(y)) {
            ok = false;
            break;
        }
        for (uint32_t e : a.deps.incoming(y)) {
            const auto& d = a.deps.edges()[e];
            if (!d.hasDistanceBound()) continue;
            int required = d.requiredDistance();
            if (cy - newCycle(d.from) < required) {
                ok = false;
                break;
            }
        }
        if (!ok) break;
        for (uint32_t e : a.deps.outgoing(y)) {
            const auto& d = a.deps.edges()[e];
            if (!d.hasDistanceBound()) continue;
            int required = d.requiredDistance();
            if (newCycle(d.to) - cy < required) {
                ok = false;
                break;
            }
        }
    }
    // Scoreboard re-arm and issue spacing look back a few cycles from each instruction that may
    // have a new neighbour: the region and what issues within a few cycles after it.
    auto cycleAtPos = [&](uint32_t q) { return (q >= rlo && q <= rhi) ? rc[q - rlo] : cyc[q - b.first]; };
    int window = 2;
    for (const auto& [cls, sp] : spacingOf)
        window = std::max(window, sp);
    for (uint32_t q = rlo; q < b.end && ok; ++q) {
        const int cq = cycleAtPos(q);
        if (q > rhi && cq - cycleAtPos(rhi) > window) break;
        const uint32_t y = orderAt(q);
        const Control& cy = current.control[y];
        const std::string cls = spacingClass(insts[y]);
        auto spacing = cls.empty() ? spacingOf.end() : spacingOf.find(cls);
        for (uint32_t r = q; r-- > b.first;) {
            const int dist = cq - cycleAtPos(r);
            if (dist >= window) break;
            const uint32_t w = orderAt(r);
            for (uint8_t sb : {cy.wbar, cy.rbar})
                if (sb < 6 && current.control[w].waitsOn(sb) && dist < 2) {
                    int orig = a.facts[y].cycle - a.facts[w].cycle;
                    if (dist < shortScoreboardNeed(orig, keepsPtxasYield(current.control[w], insts[w])))
                        ok = false;
                }
            if (dist < 2) {
                const uint8_t waits = waitMaskOf(insts[y], cy);
                for (int sb = 0; sb < 6 && ok; ++sb)
                    if (((waits >> sb) & 1) && setsScoreboard(current.control[w], sb)) {
                        int orig = a.facts[y].cycle - a.facts[w].cycle;
                        if (dist < shortScoreboardNeed(orig, keepsPtxasYield(current.control[w], insts[w])))
                            ok = false;
                    }
            }
            if (spacing != spacingOf.end() && spacingClass(insts[w]) == cls && dist < spacing->second)
                ok = false;
            if (!ok) break;
        }
    }
    // A scoreboard set in the block's last 2 cycles may be waited on at the next block's start.
    if (ok && rhi + 1 == b.end) {
        std::array<bool, 6> seen{};
        for (uint32_t q = b.end; q-- > b.first && ok;) {
            const int tail = blockCycles - cycleAtPos(q);
            if (tail >= 2) break;
            const uint32_t y = orderAt(q);
            for (uint8_t sb : {current.control[y].wbar, current.control[y].rbar})
                if (sb < 6 && !seen[sb]) {
                    seen[sb] = true;
                    const bool keeps = keepsPtxasYield(current.control[y], insts[y]);
                    if (tail < (keeps ? std::min(2, m_model->originalTail(y)) : 2)) ok = false;
                }
        }
    }
    return ok;
}

std::vector<uint32_t> MoveEnumerator::orderTargets(const Schedule& current, uint32_t position,
                                                   int maxDistance) const
{
    const auto& a = m_model->analysis();
    std::vector<uint32_t> out;
    const uint32_t i = current.order[position];
    if (m_model->isFixed(i)) return out;
    const auto& blk = a.cfg.blocks[size_t(a.cfg.blockOf[position])];
    std::set<uint32_t> linked; // instructions i has a dependency with: i may not cross them
    for (uint32_t e : a.deps.outgoing(i))
        linked.insert(a.deps.edges()[e].to);
    for (uint32_t e : a.deps.incoming(i))
        linked.insert(a.deps.edges()[e].from);
    for (int dir : {-1, 1}) {
        for (int d = 1; d <= maxDistance; ++d) {
            const int64_t t = int64_t(position) + dir * d;
            if (t < int64_t(blk.first) || t >= int64_t(blk.end)) break;
            const uint32_t q = current.order[size_t(t)];
            if (m_model->isFixed(q) || linked.count(q)) break;
            out.push_back(uint32_t(t));
        }
    }
    return out;
}

MoveEnumerator::MoveTester::MoveTester(const MoveEnumerator& enumerator, const Schedule& current)
    : m_enumerator(enumerator), m_current(current), m_pos(current.positionOf())
{
    const auto& blocks = enumerator.model().analysis().cfg.blocks;
    m_cycles.resize(blocks.size());
    for (size_t k = 0; k < blocks.size(); ++k) {
        const auto& b = blocks[k];
        auto& cyc = m_cycles[k];
        cyc.assign(b.size() + 1, 0);
        for (uint32_t q = b.first; q < b.end; ++q)
            cyc[q - b.first + 1] = cyc[q - b.first] + issueGap(current.control[current.order[q]]);
    }
}

std::pair<uint32_t, uint32_t> MoveEnumerator::MoveTester::range(uint32_t from) const
{
    if (from >= m_current.order.size()) return {1, 0};
    if (m_ranges.empty()) {
        m_ranges.resize(m_current.order.size());
        m_rangeKnown.assign(m_current.order.size(), false);
    }
    if (!m_rangeKnown[from]) {
        m_ranges[from] = m_enumerator.targetRange(m_current, m_pos, from);
        m_rangeKnown[from] = true;
    }
    return m_ranges[from];
}

bool MoveEnumerator::MoveTester::legal(uint32_t from, uint32_t to) const
{
    if (from == to || from >= m_current.order.size() || to >= m_current.order.size()) return false;
    const auto [lo, hi] = range(from);
    if (to < lo || to > hi) return false;
    const auto& cfg = m_enumerator.model().analysis().cfg;
    return m_enumerator.targetLegal(m_current, m_pos, m_cycles[size_t(cfg.blockOf[from])], from, to);
}

} // namespace sassx
