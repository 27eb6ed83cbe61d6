// MoveEnumerator::legalControlEdits (declared in move_enumerator.h): the control edits a search or a
// menu may offer, judged by the same rules the checker applies (core/rewrite/control_rules.h) and then
// by the checker's own pass over the edited block, so nothing is offered that the check would refuse.
#include "core/rewrite/block_positions.h"
#include "core/rewrite/move_enumerator.h"

namespace sassx {

std::vector<Edit> MoveEnumerator::legalControlEdits(const Schedule& current, ControlSpace space,
                                                    const std::vector<Position>& onlyPositions) const
{
    std::vector<Edit> out;
    const auto& a = m_model->analysis();
    const ControlRules& rules = m_model->controlRules();
    const uint32_t n = uint32_t(a.listing.instructions.size());
    if (current.order.size() != n || current.control.size() != n) return out;
    IndexVector<InstrId, char> seen(n, 0);
    for (InstrId i : current.order) {
        if (i.value() >= n || seen[i]) return out; // not a permutation: check() refuses it, nothing to offer
        seen[i] = 1;
    }
    const auto pos = current.positionOf();
    IndexVector<Position, char> wanted(onlyPositions.empty() ? 0 : n, 0);
    for (Position p : onlyPositions)
        if (p.value() < n) wanted[p] = 1;
    auto isWanted = [&](Position p) { return wanted.empty() || wanted[p]; };
    const CheckOptions stop{.stopAtFirst = true, .blocks = {}};
    // One working copy: each candidate is written into it, judged, and undone.
    Schedule trial = current;
    for (const auto& b : a.cfg.blocks) {
        auto blockLegal = [&] {
            LegalityReport r;
            m_checker.checkBlock(trial, pos, b.index, r, stop);
            return r.legal();
        };
        bool any = false;
        for (Position p : positionsOf(b))
            any = any || isWanted(p);
        // A control edit changes no other block (cycles, reuse pairs and scoreboard spacing are per
        // block; cross-block bounds are per instruction), so judging its own block is judging the edit.
        if (!any || !blockLegal()) continue;
        for (Position p : positionsOf(b)) {
            if (!isWanted(p)) continue;
            const InstrId i = current.order[p];
            const Control before = current.control[i];
            auto consider = [&](const Control& edited, const Edit& edit) {
                if (!rules.valueRefusals(i, edited).empty()) return;
                trial.control[i] = edited;
                if (blockLegal()) out.push_back(edit);
                trial.control[i] = before;
            };
            if (hasSpace(space, ControlSpace::Yield)) {
                // Two distinct edits where the instruction carries reuse flags and the flip clears the
                // bit: Y0 with the flags kept (where the class and mask are measured; nvdisasm prints
                // no marks then) and Y0 with them cleared (what ptxas itself writes). They differ on the
                // GPU: keeping the flags held a held-out attention's gain that clearing them lost.
                Control edited = before;
                edited.yield = uint8_t((before.yield & 1) ^ 1);
                consider(edited, Edit::control(p, std::nullopt, edited.yield, std::nullopt));
                if (edited.yield == 0 && edited.reuse != 0) {
                    edited.reuse = 0;
                    consider(edited, Edit::control(p, std::nullopt, edited.yield, uint8_t(0)));
                }
            }
            if (hasSpace(space, ControlSpace::Stall)) {
                // A stall decrease: the least stall (from the rescheduling floor up) with which the block
                // stays legal; at most four values are judged per instruction. Walls, pinned
                // instructions and those issued right before a wall keep their stall
                // (KernelModel::stallFloor).
                if (auto floor = m_model->stallFloor(current, p)) {
                    int tried = 0;
                    for (int st = *floor; st < before.stall && tried < 4; ++st) {
                        Control edited = before;
                        edited.stall = uint8_t(st);
                        if (!rules.valueRefusals(i, edited).empty()) continue;
                        ++tried;
                        trial.control[i] = edited;
                        const bool ok = blockLegal();
                        trial.control[i] = before;
                        if (ok) {
                            out.push_back(Edit::control(p, edited.stall, std::nullopt, std::nullopt));
                            break;
                        }
                    }
                }
            }
            if (hasSpace(space, ControlSpace::Reuse)) {
                for (int slot = 0; slot < 4; ++slot) {
                    Control edited = before;
                    edited.reuse = uint8_t(before.reuse ^ (1u << slot));
                    // Setting a flag: the reuse rule first (cheap); clearing one is always legal.
                    if (!((before.reuse >> slot) & 1) && rules.reuseRefusal(trial, i, p, slot)) continue;
                    consider(edited, Edit::control(p, std::nullopt, std::nullopt, edited.reuse));
                }
            }
        }
    }
    return out;
}

} // namespace sassx
