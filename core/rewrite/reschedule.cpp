// The rescheduler (declared in rescheduler.h): control codes derived for a new order and the repairs
// built on them (docs/legality.md, "Rescheduling"). Every judgement is the checker's: this file only
// chooses stall counts and asks the checker whether they suffice.
#include "core/rewrite/rescheduler.h"

#include "core/rewrite/block_positions.h"

#include <algorithm>
#include <set>

namespace sassx {

Rescheduler::Rescheduler(std::shared_ptr<const KernelModel> model)
    : m_model(model), m_checker(model), m_enumerator(model)
{
}

std::optional<std::string> Rescheduler::reschedule(Schedule& s, const std::vector<int>& blocks,
                                                   bool minimal) const
{
    const auto& a = m_model->analysis();
    size_t budget = 0;
    for (int b : blocks) {
        const auto& blk = a.cfg.blocks[size_t(b)];
        budget += 4 * blk.size() + 16;
        for (Position p : positionsOf(blk)) {
            // ptxas' pair (i, i + 1) still adjacent: its stall stays (it may also space a pipe).
            const bool samePair = p + 1 < endPosition(blk) && s.order[p + 1] == s.order[p] + 1;
            if (!minimal && samePair) continue;
            if (auto floor = m_model->stallFloor(s, p)) s.control[s.order[p]].stall = *floor;
        }
    }
    m_checker.fixReuse(s);
    CheckOptions options;
    options.blocks = blocks;
    for (size_t round = 0; round < budget; ++round) {
        auto report = m_checker.check(s, options);
        if (report.legal()) return std::nullopt;
        const auto pos = s.positionOf();
        // The earliest late instruction first: padding before it may also fix later ones.
        const Hazard* pick = nullptr;
        Position pickPos;
        for (const auto& h : report.hazards) {
            const bool distance = h.kind == HazardKind::Latency || h.kind == HazardKind::IssueSpacing ||
                                  (h.kind == HazardKind::Scoreboard && h.missingCycles > 0);
            if (!distance || h.missingCycles <= 0) return h.message;
            const Position at = pos[h.padAfter ? h.first : h.second];
            if (!pick || at < pickPos) {
                pick = &h;
                pickPos = at;
            }
        }
        // Where cycles may go: between the two instructions (raising any stall there delays the
        // second), before the instruction for distances from its block's start, after it for
        // distances to its block's end. Nearest the late instruction first.
        const auto& blk = blockOfPosition(a.cfg, pickPos);
        std::vector<Position> slots;
        if (pick->padAfter) {
            for (Position q = pickPos; q < endPosition(blk); ++q)
                slots.push_back(q);
        } else {
            const Position lowest =
                pick->first == pick->second ? firstPosition(blk) : std::min(pos[pick->first], pickPos);
            for (Position q = pickPos; q-- > lowest;)
                slots.push_back(q);
        }
        bool raised = false;
        // One slot that takes all missing cycles with a stall ptxas used; else the nearest that can take
        // some (the next round asks for the rest).
        for (int pass = 0; pass < 2 && !raised; ++pass) {
            for (Position q : slots) {
                Control& c = s.control[s.order[q]];
                const int cur = std::max<int>(c.stall, 1);
                std::optional<uint8_t> to;
                if (pass == 0) {
                    to = m_model->controlRules().leastAllowedStall(s.order[q], cur + pick->missingCycles,
                                                                   c.yield);
                } else {
                    for (int want = cur + pick->missingCycles - 1; want > cur && !to; --want)
                        if (auto x = m_model->controlRules().leastAllowedStall(s.order[q], want, c.yield);
                            x && *x == want)
                            to = x;
                }
                if (!to || *to <= c.stall) continue;
                c.stall = *to;
                raised = true;
                break;
            }
        }
        if (!raised)
            return pick->message + "; no instruction in between can take more stall cycles with a stall "
                                   "ptxas used on its opcode in this kernel";
    }
    return std::string("derived stall counts did not settle in the blocks' round budget");
}

Result<std::pair<std::vector<Edit>, Schedule>> Rescheduler::rescheduledMove(const Schedule& current,
                                                                            Position from, Position to) const
{
    const auto& a = m_model->analysis();
    if (from.value() >= current.size() || to.value() >= current.size())
        return makeError("position out of range");
    if (blockAt(a.cfg, from) != blockAt(a.cfg, to)) return makeError("a move stays inside its basic block");
    Schedule moved = current;
    moved.move(from, to);
    m_checker.fixReuse(moved); // what a replay does after every move (KernelWorkspace::schedule)
    Schedule s = moved;
    if (auto why = reschedule(s, {blockAt(a.cfg, from)})) return makeError(*why);
    std::vector<Edit> edits{Edit::move(from, to)};
    for (Position q : s.positions()) {
        const InstrId i = s.order[q];
        const Control& want = s.control[i];
        const Control& have = moved.control[i];
        if (want == have) continue;
        auto field = [](uint8_t w, uint8_t h) { return w != h ? std::optional<uint8_t>(w) : std::nullopt; };
        edits.push_back(Edit::control(q, field(want.stall, have.stall), field(want.yield, have.yield),
                                      field(want.reuse, have.reuse)));
    }
    return std::make_pair(std::move(edits), std::move(s));
}

std::vector<std::pair<Position, Schedule>>
Rescheduler::rescheduledTargets(const Schedule& current, Position position, int maxDistance,
                                std::vector<std::string>* refusals) const
{
    std::vector<std::pair<Position, Schedule>> out;
    const int block = blockAt(m_model->analysis().cfg, position);
    for (Position t : m_enumerator.orderTargets(current, position, maxDistance)) {
        Schedule s = current;
        s.move(position, t);
        if (auto why = reschedule(s, {block}))
            if (refusals)
                refusals->push_back(std::move(*why));
            else
                continue;
        else
            out.emplace_back(t, std::move(s));
    }
    return out;
}

bool Rescheduler::repairLatencies(Schedule& s) const
{
    // Raise the stall of the instruction issued just before the late one; repeat until nothing is
    // short. Only distance hazards can be repaired this way.
    for (int round = 0; round < 64; ++round) {
        auto report = m_checker.check(s);
        if (report.legal()) return true;
        bool repaired = false;
        auto pos = s.positionOf();
        for (const auto& h : report.hazards) {
            bool distance = h.kind == HazardKind::Latency || h.kind == HazardKind::IssueSpacing ||
                            (h.kind == HazardKind::Scoreboard && h.missingCycles > 0);
            if (!distance) return false;
            const InstrId late = h.second;
            Position p = pos[late];
            const auto& blk = blockOfPosition(m_model->analysis().cfg, p);
            if (h.first == h.second) {
                // Cross-block distance: pad before it (reads) or after it (writes).
                if (p > firstPosition(blk)) p = p - 1;
            } else if (p > firstPosition(blk)) {
                p = p - 1;
            }
            Control& c = s.control[s.order[p]];
            int want = std::max<int>(c.stall, 1) + h.missingCycles;
            if (want > 15) return false;
            c.stall = uint8_t(want);
            repaired = true;
            break; // re-check: one padding can fix several hazards
        }
        if (!repaired) return false;
    }
    return false;
}

} // namespace sassx
