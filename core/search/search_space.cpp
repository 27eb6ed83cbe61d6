#include "core/search/search_space.h"

#include "core/rewrite/block_positions.h"

#include <algorithm>
#include <numeric>

namespace sassx::search {

std::optional<SearchSpace> parseSearchSpace(const std::string& name)
{
    if (name == "mem") return SearchSpace::Mem;
    if (name == "all") return SearchSpace::All;
    if (name == "yield") return SearchSpace::Yield;
    if (name == "all+control") return SearchSpace::AllControl;
    if (name == "rescheduled") return SearchSpace::Rescheduled;
    return std::nullopt;
}

std::string spaceName(SearchSpace space)
{
    switch (space) {
    case SearchSpace::Mem:
        return "mem";
    case SearchSpace::All:
        return "all";
    case SearchSpace::Yield:
        return "yield";
    case SearchSpace::AllControl:
        return "all+control";
    case SearchSpace::Rescheduled:
        return "rescheduled";
    }
    return "?";
}

std::string spaceUnavailableReason(SearchSpace)
{
    return {}; // every space can be searched (kept for spaces a build or an arch cannot offer)
}

std::string estimateBlindSpot(SearchSpace space)
{
    if (!spaceHasControl(space)) return {};
    const std::string what = space == SearchSpace::Yield
                                 ? "every edit of the yield space estimates"
                                 : "the yield and reuse edits of the " + spaceName(space) + " space estimate";
    return "the estimate does not model yield or reuse bits, so " + what +
           " exactly 1.000x: judge them on a GPU (--backend gpu), or search the all or mem space";
}

bool spaceHasMoves(SearchSpace space)
{
    return space != SearchSpace::Yield;
}

bool spaceHasControl(SearchSpace space)
{
    return space == SearchSpace::Yield || space == SearchSpace::AllControl ||
           space == SearchSpace::Rescheduled;
}

EditProposer::EditProposer(const LegalityChecker& checker, SearchSpace space)
    : m_checker(checker), m_space(space)
{
    if (!spaceHasMoves(space)) return;
    const auto& a = checker.analysis();
    for (InstrId i : indexRange<InstrId>(uint32_t(a.listing.instructions.size())))
        if (!checker.isWall(i) && !a.deps.unresolved()[i.value()] &&
            (space != SearchSpace::Mem || a.listing.instructions[i.value()].isMemory()))
            m_movable.push_back(i);
}

void EditProposer::setGuide(std::vector<double> weights)
{
    m_guide = IndexVector<InstrId, double>(std::move(weights));
    if (m_guide.empty()) return;
    std::vector<double> w;
    for (InstrId i : m_movable)
        w.push_back(i < m_guide.endIndex() ? m_guide[i] : 0.0);
    m_movableDraw = std::discrete_distribution<size_t>(w.begin(), w.end());
    const size_t n = m_checker.analysis().listing.instructions.size();
    std::vector<double> all(n, 0.0);
    std::copy_n(m_guide.begin(), std::min(n, m_guide.size()), all.begin());
    m_guideDraw = std::discrete_distribution<size_t>(all.begin(), all.end());
}

InstrId EditProposer::drawMovable(std::mt19937_64& rng) const
{
    if (m_guide.empty())
        return m_movable[std::uniform_int_distribution<size_t>(0, m_movable.size() - 1)(rng)];
    return m_movable[m_movableDraw(rng)];
}

std::optional<Edit> EditProposer::proposeMove(Schedule& schedule, std::mt19937_64& rng) const
{
    if (m_movable.empty()) return std::nullopt;
    const InstrId inst = drawMovable(rng);
    const Position p = schedule.positionOf()[inst];
    const auto targets = m_checker.legalTargets(schedule, p);
    if (targets.empty()) return std::nullopt;
    const Position t = targets[std::uniform_int_distribution<size_t>(0, targets.size() - 1)(rng)];
    schedule.move(p, t);
    // The convention every replay uses (KernelWorkspace::schedule): reuse fix-up after each move.
    m_checker.fixReuse(schedule);
    return Edit::move(p, t);
}

std::vector<Edit> EditProposer::proposeRescheduledMove(Schedule& schedule, std::mt19937_64& rng) const
{
    if (m_movable.empty()) return {};
    const InstrId inst = drawMovable(rng);
    const Position p = schedule.positionOf()[inst];
    auto targets = m_checker.moveEnumerator().orderTargets(schedule, p, 32);
    std::shuffle(targets.begin(), targets.end(), rng);
    // Deriving codes costs a few checker passes over the block: try a handful of targets, not all.
    for (size_t k = 0; k < targets.size() && k < 4; ++k) {
        auto r = m_checker.rescheduler().rescheduledMove(schedule, p, targets[k]);
        if (!r) continue;
        schedule = std::move(r->second);
        return std::move(r->first);
    }
    return {};
}

EditProposer::BlockControl& EditProposer::blockControl(const Schedule& schedule, uint32_t block) const
{
    // A block's legal control edits depend on its own order and control bits only (legality.h,
    // legalControlEdits: cycles, reuse pairs and scoreboard spacing are per block); the instruction
    // after it is in the key too, to be safe about reuse pairs at the boundary. So a move, which
    // changes one block, leaves the others' edits as they were, and several environments walking from
    // one start keep meeting the same blocks. The key is the block's whole content, compared exactly.
    const auto& b = m_checker.analysis().cfg.blocks[block];
    const Position n = schedule.order.endIndex();
    auto packed = [](const Control& c) {
        return uint32_t(c.stall) | uint32_t(c.yield) << 4 | uint32_t(c.wbar) << 5 | uint32_t(c.rbar) << 8 |
               uint32_t(c.wait) << 11 | uint32_t(c.reuse) << 17;
    };
    std::vector<uint32_t> key;
    key.reserve(2 * (b.size() + 1) + 1);
    key.push_back(uint32_t(b.index));
    for (Position q = firstPosition(b); q < std::min(endPosition(b) + 1, n); ++q) {
        const InstrId i = schedule.order[q];
        key.push_back(i.value());
        key.push_back(packed(schedule.control[i]));
    }
    auto it = m_blockControl.find(key);
    if (it == m_blockControl.end()) {
        BlockControl fresh;
        fresh.at.resize(b.size());
        fresh.known.assign(b.size(), 0);
        inheritControl(block, key, fresh);
        it = m_blockControl.emplace(key, std::move(fresh)).first;
    }
    if (m_lastBlockKey.size() < m_checker.analysis().cfg.blocks.size())
        m_lastBlockKey.resize(m_checker.analysis().cfg.blocks.size());
    m_lastBlockKey[block] = std::move(key);
    return it->second;
}

void EditProposer::inheritControl(uint32_t block, const std::vector<uint32_t>& key, BlockControl& fresh) const
{
    // The same order as the block's last content, with yield or reuse bits changed at a few positions
    // (an edit the walk took): yield and reuse edits of different instructions are independent
    // (legality.h, legalControlEdits), so the other positions' edits are the last content's, as
    // controlEditsOf has it for the whole list. A changed stall or scoreboard shifts the block: nothing
    // is inherited.
    if (block >= m_lastBlockKey.size() || m_lastBlockKey[block].size() != key.size()) return;
    const auto parent = m_blockControl.find(m_lastBlockKey[block]);
    if (parent == m_blockControl.end()) return;
    const auto& last = parent->first;
    constexpr uint32_t kYieldAndReuse = 1u << 4 | 0xfu << 17;
    std::vector<size_t> changed;
    for (size_t k = 1; k + 1 < key.size(); k += 2) {
        if (key[k] != last[k]) return; // another order
        if (key[k + 1] == last[k + 1]) continue;
        if ((key[k + 1] ^ last[k + 1]) & ~kYieldAndReuse) return;
        changed.push_back((k - 1) / 2);
    }
    if (changed.size() > 16) return;
    fresh = parent->second;
    // The changed positions and, to be safe about reuse pairs, their neighbours are judged afresh (the
    // instruction after the block is in the key, not the entry: its neighbour is the block's last).
    for (size_t q : changed)
        for (size_t r = q == 0 ? 0 : q - 1; r <= q + 1; ++r)
            if (r < fresh.known.size()) {
                fresh.known[r] = 0;
                fresh.at[r].clear();
            }
}

void EditProposer::trimBlockControl() const
{
    // Bounded: a long run meets many block contents; dropping all is simplest and rare.
    if (m_blockControl.size() >= 4096) {
        m_blockControl.clear();
        m_lastBlockKey.clear();
    }
}

void EditProposer::judgeControl(const Schedule& schedule, uint32_t block, BlockControl& entry, Position from,
                                Position to) const
{
    const auto& b = m_checker.analysis().cfg.blocks[block];
    std::vector<Position> positions;
    for (Position p = from; p < to; ++p)
        if (!entry.known[offsetInBlock(b, p)]) positions.push_back(p);
    if (positions.empty()) return;
    // Edits of different instructions are judged independently (legalControlEdits), so judging a few
    // positions gives each the edits a whole-block pass would.
    for (const Edit& e : m_checker.legalControlEdits(schedule, controlSpace(), positions))
        entry.at[offsetInBlock(b, e.at)].push_back(e);
    for (Position p : positions)
        entry.known[offsetInBlock(b, p)] = 1;
}

ControlSpace EditProposer::controlSpace() const
{
    return m_space == SearchSpace::Yield         ? ControlSpace::Yield
           : m_space == SearchSpace::Rescheduled ? ControlSpace::All
                                                 : ControlSpace::YieldAndReuse;
}

std::vector<Edit> EditProposer::controlEditsByBlock(const Schedule& schedule) const
{
    std::vector<Edit> out;
    const auto& blocks = m_checker.analysis().cfg.blocks;
    trimBlockControl();
    for (uint32_t k = 0; k < blocks.size(); ++k) {
        BlockControl& entry = blockControl(schedule, k);
        judgeControl(schedule, k, entry, firstPosition(blocks[k]), endPosition(blocks[k]));
        for (const auto& edits : entry.at)
            out.insert(out.end(), edits.begin(), edits.end());
    }
    return out;
}

const std::vector<Edit>& EditProposer::controlEditsOf(const Schedule& schedule) const
{
    const ControlSpace cs = controlSpace();
    if (m_cacheValid && schedule.order == m_cachedFor.order) {
        // Same order, some control bits changed (an accepted control edit): only those instructions'
        // edits change, as edits of different instructions are independent (legality.h).
        std::vector<Position> changed;
        for (Position p : schedule.positions()) {
            const InstrId i = schedule.order[p];
            if (!(schedule.control[i] == m_cachedFor.control[i])) changed.push_back(p);
        }
        if (changed.empty()) return m_cachedControl;
        // A changed stall shifts the cycles of its whole block: recount everything.
        const bool stallChanged = std::any_of(changed.begin(), changed.end(), [&](Position p) {
            const InstrId i = schedule.order[p];
            return schedule.control[i].stall != m_cachedFor.control[i].stall;
        });
        if (changed.size() <= 16 && !stallChanged) {
            std::erase_if(m_cachedControl, [&](const Edit& e) {
                return std::binary_search(changed.begin(), changed.end(), e.at);
            });
            auto fresh = m_checker.legalControlEdits(schedule, cs, changed);
            m_cachedControl.insert(m_cachedControl.end(), fresh.begin(), fresh.end());
            std::stable_sort(m_cachedControl.begin(), m_cachedControl.end(),
                             [](const Edit& x, const Edit& y) { return x.at < y.at; });
            m_cachedFor = schedule;
            return m_cachedControl;
        }
    }
    m_cachedControl = controlEditsByBlock(schedule);
    m_cachedFor = schedule;
    m_cacheValid = true;
    return m_cachedControl;
}

std::optional<Edit> EditProposer::proposeControl(Schedule& schedule, std::mt19937_64& rng,
                                                 std::vector<Edit>& candidates) const
{
    if (candidates.empty()) return std::nullopt;
    size_t pick = 0;
    if (m_guide.empty()) {
        pick = std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng);
    } else {
        std::vector<double> w;
        w.reserve(candidates.size());
        for (const Edit& c : candidates) {
            const InstrId inst = schedule.order[c.at];
            w.push_back(inst < m_guide.endIndex() ? m_guide[inst] : 0.0);
        }
        pick = std::discrete_distribution<size_t>(w.begin(), w.end())(rng);
    }
    const Edit e = candidates[pick];
    Control& c = schedule.control[schedule.order[e.at]];
    if (e.stall) c.stall = *e.stall;
    if (e.yield) c.yield = *e.yield;
    if (e.reuse) c.reuse = *e.reuse;
    // Yield and reuse edits of different instructions are independent (LegalityChecker::
    // legalControlEdits), so the rest of the list stays legal; this instruction's other entries do not.
    // Stall decreases are not: two in one block may together shorten one distance too much.
    const auto& cfg = m_checker.analysis().cfg;
    std::erase_if(candidates, [&](const Edit& x) {
        return x.at == e.at || (e.stall && x.stall && blockAt(cfg, x.at) == blockAt(cfg, e.at));
    });
    return e;
}

