#include "core/rewrite/schedule_checker.h"

#include "core/analysis/required_latency.h"
#include "core/rewrite/block_positions.h"
#include "core/rewrite/schedule_predicates.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>

namespace sassx {
namespace {

std::string at(const KernelAnalysis& a, InstrId i)
{
    return instructionAt(a, i);
}

// The dependency graph names instructions by their plain original index.
std::string at(const KernelAnalysis& a, uint32_t i)
{
    return instructionAt(a, InstrId(i));
}

} // namespace

std::string LegalityReport::summary() const
{
    return hazards.empty() ? std::string("legal") : hazards.front().message;
}

ScheduleChecker::ScheduleChecker(std::shared_ptr<const KernelModel> model) : m_model(std::move(model)) {}

LegalityReport ScheduleChecker::check(const std::vector<Edit>& edits, const CheckOptions& options) const
{
    LegalityReport r;
    // The reuse fix-up runs after every move, as when variants are made and replayed, so a reuse flag a
    // control edit sets after the last move is judged as it stands rather than silently cleared.
    auto s = applyEdits(m_model->analysis(), edits, [this](Schedule& t) { fixReuse(t); });
    if (!s) {
        r.hazards.push_back({HazardKind::Structure, InstrId(0), InstrId(0), s.message(), 0});
        return r;
    }
    return check(*s, options);
}

LegalityReport ScheduleChecker::check(const Schedule& s, const CheckOptions& options) const
{
    LegalityReport report;
    const auto& a = m_model->analysis();
    const uint32_t n = uint32_t(a.listing.instructions.size());
    if (s.order.size() != n || s.control.size() != n) {
        report.hazards.push_back({HazardKind::Structure, InstrId(0), InstrId(0),
                                  "the schedule does not cover every instruction", 0});
        return report;
    }
    IndexVector<InstrId, char> seen(n, 0);
    for (InstrId i : s.order) {
        if (i.value() >= n || seen[i]) {
            report.hazards.push_back(
                {HazardKind::Structure, InstrId(0), InstrId(0), "the order is not a permutation", 0});
            return report;
        }
        seen[i] = 1;
    }
    auto pos = s.positionOf();
    if (!options.blocks.empty()) {
        for (int b : options.blocks) {
            if (b < 0 || size_t(b) >= a.cfg.blocks.size()) continue;
            checkBlock(s, pos, b, report, options);
            if (options.stopAtFirst && !report.legal()) break;
        }
        return report;
    }
    for (const auto& b : a.cfg.blocks) {
        checkBlock(s, pos, b.index, report, options);
        if (options.stopAtFirst && !report.legal()) break;
    }
    return report;
}

// What checkBlock's steps share: the block, the schedule with its new issue cycles, the report they add
// to, and the state of the walk over the new order (step 4).
struct ScheduleChecker::BlockCheck
{
    BlockCheck(const KernelAnalysis& analysis, const Schedule& schedule,
               const IndexVector<InstrId, Position>& positions, int blockIndex, LegalityReport& rep,
               const CheckOptions& opts)
        : a(analysis), insts(analysis.listing.instructions), s(schedule), pos(positions),
          b(analysis.cfg.blocks[blockIndex]), report(rep), options(opts), cyc(b.size())
    {
        // New issue cycles inside the block.
        int c = 0;
        for (Position p : positionsOf(b)) {
            cyc[offsetInBlock(b, p)] = c;
            c += issueGap(s.control[s.order[p]]);
        }
        blockCycles = c;
        lastWaitCycle.fill(-1000);
        lastSetCycle.fill(-1000);
    }

    void add(HazardKind k, InstrId x, InstrId y, std::string msg, int missing = 0)
    {
        report.hazards.push_back({k, x, y, std::move(msg), missing});
    }
    void add(HazardKind k, uint32_t x, uint32_t y, std::string msg, int missing = 0)
    {
        add(k, InstrId(x), InstrId(y), std::move(msg), missing);
    }
    bool done() const { return options.stopAtFirst && !report.legal(); }
    int cycleOf(InstrId i) const { return cyc[offsetInBlock(b, pos[i])]; }
    int cycleOf(uint32_t i) const { return cycleOf(InstrId(i)); }
    const Instruction& ins(InstrId i) const { return insts[i.value()]; }
    int origCycle(InstrId i) const { return a.facts[i.value()].cycle; }
    bool keepsYield(InstrId x) const { return keepsPtxasYield(s.control[x], ins(x)); }
    // Why a distance ptxas left below 2 cycles no longer counts (see shortScoreboardNeed).
    std::string yieldNote(InstrId x, int orig) const
    {
        return orig >= 0 && orig < 2 && !keepsYield(x) ? " (ptxas' shorter distance is trusted only while " +
                                                             at(a, x) + " yields as ptxas made it)"
                                                       : std::string();
    }

