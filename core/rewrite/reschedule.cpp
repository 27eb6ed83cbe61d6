// The rescheduler (declared in rescheduler.h): control codes derived for a new order and the repairs
// built on them (docs/legality.md, "Rescheduling"). Every judgement is the checker's: this file only
// chooses stall counts and asks the checker whether they suffice.
#include "core/rewrite/rescheduler.h"

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
        for (uint32_t p = blk.first; p < blk.end; ++p) {
            // ptxas' pair (i, i + 1) still adjacent: its stall stays (it may also space a pipe).
            const bool samePair = p + 1 < blk.end && s.order[p + 1] == s.order[p] + 1;
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
        uint32_t pickPos = 0;
        for (const auto& h : report.hazards) {
            const bool distance = h.kind == HazardKind::Latency || h.kind == HazardKind::IssueSpacing ||
                                  (h.kind == HazardKind::Scoreboard && h.missingCycles > 0);
            if (!distance || h.missingCycles <= 0) return h.message;
            const uint32_t at = pos[h.padAfter ? h.first : h.second];
            if (!pick || at < pickPos) {
                pick = &h;
                pickPos = at;
            }
        }
        // Where cycles may go: between the two instructions (raising any stall there delays the
        // second), before the instruction for distances from its block's start, after it for
        // distances to its block's end. Nearest the late instruction first.
        const auto& blk = a.cfg.blocks[a.cfg.blockOf[pickPos]];
        std::vector<uint32_t> slots;
        if (pick->padAfter) {
            for (uint32_t q = pickPos; q < blk.end; ++q)
                slots.push_back(q);
        } else {
            const uint32_t lowest =
                pick->first == pick->second ? blk.first : std::min(pos[pick->first], pickPos);
            for (uint32_t q = pickPos; q-- > lowest;)
                slots.push_back(q);
        }
        bool raised = false;
        // One slot that takes all missing cycles with a stall ptxas used; else the nearest that can take
        // some (the next round asks for the rest).
        for (int pass = 0; pass < 2 && !raised; ++pass) {
            for (uint32_t q : slots) {
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
                                                                            uint32_t from, uint32_t to) const
{
    const auto& a = m_model->analysis();
    if (from >= current.order.size() || to >= current.order.size()) return makeError("position out of range");
    if (a.cfg.blockOf[from] != a.cfg.blockOf[to]) return makeError("a move stays inside its basic block");
    Schedule moved = current;
    moved.move(from, to);
    m_checker.fixReuse(moved); // what a replay does after every move (KernelWorkspace::schedule)
    Schedule s = moved;
    if (auto why = reschedule(s, {a.cfg.blockOf[from]})) return makeError(*why);
    std::vector<Edit> edits{Edit::move(from, to)};
    for (uint32_t q = 0; q < s.order.size(); ++q) {
        const uint32_t i = s.order[q];
        const Control& want = s.control[i];
        const Control& have = moved.control[i];
        if (want == have) continue;
        auto field = [](uint8_t w, uint8_t h) { return w != h ? std::optional<uint8_t>(w) : std::nullopt; };
        edits.push_back(Edit::control(q, field(want.stall, have.stall), field(want.yield, have.yield),
                                      field(want.reuse, have.reuse)));
    }
    return std::make_pair(std::move(edits), std::move(s));
}

std::vector<std::pair<uint32_t, Schedule>>
Rescheduler::rescheduledTargets(const Schedule& current, uint32_t position, int maxDistance,
                                std::vector<std::string>* refusals) const
{
    std::vector<std::pair<uint32_t, Schedule>> out;
    const int block = m_model->analysis().cfg.blockOf[position];
    for (uint32_t t : m_enumerator.orderTargets(current, position, maxDistance)) {
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
            uint32_t late = h.second;
            uint32_t p = pos[late];
            const auto& blk = m_model->analysis().cfg.blocks[m_model->analysis().cfg.blockOf[p]];
            if (h.first == h.second) {
                // Cross-block distance: pad before it (reads) or after it (writes).
                if (p > blk.first) p = p - 1;
            } else if (p > blk.first) {
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