std::optional<Edit> EditProposer::proposeControlAfterMove(Schedule& schedule, std::mt19937_64& rng,
                                                          std::vector<InstrId>& edited) const
{
    const ControlSpace cs =
        m_space == SearchSpace::Rescheduled ? ControlSpace::All : ControlSpace::YieldAndReuse;
    // The most edits legalControlEdits gives one instruction: a yield flip (two to Y0 with reuse flags:
    // kept or cleared), a stall decrease (All only) and one flip per reuse slot
    // (core/rewrite/control_edits.cpp).
    const size_t most = cs == ControlSpace::All ? 7 : 6;
    const uint32_t n = schedule.size();
    if (n == 0) return std::nullopt;
    // Bounded: a kernel whose instructions mostly have no legal control edit would otherwise spin; the
    // caller's retries draw again.
    for (int tries = 0; tries < 64; ++tries) {
        const InstrId inst(m_guide.empty() ? std::uniform_int_distribution<uint32_t>(0, n - 1)(rng)
                                           : uint32_t(m_guideDraw(rng)));
        if (inst >= schedule.control.endIndex() ||
            std::find(edited.begin(), edited.end(), inst) != edited.end())
            continue;
        const Position p = schedule.positionOf()[inst];
        const auto edits = m_checker.legalControlEdits(schedule, cs, {p});
        if (edits.empty() ||
            std::uniform_int_distribution<size_t>(1, most)(rng) > std::min(edits.size(), most))
            continue;
        const Edit e = edits[std::uniform_int_distribution<size_t>(0, edits.size() - 1)(rng)];
        Control& c = schedule.control[inst];
        if (e.stall) c.stall = *e.stall;
        if (e.yield) c.yield = *e.yield;
        if (e.reuse) c.reuse = *e.reuse;
        edited.push_back(inst);
        return e;
    }
    return std::nullopt;
}

