#include "core/rewrite/edit_compaction.h"

#include "core/analysis/kernel_analysis.h"

#include <algorithm>

namespace sassx {

namespace {

// Indices (into `seq`) of one longest strictly increasing subsequence, by patience sorting.
std::vector<char> longestIncreasing(const std::vector<uint32_t>& seq)
{
    std::vector<uint32_t> tails; // index of the smallest tail of each length
    std::vector<int> prev(seq.size(), -1);
    for (uint32_t i = 0; i < seq.size(); ++i) {
        auto it = std::lower_bound(tails.begin(), tails.end(), seq[i],
                                   [&](uint32_t t, uint32_t v) { return seq[t] < v; });
        if (it != tails.begin()) prev[i] = int(*(it - 1));
        if (it == tails.end())
            tails.push_back(i);
        else
            *it = i;
    }
    std::vector<char> keep(seq.size(), 0);
    for (int i = tails.empty() ? -1 : int(tails.back()); i >= 0; i = prev[size_t(i)])
        keep[size_t(i)] = 1;
    return keep;
}

} // namespace

std::optional<std::vector<Edit>> compactEdits(const KernelAnalysis& a, const Schedule& target,
                                              const std::function<void(Schedule&)>& afterMove)
{
    const size_t n = a.listing.instructions.size();
    if (target.order.size() != n || target.control.size() != n) return std::nullopt;
    std::vector<uint32_t> want(n); // target position of each instruction
    for (uint32_t p = 0; p < n; ++p) {
        if (target.order[p] >= n) return std::nullopt;
        want[target.order[p]] = p;
    }
    // The fewest moves: instructions on a longest run already in target order stay; each other one
    // moves once, in target order, to just after its target predecessor (or to its block's start).
    const std::vector<char> stays = longestIncreasing(want); // identity order: want[i] at position i
    std::vector<uint32_t> movers;
    for (uint32_t i = 0; i < n; ++i)
        if (!stays[i]) movers.push_back(i);
    std::sort(movers.begin(), movers.end(), [&](uint32_t x, uint32_t y) { return want[x] < want[y]; });
    Schedule s = Schedule::identity(a);
    std::vector<Edit> edits;
    for (uint32_t x : movers) {
        const auto pos = s.positionOf();
        const uint32_t t = want[x], cur = pos[x];
        uint32_t to = 0;
        if (t > 0 && a.cfg.blockOf[t] == a.cfg.blockOf[t - 1]) {
            const uint32_t y = pos[target.order[t - 1]];
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
    for (uint32_t i = 0; i < n; ++i) {
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
