#pragma once
// Every legal single move and control edit of a schedule, by the same rules the schedule checker
// applies (schedule_checker.h) over the same kernel model: moves computed incrementally (a move
// changes issue cycles only between its two positions, legal_moves.cpp), control edits judged by the
// control rules and then by the checker's pass over the edited block (control_edits.cpp).
#include "core/rewrite/schedule_checker.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace sassx {

class MoveEnumerator
{
public:
    explicit MoveEnumerator(std::shared_ptr<const KernelModel> model);

    // All legal single moves from the current schedule of the instruction at position `pos`
    // (positions in the current schedule), as target positions.
    std::vector<Position> legalTargets(const Schedule& current, Position pos) const;
    // Every legal single move (from position, to position) of the current schedule, computed in one pass.
    std::vector<std::pair<Position, Position>> legalMoves(const Schedule& current, bool memoryOnly) const;
    // Single moves of one schedule tested one (from, to) pair at a time, by the same rules as
    // legalTargets and legalMoves (which are built on it): for a search that needs a sample of the legal
    // moves rather than all of them (EditProposer::sampleActions). Holds references to both arguments.
    class MoveTester
    {
    public:
        MoveTester(const MoveEnumerator& enumerator, const Schedule& current);
        // Positions the instruction at `from` may reach before distances and scoreboards are weighed
        // (its block, its dependencies, walls): [first, second], empty when first > second.
        std::pair<Position, Position> range(Position from) const;
        bool legal(Position from, Position to) const;

    private:
        const MoveEnumerator& m_enumerator;
        const Schedule& m_current;
        IndexVector<InstrId, Position> m_pos;
        std::vector<std::vector<int>> m_cycles; // per block: issue cycle of each position, then the end
        mutable std::vector<std::pair<Position, Position>> m_ranges; // per position, computed on demand
        mutable std::vector<bool> m_rangeKnown;
    };

    // Every single control edit of the current schedule in `space` that keeps it legal: yield flips
    // (Edit::control(pos, {}, newYield, {}); a flip to Y0 of an instruction with reuse flags clears them
    // too, Edit::control(pos, {}, 0, 0), as ptxas never pairs reuse flags with Y0) and reuse edits that
    // clear or set one flag (Edit::control(pos, {}, {}, newMask)), positions in `current`, in position
    // order; with ControlSpace::Stall also one stall decrease per instruction (the least stall, from
    // KernelModel::stallFloor up, that keeps the block legal). Candidates are judged by the same rules
    // the checker applies (ControlRules, then the checker's own pass over the block), so each returned
    // edit applied to a legal `current` passes the check; a block that is already illegal offers none.
    // Yield and reuse edits of different instructions are independent; stall decreases are not (two in
    // one block may together shorten one distance too much).
    // `onlyPositions` (non-empty) limits the answer to those positions: what a search needs after it
    // changed the control bits of a few instructions, since the others' edits stay as they were.
    std::vector<Edit> legalControlEdits(const Schedule& current, ControlSpace space,
                                        const std::vector<Position>& onlyPositions = {}) const;

    // Positions the instruction at `position` can reach in its block, nearest first on each side up to
    // `maxDistance`, without crossing a wall, a pinned instruction or an instruction it has a
    // dependency with: where an order is legal before control codes are considered.
    std::vector<Position> orderTargets(const Schedule& current, Position position, int maxDistance) const;

    const KernelModel& model() const { return *m_model; }

private:
    std::vector<Position> targetsFor(const Schedule& current, const IndexVector<InstrId, Position>& pos,
                                     const std::vector<int>& blockCycles, Position position) const;
    std::pair<Position, Position>
    targetRange(const Schedule& current, const IndexVector<InstrId, Position>& pos, Position position) const;
    bool targetLegal(const Schedule& current, const IndexVector<InstrId, Position>& pos,
                     const std::vector<int>& blockCycles, Position position, Position target) const;

    std::shared_ptr<const KernelModel> m_model;
    ScheduleChecker m_checker;
};

} // namespace sassx