std::vector<Edit> EditProposer::propose(Schedule& schedule, std::mt19937_64& rng, int count) const
{
    std::vector<Edit> applied;
    std::uniform_int_distribution<int> coin(0, 1);
    std::vector<Edit> control;
    bool controlFresh = false; // `control` lists the legal control edits of `schedule` as it is now
    bool moved = false;        // a move changed `schedule`: control edits are drawn without the list
    std::vector<InstrId> editedSinceMove;
    // A draw can find nothing (an instruction with no legal target): a few retries per wanted edit.
    for (int tries = 0; int(applied.size()) < count && tries < count * 8; ++tries) {
        bool wantControl = m_space == SearchSpace::Yield;
        if (m_space == SearchSpace::AllControl || m_space == SearchSpace::Rescheduled)
            wantControl = coin(rng) == 1;
        std::optional<Edit> e;
        if (wantControl && moved) {
            // Rebuilding the list after every move cost a whole block's edits per move: random search in
            // all+control spent 79% of a GPU run on it (docs/status.md, "Control edits after a move").
            e = proposeControlAfterMove(schedule, rng, editedSinceMove);
        } else if (wantControl) {
            if (!controlFresh) {
                control = controlEditsOf(schedule);
                controlFresh = true;
            }
            e = proposeControl(schedule, rng, control);
        } else if (m_space == SearchSpace::Rescheduled) {
            auto edits = proposeRescheduledMove(schedule, rng);
            if (!edits.empty()) {
                moved = true;
                editedSinceMove.clear();
                applied.insert(applied.end(), edits.begin(), edits.end());
            }
            continue;
        } else {
            e = proposeMove(schedule, rng);
            if (e) {
                moved = true; // a move changes neighbours: the list no longer holds
                editedSinceMove.clear();
            }
        }
        if (e) applied.push_back(*e);
    }
    return applied;
}

