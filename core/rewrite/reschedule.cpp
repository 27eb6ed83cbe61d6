// Control codes derived for a new order: LegalityChecker::reschedule and the move enumeration built on
// it (docs/legality.md, "Rescheduling"). Every judgement is check()'s: this file only chooses stall
// counts and asks the checker whether they suffice, so derived codes obey the same rule table as
// every other edit.
#include "core/rewrite/legality.h"

#include <algorithm>
#include <set>

namespace sassx {

std::optional<uint8_t> LegalityChecker::rescheduleStallFloor(const Schedule& s, uint32_t p) const
{
    const auto& a = *m_analysis;
    const uint32_t i = s.order[p];
    const Control& c = s.control[i];
    if (isWall(i) || a.deps.unresolved()[i]) return std::nullopt;
    if (c.stall == 0 || c.stall > 11) return std::nullopt; // 0 and 12-15 mean other gaps (control_rules.h)
    const auto& blk = a.cfg.blocks[a.cfg.blockOf[p]];
    if (p + 1 >= blk.end) return std::nullopt; // its gap runs into the next block
    const uint32_t next = s.order[p + 1];
    if (isWall(next) || a.deps.unresolved()[next]) return std::nullopt;
    return m_controlRules.leastAllowedStall(i, 1, c.yield);
}

std::optional<std::string> LegalityChecker::reschedule(Schedule& s, const std::vector<int>& blocks,
                                                       bool minimal) const
{
    const auto& a = *m_analysis;
    size_t budget = 0;
    for (int b : blocks) {
        const auto& blk = a.cfg.blocks[size_t(b)];
        budget += 4 * blk.size() + 16;
        for (uint32_t p = blk.first; p < blk.end; ++p) {
            // ptxas' pair (i, i + 1) still adjacent: its stall stays (it may also space a pipe).
            const bool samePair = p + 1 < blk.end && s.order[p + 1] == s.order[p] + 1;
            if (!minimal && samePair) continue;
            if (auto floor = rescheduleStallFloor(s, p)) s.control[s.order[p]].stall = *floor;
        }
    }
    fixReuse(s);
    CheckOptions options;
    options.blocks = blocks;
    for (size_t round = 0; round < budget; ++round) {
        auto report = check(s, options);
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
                    to = m_controlRules.leastAllowedStall(s.order[q], cur + pick->missingCycles, c.yield);
                } else {
                    for (int want = cur + pick->missingCycles - 1; want > cur && !to; --want)
                        if (auto x = m_controlRules.leastAllowedStall(s.order[q], want, c.yield);
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

std::vector<uint32_t> LegalityChecker::orderTargets(const Schedule& current, uint32_t position,
                                                    int maxDistance) const
{
    const auto& a = *m_analysis;
    std::vector<uint32_t> out;
    const uint32_t i = current.order[position];
    if (isWall(i) || a.deps.unresolved()[i]) return out;
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
            if (isWall(q) || a.deps.unresolved()[q] || linked.count(q)) break;
            out.push_back(uint32_t(t));
        }
    }
    return out;
}

Result<std::pair<std::vector<Edit>, Schedule>>
LegalityChecker::rescheduledMove(const Schedule& current, uint32_t from, uint32_t to) const
{
    const auto& a = *m_analysis;
    if (from >= current.order.size() || to >= current.order.size()) return makeError("position out of range");
    if (a.cfg.blockOf[from] != a.cfg.blockOf[to]) return makeError("a move stays inside its basic block");
    Schedule moved = current;
    moved.move(from, to);
    fixReuse(moved); // what a replay does after every move (KernelWorkspace::schedule)
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
LegalityChecker::rescheduledTargets(const Schedule& current, uint32_t position, int maxDistance,
                                    std::vector<std::string>* refusals) const
{
    std::vector<std::pair<uint32_t, Schedule>> out;
    const int block = m_analysis->cfg.blockOf[position];
    for (uint32_t t : orderTargets(current, position, maxDistance)) {
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

} // namespace sassx