    const KernelAnalysis& a;
    const std::vector<Instruction>& insts;
    const Schedule& s;
    const IndexVector<InstrId, Position>& pos;
    const BasicBlock& b;
    LegalityReport& report;
    const CheckOptions& options;
    std::vector<int> cyc; // new issue cycle of each position of the block, from its start
    int blockCycles = 0;
    // Step 4, in the new order so far: the latest wait on and setter of each scoreboard with their
    // cycles, and the latest instruction of each issue-spacing class with its cycle.
    std::array<int, 6> lastWaitCycle, lastSetCycle;
    std::array<std::optional<InstrId>, 6> lastWaiter, lastSetter;
    std::map<std::string, std::pair<int, InstrId>> lastOfClass;
};

void ScheduleChecker::checkBlock(const Schedule& s, const IndexVector<InstrId, Position>& pos, int blockIndex,
                                 LegalityReport& report, const CheckOptions& options) const
{
    // The rules of docs/legality.md ("What the checker enforces on a schedule"), in five steps; a step
    // returns false when the check stops here.
    BlockCheck c(m_model->analysis(), s, pos, blockIndex, report, options);
    if (!checkPlacement(c)) return;
    if (!checkDependencyEdges(c)) return;
    if (!checkCrossBlockDistances(c)) return;
    if (!checkNewOrderSpacing(c)) return;
    checkControlValues(c);
}

namespace {

// Which segment between walls and pinned instructions each instruction of the block (original order)
// belongs to: a fixed instruction is a segment of its own, so nothing may change segment.
std::vector<uint32_t> wallSegments(const KernelModel& model, const BasicBlock& b)
{
    std::vector<uint32_t> segment(b.size());
    uint32_t seg = 0;
    for (uint32_t i = b.first; i < b.end; ++i) {
        bool fixed = model.isFixed(InstrId(i));
        if (fixed) ++seg;
        segment[i - b.first] = seg;
        if (fixed) ++seg;
    }
    return segment;
}

} // namespace

// 1. Membership, walls and pinned instructions.
bool ScheduleChecker::checkPlacement(BlockCheck& c) const
{
    const auto& a = c.a;
    const auto& b = c.b;
    const KernelModel& m = *m_model;
    const std::vector<uint32_t> segment = wallSegments(m, b);
    for (Position p : positionsOf(b)) {
        const InstrId i = c.s.order[p];
        if (i.value() < b.first || i.value() >= b.end) {
            c.add(HazardKind::Structure, i, i,
                  c.ins(i).opcode + " would leave its basic block; block starts must stay fixed");
            return false;
        }
        // The segment of place p is the segment of the instruction ptxas put there.
        if (segment[i.value() - b.first] != segment[offsetInBlock(b, p)]) {
            // Find the wall crossed to name it: in ptxas' order, between i's place and p.
            const InstrId lo(std::min(i.value(), p.value())), hi(std::max(i.value(), p.value()));
            InstrId wall = lo;
            for (InstrId k = lo; k <= hi; ++k)
                if (m.isWall(k) || a.deps.unresolved()[k.value()]) {
                    wall = k;
                    break;
                }
            if (wall == i)
                c.add(m.isWall(i) ? HazardKind::Wall : HazardKind::Pinned, i, i,
                      m.isWall(i) ? at(a, i) + " cannot move: " + m.wallReasonOf(i)
                                  : at(a, i) + " cannot move: " + a.deps.unresolvedReason(i.value()));
            else
                c.add(m.isWall(wall) ? HazardKind::Wall : HazardKind::Pinned, i, wall,
                      at(a, i) + " would cross " + at(a, wall) + ": " +
                          (m.isWall(wall) ? m.wallReasonOf(wall)
                                          : std::string("its ordering against waits cannot be proven")));
            if (c.done()) return false;
        }
    }
    return true;
}

namespace {

// The edge's register, named only when a hazard is reported: searches check thousands of schedules.
std::string regName(const Dependency& d)
{
    return d.hasReg ? d.reg.name() : std::string();
}

// The hazard of a dependency edge whose two instructions the new order inverts, in words.
std::pair<HazardKind, std::string> inversionHazard(const KernelAnalysis& a, const Dependency& d)
{
    const uint32_t f = d.from, i = d.to;
    std::string msg;
    HazardKind kind = HazardKind::Register;
    switch (d.kind) {
    case DepKind::Raw:
        msg = regName(d) + " is written by " + at(a, f) + " and read by " + at(a, i) +
              "; this order puts the reader first";
        break;
    case DepKind::War:
        msg = regName(d) + " is read by " + at(a, f) + " and then overwritten by " + at(a, i) +
              "; this order overwrites it before the read";
        break;
    case DepKind::Waw:
        msg = regName(d) + " is written by " + at(a, f) + " and again by " + at(a, i) +
              "; swapping them leaves the wrong value";
        break;
    case DepKind::SbProducer:
        kind = HazardKind::Scoreboard;
        msg = at(a, i) + " waits on SB" + std::to_string(d.scoreboard) + " for " + at(a, f) +
              "; this order issues the wait before the instruction that sets the scoreboard";
        break;
    case DepKind::SbConsumer:
        kind = HazardKind::Scoreboard;
        msg = at(a, i) + (d.readScoreboard ? " overwrites " : " reads ") + regName(d) +
              ", which is only safe after the scoreboard wait at " + at(a, f) +
              "; this order runs it before that wait";
        break;
    case DepKind::ImplicitCover:
        kind = HazardKind::ImplicitCoverage;
        msg = d.scoreboard < 0
                  ? regName(d) + " is read asynchronously by " + at(a, f) + " and " + at(a, i) +
                        " without scoreboards of their own; whatever covers the later one covers "
                        "the earlier only while they keep their order"
                  : regName(d) + (d.readScoreboard ? " is read asynchronously by " : " is written by ") +
                        at(a, f) + " without its own scoreboard; it is only covered by the wait on SB" +
                        std::to_string(d.scoreboard) + " of " + at(a, i) +
                        ", which this order would put first";
        break;
    case DepKind::Memory:
        kind = HazardKind::MemoryOrder;
        msg = at(a, f) + " and " + at(a, i) +
              " may access the same memory (one writes) and cannot be proven disjoint; their "
              "order must "
              "stay";
        break;
    }
    return {kind, std::move(msg)};
}

// A distance `dist` below the edge's bound `required`, in words, with where the bound comes from
// (docs/legality.md, "Where the bounds come from").
std::string shortDistanceMessage(const KernelAnalysis& a, const Dependency& d, int dist, int required)
{
    const uint32_t f = d.from, i = d.to;
    const std::string what =
        d.kind == DepKind::Memory
            ? at(a, i) + " would access memory " + std::to_string(dist) + " cycles after " + at(a, f) +
                  ", which may touch the same memory (one writes) and completes after "
                  "issue"
        : d.kind == DepKind::Raw ? at(a, i) + " reads " + regName(d) + " " + std::to_string(dist) +
                                       " cycles after " + at(a, f) + " writes it"
        : d.kind == DepKind::War
            ? at(a, i) + " overwrites " + regName(d) + " " + std::to_string(dist) + " cycles after " +
                  at(a, f) + " reads it (operands may be read after issue)"
            : at(a, i) + " writes " + regName(d) + " " + std::to_string(dist) + " cycles after " + at(a, f) +
                  " does (a shorter pipe could land its write first)";
    // `required` is the edge's requiredDistance(), the figure requiredLatency() states with its source.
    return what + "; it needs " + std::to_string(required) + " (" +
           latencySourceText(a, d, requiredLatency(a, d)) + ")";
}

} // namespace

// 2. Ordering edges and fixed-latency distances.
bool ScheduleChecker::checkDependencyEdges(BlockCheck& c) const
{
    const auto& a = c.a;
    for (InstrId i(c.b.first); i.value() < c.b.end; ++i) {
        for (uint32_t e : a.deps.incoming(i.value())) {
            const auto& d = a.deps.edges()[e];
            const InstrId f(d.from);
            if (c.pos[f] > c.pos[i]) {
                auto [kind, msg] = inversionHazard(a, d);
                c.add(kind, f, i, msg);
                if (c.done()) return false;
                continue;
            }
            if (d.hasDistanceBound()) {
                // Bound: the table's latency, never more than ptxas' own distance (ptxas knows the truth).
                int required = d.requiredDistance();
                int dist = c.cycleOf(i) - c.cycleOf(f);
                if (dist < required) {
                    c.add(HazardKind::Latency, f, i, shortDistanceMessage(a, d, dist, required),
                          required - dist);
                    if (c.done()) return false;
                }
            }
        }
    }
    return true;
}

// 3. Distances to producers and consumers in other blocks (precomputed bounds).
bool ScheduleChecker::checkCrossBlockDistances(BlockCheck& c) const
{
    const auto& a = c.a;
    for (InstrId i(c.b.first); i.value() < c.b.end; ++i) {
        if (c.cycleOf(i) < m_model->needFromStart(i)) {
            c.add(HazardKind::Latency, i, i,
                  at(a, i) + " reads a value written shortly before its block; it would issue " +
                      std::to_string(c.cycleOf(i)) + " cycles into the block, it needs " +
                      std::to_string(m_model->needFromStart(i)),
                  m_model->needFromStart(i) - c.cycleOf(i));
            if (c.done()) return false;
        }
        int tail = c.blockCycles - c.cycleOf(i);
        if (tail < m_model->needToEnd(i)) {
            c.add(HazardKind::Latency, i, i,
                  at(a, i) + " writes a value read shortly after its block; it would issue " +
                      std::to_string(tail) + " cycles before the block ends, it needs " +
                      std::to_string(m_model->needToEnd(i)),
                  m_model->needToEnd(i) - tail);
            c.report.hazards.back().padAfter = true;
            if (c.done()) return false;
        }
    }
    return true;
}

// 4. Scoreboard re-arm spacing, issue spacing and reuse flags, in the new order.
bool ScheduleChecker::checkNewOrderSpacing(BlockCheck& c) const
{
    for (Position p : positionsOf(c.b)) {
        const InstrId i = c.s.order[p];
        const Control& ctl = c.s.control[i];
        const int cy = c.cyc[offsetInBlock(c.b, p)];
        if (!checkWaitsAfterSetters(c, i, cy)) return false;
        if (!checkSettersAfterWaits(c, i, cy)) return false;
        for (int sb = 0; sb < 6; ++sb)
            if (ctl.waitsOn(sb)) {
                c.lastWaitCycle[sb] = cy;
                c.lastWaiter[sb] = i;
            }
        for (uint8_t sb : {ctl.wbar, ctl.rbar})
            if (sb < 6) {
                c.lastSetCycle[sb] = cy;
                c.lastSetter[sb] = i;
            }
        if (!checkIssueSpacing(c, i, cy)) return false;
        if (!checkReuseFlags(c, i, p)) return false;
    }
    return checkSettersAtBlockEnd(c);
}

// Instruction i, issued at cycle cy, against the latest setter of each scoreboard it waits on
// (docs/legality.md, rule 5).
bool ScheduleChecker::checkWaitsAfterSetters(BlockCheck& c, InstrId i, int cy) const
{
    const auto& a = c.a;
    // A scoreboard is set a cycle or more after its producer issues: a wait on it must come at least
    // 2 cycles later or it may pass before the producer is counted (ptxas never did less; swapping
    // such a wait next to a SHFL that sets it gave wrong results on an H200).
    const uint8_t waits = waitMaskOf(c.ins(i), c.s.control[i]);
    for (int sb = 0; sb < 6; ++sb) {
        if (!((waits >> sb) & 1) || !c.lastSetter[sb] || *c.lastSetter[sb] == i) continue;
        const InstrId setter = *c.lastSetter[sb];
        int dist = cy - c.lastSetCycle[sb];
        int orig = c.origCycle(i) - c.origCycle(setter);
        int need = shortScoreboardNeed(orig, c.keepsYield(setter));
        if (dist < need) {
            c.add(HazardKind::Scoreboard, setter, i,
                  at(a, i) + " waits on SB" + std::to_string(sb) + " only " + std::to_string(dist) +
                      " cycle(s) after " + at(a, setter) + " sets it; the wait needs " +
                      std::to_string(need) + " cycles to see the scoreboard" + c.yieldNote(setter, orig),
                  need - dist);
            if (c.done()) return false;
        }
    }
    return true;
}

// Instruction i, issued at cycle cy, against the latest wait on each scoreboard it sets: a scoreboard is
// not re-armed within 2 cycles of a wait on it (docs/legality.md, rule 5).
bool ScheduleChecker::checkSettersAfterWaits(BlockCheck& c, InstrId i, int cy) const
{
    const auto& a = c.a;
    const Control& ctl = c.s.control[i];
    for (uint8_t sb : {ctl.wbar, ctl.rbar}) {
        if (sb >= 6 || !c.lastWaiter[sb] || *c.lastWaiter[sb] == i) continue;
        const InstrId waiter = *c.lastWaiter[sb];
        int dist = cy - c.lastWaitCycle[sb];
        // ptxas' own distance for this pair, if it was the same pair originally.
        int orig = c.origCycle(i) - c.origCycle(waiter);
        int need = shortScoreboardNeed(orig, c.keepsYield(waiter));
        if (dist < need) {
            c.add(HazardKind::Scoreboard, waiter, i,
                  at(a, i) + " sets SB" + std::to_string(sb) + " only " + std::to_string(dist) +
                      " cycle(s) after the wait on SB" + std::to_string(sb) + " at " + at(a, waiter) +
                      "; a scoreboard must not be re-armed within 2 cycles of a wait on it" +
                      c.yieldNote(waiter, orig),
                  need - dist);
            if (c.done()) return false;
        }
    }
    return true;
}

// Instruction i, issued at cycle cy, against the latest of its memory class: no closer than ptxas placed
// two of them in the kernel (docs/legality.md, rule 6).
bool ScheduleChecker::checkIssueSpacing(BlockCheck& c, InstrId i, int cy) const
{
    auto cls = spacingClass(c.ins(i));
    if (cls.empty()) return true;
    auto it = c.lastOfClass.find(cls);
    auto ms = m_model->spacing().find(cls);
    if (it != c.lastOfClass.end() && ms != m_model->spacing().end()) {
        int dist = cy - it->second.first;
        if (dist < ms->second) {
            c.add(HazardKind::IssueSpacing, it->second.second, i,
                  "two " + cls + " would issue " + std::to_string(dist) + " cycle(s) apart (" +
                      at(c.a, it->second.second) + ", " + at(c.a, i) +
                      "); ptxas never placed them closer than " + std::to_string(ms->second) +
                      " in this kernel",
                  ms->second - dist);
            if (c.done()) return false;
        }
    }
    c.lastOfClass[cls] = {cy, i};
    return true;
}

bool ScheduleChecker::checkReuseFlags(BlockCheck& c, InstrId i, Position p) const
{
    const Control& ctl = c.s.control[i];
    // Reuse flags: clearing one only drops a cache hint; each flag kept or set must be valid here.
    for (int slot = 0; slot < 4 && ctl.reuse != 0; ++slot) {
        if (!((ctl.reuse >> slot) & 1)) continue;
        if (auto why = m_model->controlRules().reuseRefusal(c.s, i, p, slot)) {
            c.add(HazardKind::Reuse, i, i, *why);
            if (c.done()) return false;
        }
    }
    return true;
}

// The last setter of each scoreboard stays 2 cycles or more before the block's end (docs/legality.md,
// rule 5).
bool ScheduleChecker::checkSettersAtBlockEnd(BlockCheck& c) const
{
    // The next block may wait on a scoreboard set at the end of this one.
    for (int sb = 0; sb < 6; ++sb) {
        if (!c.lastSetter[sb]) continue;
        const InstrId i = *c.lastSetter[sb];
        const int tail = c.blockCycles - c.lastSetCycle[sb];
        const int need = c.keepsYield(i) ? std::min(2, m_model->originalTail(i)) : 2;
        if (tail < need) {
            c.add(HazardKind::Scoreboard, i, i,
                  at(c.a, i) + " would set SB" + std::to_string(sb) + " " + std::to_string(tail) +
                      " cycle(s) before its block ends; a wait at the start of the next block needs 2" +
                      c.yieldNote(i, m_model->originalTail(i)),
                  need - tail);
            c.report.hazards.back().padAfter = true;
            if (c.done()) return false;
        }
    }
    return true;
}

// 5. Control values, judged against ptxas' own bits (core/rewrite/control_rules.h).
void ScheduleChecker::checkControlValues(BlockCheck& c) const
{
    for (Position p : positionsOf(c.b)) {
        const InstrId i = c.s.order[p];
        if (c.s.control[i] == c.ins(i).control) continue;
        for (auto& why : m_model->controlRules().valueRefusals(i, c.s.control[i])) {
            c.add(HazardKind::Structure, i, i, std::move(why));
            if (c.done()) return;
        }
    }
}

// Every flag in `flags` is valid on instruction i at position p (ControlRules::reuseRefusal).
bool ScheduleChecker::reuseValid(const Schedule& s, InstrId i, Position p, uint8_t flags) const
{
    for (int slot = 0; slot < 4; ++slot)
        if (((flags >> slot) & 1) && m_model->controlRules().reuseRefusal(s, i, p, slot)) return false;
    return true;
}

void ScheduleChecker::fixReuse(Schedule& s) const
{
    for (Position p : s.positions()) {
        const InstrId i = s.order[p];
        Control& c = s.control[i];
        if (c.reuse == 0) continue;
        uint8_t keep = 0;
        for (int k = 0; k < 4; ++k)
            if (((c.reuse >> k) & 1) && reuseValid(s, i, p, uint8_t(1u << k))) keep |= uint8_t(1u << k);
        c.reuse = keep;
    }
}

} // namespace sassx