size_t EditProposer::countLegal(const Schedule& schedule) const
{
    size_t n = 0;
    if (spaceHasMoves(m_space)) n += m_checker.legalMoves(schedule, m_space == SearchSpace::Mem).size();
    // The cached enumeration, updated for the instructions an accepted edit changed: a whole pass of
    // the checker per accepted step held annealing in the yield space to 12-28 evaluations/s.
    if (spaceHasControl(m_space)) n += controlEditsOf(schedule).size();
    return n;
}

std::vector<Edit> EditProposer::legalActions(const Schedule& schedule) const
{
    std::vector<Edit> out;
    if (m_space == SearchSpace::Rescheduled) {
        const auto pos = schedule.positionOf();
        std::vector<Position> from;
        for (InstrId i : m_movable)
            from.push_back(pos[i]);
        std::sort(from.begin(), from.end());
        for (Position p : from) {
            auto targets = m_checker.moveEnumerator().orderTargets(schedule, p, 32);
            std::sort(targets.begin(), targets.end());
            for (Position t : targets)
                out.push_back(Edit::move(p, t));
        }
    } else if (spaceHasMoves(m_space)) {
        for (const auto& [f, t] : m_checker.legalMoves(schedule, m_space == SearchSpace::Mem))
            out.push_back(Edit::move(f, t));
    }
    if (spaceHasControl(m_space)) {
        const auto& control = controlEditsOf(schedule);
        out.insert(out.end(), control.begin(), control.end());
    }
    return out;
}

