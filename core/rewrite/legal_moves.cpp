// MoveEnumerator's moves (declared in move_enumerator.h): every legal single move of a schedule,
// computed incrementally (a move changes issue cycles only between its two positions) and held to the
// same rules as ScheduleChecker::check (tests/core/rewrite/test_legality.cpp compares them on every
// sample kernel).
#include "core/rewrite/block_positions.h"
#include "core/rewrite/move_enumerator.h"
#include "core/rewrite/schedule_predicates.h"

#include <algorithm>
#include <array>
#include <set>

namespace sassx {

MoveEnumerator::MoveEnumerator(std::shared_ptr<const KernelModel> model) : m_model(model), m_checker(model) {}

namespace {

// Issue cycle of each position of block b in `current` from the block's start, then the block's end.
std::vector<int> blockCycles(const Schedule& current, const BasicBlock& b)
{
    std::vector<int> cyc(b.size() + 1);
    for (Position q : positionsOf(b)) {
        const uint32_t k = offsetInBlock(b, q);
        cyc[k + 1] = cyc[k] + issueGap(current.control[current.order[q]]);
    }
    return cyc;
}

} // namespace

std::vector<Position> MoveEnumerator::legalTargets(const Schedule& current, Position p) const
{
    if (p.value() >= current.size()) return {};
    const auto pos = current.positionOf();
    const auto& b = blockOfPosition(m_model->analysis().cfg, p);
    return targetsFor(current, pos, blockCycles(current, b), p);
}

std::vector<std::pair<Position, Position>> MoveEnumerator::legalMoves(const Schedule& current,
                                                                      bool memoryOnly) const
{
    const auto& a = m_model->analysis();
    std::vector<std::pair<Position, Position>> out;
    const auto pos = current.positionOf();
    for (const auto& b : a.cfg.blocks) {
        const std::vector<int> cyc = blockCycles(current, b);
        for (Position p : positionsOf(b)) {
            if (memoryOnly && !a.listing.instructions[current.order[p].value()].isMemory()) continue;
            for (Position t : targetsFor(current, pos, cyc, p))
                out.emplace_back(p, t);
        }
    }
    return out;
}

std::pair<Position, Position> MoveEnumerator::targetRange(const Schedule& current,
                                                          const IndexVector<InstrId, Position>& pos,
                                                          Position p) const
{
    const auto& a = m_model->analysis();
    const auto& b = blockOfPosition(a.cfg, p);
    const InstrId x = current.order[p];
    if (m_model->isFixed(x)) return {Position(1), Position(0)};
    // Edges bound the range: x stays after its predecessors and before its successors; walls too.
    Position lo = firstPosition(b), hi = endPosition(b) - 1;
    for (uint32_t e : a.deps.incoming(x.value()))
        lo = std::max(lo, pos[InstrId(a.deps.edges()[e].from)] + 1);
    for (uint32_t e : a.deps.outgoing(x.value()))
        if (const Position to = pos[InstrId(a.deps.edges()[e].to)]; to > Position(0))
            hi = std::min(hi, to - 1);
    for (Position q = p; q-- > lo;)
        if (m_model->isFixed(current.order[q])) {
            lo = q + 1;
            break;
        }
    for (Position q = p + 1; q <= hi; ++q)
        if (m_model->isFixed(current.order[q])) {
            hi = q - 1;
            break;
        }
    return {lo, hi};
}

std::vector<Position> MoveEnumerator::targetsFor(const Schedule& current,
                                                 const IndexVector<InstrId, Position>& pos,
                                                 const std::vector<int>& cyc, Position p) const
{
    std::vector<Position> out;
    const auto [lo, hi] = targetRange(current, pos, p);
    for (Position t = lo; t <= hi && lo <= hi; ++t)
        if (t != p && targetLegal(current, pos, cyc, p, t)) out.push_back(t);
    return out;
}

bool MoveEnumerator::targetLegal(const Schedule& current, const IndexVector<InstrId, Position>& pos,
                                 const std::vector<int>& cyc, Position p, Position t) const
{
    const auto& a = m_model->analysis();
    const auto& insts = a.listing.instructions;
    const auto& b = blockOfPosition(a.cfg, p);
    const InstrId x = current.order[p];
    // cyc: current issue cycles of the block; a move changes cycles only between its two positions.
    auto stallOf = [&](InstrId inst) { return issueGap(current.control[inst]); };
    const int blockCycles = cyc[b.size()];
    const Position rlo = std::min(p, t), rhi = std::max(p, t);
    const auto& spacingOf = m_model->spacing();
    auto orderAt = [&](Position q) -> InstrId {
        if (q < rlo || q > rhi) return current.order[q];
        if (q == t) return x;
        return p < t ? current.order[q + 1] : current.order[q - 1];
    };
    // New cycles inside [rlo, rhi]; outside, unchanged.
    std::vector<int> rc(size_t(rhi - rlo) + 1);
    int c = cyc[offsetInBlock(b, rlo)];
    for (Position q = rlo; q <= rhi; ++q) {
        rc[size_t(q - rlo)] = c;
        c += stallOf(orderAt(q));
    }
    auto newPos = [&](InstrId i) -> Position {
        if (i == x) return t;
        const Position q = pos[i];
        if (q < rlo || q > rhi) return q;
        return p < t ? q - 1 : q + 1;
    };
    auto cycleAtPos = [&](Position q) {
        return (q >= rlo && q <= rhi) ? rc[size_t(q - rlo)] : cyc[offsetInBlock(b, q)];
    };
    auto newCycle = [&](uint32_t i) { return cycleAtPos(newPos(InstrId(i))); };
    bool ok = true;
    // Fixed-latency distances of every edge touching the region, and the cross-block bounds.
    for (Position q = rlo; q <= rhi && ok; ++q) {
        const InstrId y = orderAt(q);
        const int cy = rc[size_t(q - rlo)];
        if (cy < m_model->needFromStart(y) || blockCycles - cy < m_model->needToEnd(y)) {
            ok = false;
            break;
        }
        for (uint32_t e : a.deps.incoming(y.value())) {
            const auto& d = a.deps.edges()[e];
            if (!d.hasDistanceBound()) continue;
            int required = d.requiredDistance();
            if (cy - newCycle(d.from) < required) {
                ok = false;
                break;
            }
        }
        if (!ok) break;
        for (uint32_t e : a.deps.outgoing(y.value())) {
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
    int window = 2;
    for (const auto& [cls, sp] : spacingOf)
        window = std::max(window, sp);
    for (Position q = rlo; q < endPosition(b) && ok; ++q) {
        const int cq = cycleAtPos(q);
        if (q > rhi && cq - cycleAtPos(rhi) > window) break;
        const InstrId y = orderAt(q);
        const auto& iy = insts[y.value()];
        const Control& cy = current.control[y];
        const std::string cls = spacingClass(iy);
        auto spacing = cls.empty() ? spacingOf.end() : spacingOf.find(cls);
        for (Position r = q; r-- > firstPosition(b);) {
            const int dist = cq - cycleAtPos(r);
            if (dist >= window) break;
            const InstrId w = orderAt(r);
            const auto& iw = insts[w.value()];
            const int orig = a.facts[y.value()].cycle - a.facts[w.value()].cycle;
            for (uint8_t sb : {cy.wbar, cy.rbar})
                if (sb < 6 && current.control[w].waitsOn(sb) && dist < 2) {
                    if (dist < shortScoreboardNeed(orig, keepsPtxasYield(current.control[w], iw))) ok = false;
                }
            if (dist < 2) {
                const uint8_t waits = waitMaskOf(iy, cy);
                for (int sb = 0; sb < 6 && ok; ++sb)
                    if (((waits >> sb) & 1) && setsScoreboard(current.control[w], sb)) {
                        if (dist < shortScoreboardNeed(orig, keepsPtxasYield(current.control[w], iw)))
                            ok = false;
                    }
            }
            if (spacing != spacingOf.end() && spacingClass(iw) == cls && dist < spacing->second) ok = false;
            if (!ok) break;
        }
    }
    // A scoreboard set in the block's last 2 cycles may be waited on at the next block's start.
    if (ok && rhi + 1 == endPosition(b)) {
        std::array<bool, 6> seen{};
        for (Position q = endPosition(b); q-- > firstPosition(b) && ok;) {
            const int tail = blockCycles - cycleAtPos(q);
            if (tail >= 2) break;
            const InstrId y = orderAt(q);
            for (uint8_t sb : {current.control[y].wbar, current.control[y].rbar})
                if (sb < 6 && !seen[sb]) {
                    seen[sb] = true;
                    const bool keeps = keepsPtxasYield(current.control[y], insts[y.value()]);
                    if (tail < (keeps ? std::min(2, m_model->originalTail(y)) : 2)) ok = false;
                }
        }
    }
    return ok;
}

std::vector<Position> MoveEnumerator::orderTargets(const Schedule& current, Position position,
                                                   int maxDistance) const
{
    const auto& a = m_model->analysis();
    std::vector<Position> out;
    const InstrId i = current.order[position];
    if (m_model->isFixed(i)) return out;
    const auto& blk = blockOfPosition(a.cfg, position);
    std::set<InstrId> linked; // instructions i has a dependency with: i may not cross them
    for (uint32_t e : a.deps.outgoing(i.value()))
        linked.insert(InstrId(a.deps.edges()[e].to));
    for (uint32_t e : a.deps.incoming(i.value()))
        linked.insert(InstrId(a.deps.edges()[e].from));
    for (int dir : {-1, 1}) {
        for (int d = 1; d <= maxDistance; ++d) {
            const int64_t t = int64_t(position.value()) + dir * d;
            if (t < int64_t(blk.first) || t >= int64_t(blk.end)) break;
            const Position tp{uint32_t(t)};
            const InstrId q = current.order[tp];
            if (m_model->isFixed(q) || linked.count(q)) break;
            out.push_back(tp);
        }
    }
    return out;
}

MoveEnumerator::MoveTester::MoveTester(const MoveEnumerator& enumerator, const Schedule& current)
    : m_enumerator(enumerator), m_current(current), m_pos(current.positionOf())
{
    const auto& blocks = enumerator.model().analysis().cfg.blocks;
    m_cycles.reserve(blocks.size());
    for (const auto& b : blocks)
        m_cycles.push_back(blockCycles(current, b));
}

std::pair<Position, Position> MoveEnumerator::MoveTester::range(Position from) const
{
    if (from.value() >= m_current.size()) return {Position(1), Position(0)};
    if (m_ranges.empty()) {
        m_ranges.resize(m_current.size());
        m_rangeKnown.assign(m_current.size(), false);
    }
    if (!m_rangeKnown[from.value()]) {
        m_ranges[from.value()] = m_enumerator.targetRange(m_current, m_pos, from);
        m_rangeKnown[from.value()] = true;
    }
    return m_ranges[from.value()];
}

bool MoveEnumerator::MoveTester::legal(Position from, Position to) const
{
    if (from == to || from.value() >= m_current.size() || to.value() >= m_current.size()) return false;
    const auto [lo, hi] = range(from);
    if (to < lo || to > hi) return false;
    const auto& cfg = m_enumerator.model().analysis().cfg;
    return m_enumerator.targetLegal(m_current, m_pos, m_cycles[size_t(blockAt(cfg, from))], from, to);
}

} // namespace sassx
