#include "core/rewrite/edit_compaction.h"

#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/block_positions.h"

#include <algorithm>

namespace sassx {

namespace {

// The instructions on one longest run whose target positions increase in original order, by patience
// sorting.
IndexVector<InstrId, char> longestIncreasing(const IndexVector<InstrId, Position>& seq)
{
    std::vector<InstrId> tails; // the instruction with the smallest tail of each length
    IndexVector<InstrId, std::optional<InstrId>> prev(seq.size());
    for (InstrId i : seq.indices()) {
        auto it = std::lower_bound(tails.begin(), tails.end(), seq[i],
                                   [&](InstrId t, Position v) { return seq[t] < v; });
        if (it != tails.begin()) prev[i] = *(it - 1);
        if (it == tails.end())
            tails.push_back(i);
        else
            *it = i;
    }
    IndexVector<InstrId, char> keep(seq.size(), 0);
    for (std::optional<InstrId> i = tails.empty() ? std::nullopt : std::optional(tails.back()); i;
         i = prev[*i])
        keep[*i] = 1;
    return keep;
}

} // namespace

std::optional<std::vector<Edit>> compactEdits(const KernelAnalysis& a, const Schedule& target,
                                              const std::function<void(Schedule&)>& afterMove)
{
    const size_t n = a.listing.instructions.size();
    if (target.order.size() != n || target.control.size() != n) return std::nullopt;
    IndexVector<InstrId, Position> want(n); // target position of each instruction
    for (Position p : target.positions()) {
        if (target.order[p].value() >= n) return std::nullopt;
        want[target.order[p]] = p;
    }
    // The fewest moves: instructions on a longest run already in target order stay; each other one
    // moves once, in target order, to just after its target predecessor (or to its block's start).
    const IndexVector<InstrId, char> stays = longestIncreasing(want); // identity order to start from
    std::vector<InstrId> movers;
    for (InstrId i : want.indices())
        if (!stays[i]) movers.push_back(i);
    std::sort(movers.begin(), movers.end(), [&](InstrId x, InstrId y) { return want[x] < want[y]; });
    Schedule s = Schedule::identity(a);
    std::vector<Edit> edits;
    for (InstrId x : movers) {
        const auto pos = s.positionOf();
        const Position t = want[x], cur = pos[x];
        Position to;
        if (t > Position(0) && blockAt(a.cfg, t) == blockAt(a.cfg, t - 1)) {
            const Position y = pos[target.order[t - 1]];
            to = cur > y ? y + 1 : y;
        } else {
            to = t; // the block's first position: everything before it is in place already
        }
        if (to == cur) continue;
        s.move(cur, to);
        if (afterMove) afterMove(s);
        edits.push_back(Edit::move(cur, to));
    }
    const auto pos = s.positionOf();
    for (InstrId i : s.instructions()) {
        const Control& have = s.control[i];
        const Control& want = target.control[i];
        if (have == want) continue;
        // Only stall, yield and reuse are editable; anything else differing cannot be expressed.
        Control probe = have;
        probe.stall = want.stall;
        probe.yield = want.yield;
        probe.reuse = want.reuse;
        if (!(probe == want)) return std::nullopt;
        edits.push_back(Edit::control(
            pos[i], want.stall != have.stall ? std::optional<uint8_t>(want.stall) : std::nullopt,
            want.yield != have.yield ? std::optional<uint8_t>(want.yield) : std::nullopt,
            want.reuse != have.reuse ? std::optional<uint8_t>(want.reuse) : std::nullopt));
    }
    auto replay = applyEdits(a, edits, afterMove);
    if (!replay || replay->order != target.order || !(replay->control == target.control)) return std::nullopt;
    return edits;
}

} // namespace sassx