namespace {

// A uniform subset of `max` of `all`, kept in order, fixed by `seed`.
std::vector<Edit> subsetOf(std::vector<Edit> all, size_t max, uint64_t seed)
{
    if (all.size() <= max) return all;
    std::vector<size_t> idx(all.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(idx.begin(), idx.end(), rng);
    idx.resize(max);
    std::sort(idx.begin(), idx.end());
    std::vector<Edit> kept;
    kept.reserve(max);
    for (size_t i : idx)
        kept.push_back(all[i]);
    return kept;
}

} // namespace

std::vector<Edit> EditProposer::sampleActions(const Schedule& schedule, size_t max, uint64_t seed) const
{
    if (m_space == SearchSpace::Rescheduled || !spaceHasMoves(m_space))
        return subsetOf(legalActions(schedule), max, seed);
    // Candidates, in legalActions' order: every target in each position's range (LegalityChecker::
    // MoveTester::range: block, dependencies and walls), legal or not, then kMostControl slots per
    // position, slot j standing for the position's j-th legal control edit if it has one. Every legal
    // action is exactly one candidate, so the first `max` legal ones of a seeded random order of the
    // candidates are a uniform subset of the legal actions; with fewer than `max` legal, every candidate
    // is tested. A slot is judged by its position's own edits (blockControl), so a moved block's
    // edits are judged for the few positions drawn, not the whole block.
    const LegalityChecker::MoveTester tester(m_checker, schedule);
    const auto& insts = m_checker.analysis().listing.instructions;
    const auto& blocks = m_checker.analysis().cfg.blocks;
    const bool memoryOnly = m_space == SearchSpace::Mem;
    const uint32_t n = schedule.size();
    std::vector<Position> from;
    std::vector<size_t> firstOf; // index of each position's first candidate
    size_t moves = 0;
    for (Position p : schedule.positions()) {
        if (memoryOnly && !insts[schedule.order[p].value()].isMemory()) continue;
        const auto [lo, hi] = tester.range(p);
        if (lo > hi) continue;
        const size_t m = size_t(hi - lo + 1) - ((p >= lo && p <= hi) ? 1 : 0);
        if (m == 0) continue;
        from.push_back(p);
        firstOf.push_back(moves);
        moves += m;
    }
    // The most legal control edits one position has: a yield flip and one flip per reuse slot
    // (core/rewrite/control_edits.cpp; the all+control space has no stall edits).
    constexpr size_t kMostControl = 5;
    const size_t slots = spaceHasControl(m_space) ? size_t(n) * kMostControl : 0;
    const size_t total = moves + slots;
    auto moveAt = [&](size_t k) {
        const size_t j = size_t(std::upper_bound(firstOf.begin(), firstOf.end(), k) - firstOf.begin()) - 1;
        const Position p = from[j];
        const auto [lo, hi] = tester.range(p);
        Position t = lo + int64_t(k - firstOf[j]);
        if (p >= lo && p <= hi && t >= p) ++t; // the position itself is not a target (as `m` above)
        return std::pair<Position, Position>(p, t);
    };
    // Each block's entry, looked up once per call (its key is the block's content); kept as pointers,
    // so the cache is trimmed before, never during, the call.
    trimBlockControl();
    std::vector<BlockControl*> entries(blocks.size(), nullptr);
    bool overflow = false;
    auto controlAt = [&](Position p) -> const std::vector<Edit>* {
        // Blocks are ranges of positions (moves stay inside them), so the block holding position p is
        // the one that held instruction p.
        const int b = blockAt(m_checker.analysis().cfg, p);
        if (b < 0) return nullptr;
        const uint32_t k = uint32_t(b);
        if (!entries[k]) entries[k] = &blockControl(schedule, k);
        judgeControl(schedule, k, *entries[k], p, p + 1);
        const auto& edits = entries[k]->at[offsetInBlock(blocks[k], p)];
        overflow |= edits.size() > kMostControl;
        return &edits;
    };
    auto legal = [&](size_t k) {
        if (k < moves) {
            const auto [p, t] = moveAt(k);
            return tester.legal(p, t);
        }
        const auto* edits = controlAt(Position(uint32_t((k - moves) / kMostControl)));
        return edits && edits->size() > (k - moves) % kMostControl;
    };
    std::vector<size_t> kept;
    if (total <= max) {
        for (size_t k = 0; k < total; ++k)
            if (legal(k)) kept.push_back(k);
    } else {
        // A Fisher-Yates shuffle drawn only as far as needed.
        std::vector<size_t> order(total);
        std::iota(order.begin(), order.end(), 0);
        std::mt19937_64 rng(seed);
        for (size_t i = 0; i < total && kept.size() < max; ++i) {
            std::swap(order[i], order[std::uniform_int_distribution<size_t>(i, total - 1)(rng)]);
            if (legal(order[i])) kept.push_back(order[i]);
        }
        std::sort(kept.begin(), kept.end());
    }
    // A position with more edits than slots would leave some unreachable: never seen (the rules give
    // at most kMostControl), but if it were, the whole list is the answer that stays uniform.
    if (overflow) return subsetOf(legalActions(schedule), max, seed);
    std::vector<Edit> out;
    out.reserve(kept.size());
    for (size_t k : kept) {
        if (k >= moves) {
            out.push_back(
                (*controlAt(Position(uint32_t((k - moves) / kMostControl))))[(k - moves) % kMostControl]);
            continue;
        }
        const auto [p, t] = moveAt(k);
        out.push_back(Edit::move(p, t));
    }
    return out;
}

std::vector<Edit> EditProposer::applyAction(Schedule& schedule, const Edit& action) const
{
    if (action.kind == Edit::Kind::Control) {
        Control& c = schedule.control[schedule.order[action.at]];
        if (action.stall) c.stall = *action.stall;
        if (action.yield) c.yield = *action.yield;
        if (action.reuse) c.reuse = *action.reuse;
        return {action};
    }
    if (m_space == SearchSpace::Rescheduled) {
        auto r = m_checker.rescheduler().rescheduledMove(schedule, action.from, action.to);
        if (!r) return {};
        schedule = std::move(r->second);
        return std::move(r->first);
    }
    schedule.move(action.from, action.to);
    m_checker.fixReuse(schedule);
    return {action};
}

} // namespace sassx::search
