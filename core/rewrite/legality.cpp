#include "core/rewrite/legality.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace sassx {
namespace {

std::string at(const KernelAnalysis& a, uint32_t i)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, " at 0x%04llx", static_cast<unsigned long long>(a.listing.instructions[i].offset));
    return a.listing.instructions[i].opcode + buf;
}

// Same-class key for issue spacing: the base opcode of memory instructions.
std::string spacingClass(const Instruction& ins)
{
    return ins.isMemory() ? ins.baseOpcode : std::string();
}

} // namespace

std::string LegalityReport::summary() const
{
    return hazards.empty() ? std::string("legal") : hazards.front().message;
}

LegalityChecker::LegalityChecker(std::shared_ptr<const KernelAnalysis> analysis) : m_analysis(std::move(analysis))
{
    // Closest issue distance ptxas left between two same-class memory instructions, per class.
    const auto& a = *m_analysis;
    std::map<std::string, int> minSpacing;
    for (const auto& b : a.cfg.blocks) {
        std::map<std::string, int> last;
        for (uint32_t i = b.first; i < b.end; ++i) {
            auto cls = spacingClass(a.listing.instructions[i]);
            if (cls.empty())
                continue;
            int c = a.facts[i].cycle;
            if (auto it = last.find(cls); it != last.end()) {
                int d = c - it->second;
                auto m = minSpacing.find(cls);
                if (m == minSpacing.end() || d < m->second)
                    minSpacing[cls] = d;
            }
            last[cls] = c;
        }
    }
    m_spacing = std::move(minSpacing);
    computeCrossBlockDistances();
}

void LegalityChecker::computeCrossBlockDistances()
{
    const auto& a = *m_analysis;
    const auto& insts = a.listing.instructions;
    m_maxFixed = a.latencies.isEmpty() ? 15 : a.latencies.maxFixedLatency();
    const uint8_t cap = uint8_t(m_maxFixed);
    const size_t nb = a.cfg.blocks.size();
    std::vector<int> length(nb, 0);
    for (const auto& b : a.cfg.blocks)
        for (uint32_t i = b.first; i < b.end; ++i)
            length[b.index] += issueCycles(insts[i]);
    auto sat = [&](int v) { return uint8_t(std::min<int>(v, cap)); };

    // Forward: age of each register's value at block entry.
    m_entryAge.assign(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    std::vector<std::vector<uint8_t>> ageOut(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& b : a.cfg.blocks) {
            auto& in = m_entryAge[b.index];
            for (int p : b.predecessors)
                for (int k = 0; k < Reg::kKeyCount; ++k)
                    if (ageOut[p][k] < in[k]) {
                        in[k] = ageOut[p][k];
                        changed = true;
                    }
            std::vector<uint8_t> out(Reg::kKeyCount);
            for (int k = 0; k < Reg::kKeyCount; ++k)
                out[k] = sat(in[k] + length[b.index]);
            for (uint32_t i = b.first; i < b.end; ++i)
                for (const auto& r : insts[i].defs)
                    out[r.key()] = insts[i].variableLatency ? cap : sat(length[b.index] - a.facts[i].cycle);
            if (out != ageOut[b.index]) {
                ageOut[b.index] = std::move(out);
                changed = true;
            }
        }
    }
    // Backward: cycles from block exit to the first read of each register.
    m_exitDistance.assign(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    std::vector<std::vector<uint8_t>> distIn(nb, std::vector<uint8_t>(Reg::kKeyCount, cap));
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t bi = nb; bi-- > 0;) {
            const auto& b = a.cfg.blocks[bi];
            auto& out = m_exitDistance[bi];
            for (int sidx : b.successors)
                for (int k = 0; k < Reg::kKeyCount; ++k)
                    if (distIn[sidx][k] < out[k]) {
                        out[k] = distIn[sidx][k];
                        changed = true;
                    }
            std::vector<uint8_t> in(Reg::kKeyCount);
            for (int k = 0; k < Reg::kKeyCount; ++k)
                in[k] = sat(out[k] + length[bi]);
            for (uint32_t i = b.end; i-- > b.first;) {
                for (const auto& r : insts[i].defs)
                    if (!insts[i].guard)
                        in[r.key()] = cap;
                for (const auto& r : insts[i].uses)
                    in[r.key()] = sat(a.facts[i].cycle);
            }
            if (in != distIn[bi]) {
                distIn[bi] = std::move(in);
                changed = true;
            }
        }
    }
}

LegalityReport LegalityChecker::check(const std::vector<Edit>& edits, const CheckOptions& options) const
{
    LegalityReport r;
    auto s = applyEdits(*m_analysis, edits);
    if (!s) {
        r.hazards.push_back({HazardKind::Structure, 0, 0, s.message(), 0});
        return r;
    }
    fixReuse(*s);
    return check(*s, options);
}

LegalityReport LegalityChecker::check(const Schedule& s, const CheckOptions& options) const
{
    LegalityReport report;
    const auto& a = *m_analysis;
    const uint32_t n = uint32_t(a.listing.instructions.size());
    if (s.order.size() != n || s.control.size() != n) {
        report.hazards.push_back({HazardKind::Structure, 0, 0, "the schedule does not cover every instruction", 0});
        return report;
    }
    std::vector<char> seen(n, 0);
    for (uint32_t p = 0; p < n; ++p) {
        if (s.order[p] >= n || seen[s.order[p]]) {
            report.hazards.push_back({HazardKind::Structure, 0, 0, "the order is not a permutation", 0});
            return report;
        }
        seen[s.order[p]] = 1;
    }
    auto pos = s.positionOf();
    for (const auto& b : a.cfg.blocks) {
        checkBlock(s, pos, b.index, report, options);
        if (options.stopAtFirst && !report.legal())
            break;
    }
    return report;
}

void LegalityChecker::checkBlock(const Schedule& s, const std::vector<uint32_t>& pos, int blockIndex,
                                 LegalityReport& report, const CheckOptions& options) const
{
    const auto& a = *m_analysis;
    const auto& insts = a.listing.instructions;
    const auto& b = a.cfg.blocks[blockIndex];
    auto add = [&](HazardKind k, uint32_t x, uint32_t y, std::string msg, int missing = 0) {
        report.hazards.push_back({k, x, y, std::move(msg), missing});
    };
    auto done = [&] { return options.stopAtFirst && !report.legal(); };

    // New issue cycles inside the block.
    std::vector<int> cyc(b.size());
    {
        int c = 0;
        for (uint32_t p = b.first; p < b.end; ++p) {
            cyc[p - b.first] = c;
            const Control& ctl = s.control[s.order[p]];
            c += ctl.stall == 0 ? 1 : ctl.stall;
        }
    }
    auto cycleOf = [&](uint32_t i) { return cyc[pos[i] - b.first]; };
    const int blockCycles = [&] {
        int c = 0;
        for (uint32_t p = b.first; p < b.end; ++p)
            c += s.control[s.order[p]].stall == 0 ? 1 : s.control[s.order[p]].stall;
        return c;
    }();
    const int origBlockCycles = [&] {
        int c = 0;
        for (uint32_t i = b.first; i < b.end; ++i)
            c += issueCycles(insts[i]);
        return c;
    }();

    // 1. Membership, walls and pinned instructions.
    uint32_t lastWall = b.first; // segment start (original)
    std::vector<uint32_t> segment(b.size());
    {
        uint32_t seg = 0;
        for (uint32_t i = b.first; i < b.end; ++i) {
            bool fixed = a.facts[i].wall || a.deps.unresolved()[i];
            if (fixed)
                ++seg;
            segment[i - b.first] = seg;
            if (fixed)
                ++seg;
        }
    }
    (void)lastWall;
    for (uint32_t p = b.first; p < b.end; ++p) {
        uint32_t i = s.order[p];
        if (i < b.first || i >= b.end) {
            add(HazardKind::Structure, i, i, insts[i].opcode + " would leave its basic block; block starts must stay fixed");
            return;
        }
        if (segment[i - b.first] != segment[p - b.first]) {
            // Find the wall crossed to name it.
            uint32_t lo = std::min(i, p), hi = std::max(i, p);
            uint32_t wall = lo;
            for (uint32_t k = lo; k <= hi; ++k)
                if (a.facts[k].wall || a.deps.unresolved()[k]) {
                    wall = k;
                    break;
                }
            if (wall == i)
                add(a.facts[i].wall ? HazardKind::Wall : HazardKind::Pinned, i, i,
                    a.facts[i].wall ? insts[i].opcode + at(a, i) + " cannot move: " + a.facts[i].wallReason
                                    : at(a, i) + " cannot move: " + a.deps.unresolvedReason(i));
            else
                add(a.facts[wall].wall ? HazardKind::Wall : HazardKind::Pinned, i, wall,
                    insts[i].opcode + at(a, i) + " would cross " + insts[wall].opcode + at(a, wall) + ": " +
                        (a.facts[wall].wall ? a.facts[wall].wallReason
                                            : std::string("its ordering against waits cannot be proven")));
            if (done())
                return;
        }
    }

    // 2. Ordering edges and fixed-latency distances.
    for (uint32_t i = b.first; i < b.end; ++i) {
        for (uint32_t e : a.deps.incoming(i)) {
            const auto& d = a.deps.edges()[e];
            const uint32_t f = d.from;
            const std::string reg = d.hasReg ? d.reg.name() : std::string();
            if (pos[f] > pos[i]) {
                std::string msg;
                HazardKind kind = HazardKind::Register;
                switch (d.kind) {
                case DepKind::Raw:
                    msg = reg + " is written by " + at(a, f) + " and read by " + at(a, i) +
                          "; this order puts the reader first";
                    break;
                case DepKind::War:
                    msg = reg + " is read by " + at(a, f) + " and then overwritten by " + at(a, i) +
                          "; this order overwrites it before the read";
                    break;
                case DepKind::Waw:
                    msg = reg + " is written by " + at(a, f) + " and again by " + at(a, i) +
                          "; swapping them leaves the wrong value";
                    break;
                case DepKind::SbProducer:
                    kind = HazardKind::Scoreboard;
                    msg = at(a, i) + " waits on SB" + std::to_string(d.scoreboard) + " for " + at(a, f) +
                          "; this order issues the wait before the instruction that sets the scoreboard";
                    break;
                case DepKind::SbConsumer:
                    kind = HazardKind::Scoreboard;
                    msg = at(a, i) + (d.readScoreboard ? " overwrites " : " reads ") + reg +
                          ", which is only safe after the scoreboard wait at " + at(a, f) +
                          "; this order runs it before that wait";
                    break;
                case DepKind::ImplicitCover:
                    kind = HazardKind::ImplicitCoverage;
                    msg = reg + (d.readScoreboard ? " is read asynchronously by " : " is written by ") + at(a, f) +
                          " without its own scoreboard; it is only covered by the wait on SB" +
                          std::to_string(d.scoreboard) + " of " + at(a, i) + ", which this order would put first";
                    break;
                case DepKind::Memory:
                    kind = HazardKind::MemoryOrder;
                    msg = at(a, f) + " and " + at(a, i) +
                          " may access the same memory (one writes) and cannot be proven disjoint; their order must "
                          "stay";
                    break;
                }
                add(kind, f, i, msg);
                if (done())
                    return;
                continue;
            }
            if (d.kind == DepKind::Raw && d.latency >= 0) {
                // Bound: the table's latency, never more than ptxas' own distance (ptxas knows the truth).
                int required = d.latencyFromTable ? std::min(d.latency, d.distance) : d.distance;
                int dist = cycleOf(i) - cycleOf(f);
                if (dist < required) {
                    add(HazardKind::Latency, f, i,
                        at(a, i) + " reads " + reg + " " + std::to_string(dist) + " cycles after " + at(a, f) +
                            " writes it; it needs " + std::to_string(required) +
                            (d.latencyFromTable ? " (" + a.latencies.arch() + " latency table)"
                                                : " (the distance ptxas left; the table does not know this pair)"),
                        required - dist);
                    if (done())
                        return;
                }
            }
        }
    }

    // 3. Distances to producers and consumers in other blocks: a value crossing the block edge keeps
    // the distance ptxas gave it, where that distance is shorter than the longest fixed latency.
    for (uint32_t i = b.first; i < b.end; ++i) {
        const auto& ins = insts[i];
        int needFromStart = 0;
        for (const auto& r : ins.uses) {
            int age = m_entryAge[b.index][r.key()];
            if (age >= m_maxFixed)
                continue;
            bool inBlock = false;
            for (uint32_t e : a.deps.incoming(i)) {
                const auto& d = a.deps.edges()[e];
                inBlock = inBlock || ((d.kind == DepKind::Raw || d.kind == DepKind::Waw) && d.hasReg && d.reg == r);
            }
            if (!inBlock)
                needFromStart = std::max(needFromStart, std::min(m_maxFixed - age, a.facts[i].cycle));
        }
        if (cycleOf(i) < needFromStart) {
            add(HazardKind::Latency, i, i,
                at(a, i) + " reads a value written shortly before its block; it would issue " +
                    std::to_string(cycleOf(i)) + " cycles into the block, it needs " + std::to_string(needFromStart),
                needFromStart - cycleOf(i));
            if (done())
                return;
        }
        if (ins.variableLatency)
            continue;
        int needToEnd = 0;
        const int origTail = origBlockCycles - a.facts[i].cycle;
        for (const auto& r : ins.defs) {
            int dist = m_exitDistance[b.index][r.key()];
            if (dist >= m_maxFixed)
                continue;
            bool redefined = false;
            for (uint32_t e : a.deps.outgoing(i)) {
                const auto& d = a.deps.edges()[e];
                redefined = redefined || (d.kind == DepKind::Waw && d.hasReg && d.reg == r);
            }
            if (!redefined)
                needToEnd = std::max(needToEnd, std::min(m_maxFixed - dist, origTail));
        }
        int tail = blockCycles - cycleOf(i);
        if (tail < needToEnd) {
            add(HazardKind::Latency, i, i,
                at(a, i) + " writes a value read shortly after its block; it would issue " + std::to_string(tail) +
                    " cycles before the block ends, it needs " + std::to_string(needToEnd),
                needToEnd - tail);
            if (done())
                return;
        }
    }

    // 4. Scoreboard re-arm spacing, issue spacing and reuse flags, in the new order.
    std::array<int, 6> lastWaitCycle;
    std::array<int32_t, 6> lastWaiter;
    lastWaitCycle.fill(-1000);
    lastWaiter.fill(-1);
    std::map<std::string, std::pair<int, uint32_t>> lastOfClass;
    for (uint32_t p = b.first; p < b.end; ++p) {
        uint32_t i = s.order[p];
        const Control& c = s.control[i];
        const int cy = cyc[p - b.first];
        for (uint8_t sb : {c.wbar, c.rbar}) {
            if (sb >= 6 || lastWaiter[sb] < 0 || uint32_t(lastWaiter[sb]) == i)
                continue;
            int dist = cy - lastWaitCycle[sb];
            // ptxas' own distance for this pair, if it was the same pair originally.
            int orig = a.facts[i].cycle - a.facts[lastWaiter[sb]].cycle;
            int need = (orig >= 0 && orig < 2) ? orig : 2;
            if (dist < need) {
                add(HazardKind::Scoreboard, uint32_t(lastWaiter[sb]), i,
                    at(a, i) + " sets SB" + std::to_string(sb) + " only " + std::to_string(dist) +
                        " cycle(s) after the wait on SB" + std::to_string(sb) + " at " + at(a, lastWaiter[sb]) +
                        "; a scoreboard must not be re-armed within 2 cycles of a wait on it",
                    need - dist);
                if (done())
                    return;
            }
        }
        for (int sb = 0; sb < 6; ++sb)
            if (c.waitsOn(sb)) {
                lastWaitCycle[sb] = cy;
                lastWaiter[sb] = int32_t(i);
            }
        auto cls = spacingClass(insts[i]);
        if (!cls.empty()) {
            auto it = lastOfClass.find(cls);
            auto ms = m_spacing.find(cls);
            if (it != lastOfClass.end() && ms != m_spacing.end()) {
                int dist = cy - it->second.first;
                if (dist < ms->second) {
                    add(HazardKind::IssueSpacing, it->second.second, i,
                        "two " + cls + " would issue " + std::to_string(dist) + " cycle(s) apart (" +
                            at(a, it->second.second) + ", " + at(a, i) + "); ptxas never placed them closer than " +
                            std::to_string(ms->second) + " in this kernel",
                        ms->second - dist);
                    if (done())
                        return;
                }
            }
            lastOfClass[cls] = {cy, i};
        }
        if (c.reuse != 0 && !reuseValid(s, i, p, c.reuse)) {
            add(HazardKind::Reuse, i, i,
                at(a, i) + " keeps operand-reuse flags whose pairing with the next instruction is not proven");
            if (done())
                return;
        }
    }
    // 5. Control values.
    for (uint32_t p = b.first; p < b.end; ++p) {
        uint32_t i = s.order[p];
        const Control& c = s.control[i];
        if (c.stall == 0 && insts[i].control.stall != 0) {
            add(HazardKind::Structure, i, i, at(a, i) + ": a stall of 0 is only kept where ptxas used it");
            if (done())
                return;
        }
        if (c.wbar != insts[i].control.wbar || c.rbar != insts[i].control.rbar || c.wait != insts[i].control.wait) {
            add(HazardKind::Structure, i, i, at(a, i) + ": scoreboard fields are not editable");
            if (done())
                return;
        }
    }
}

// A reuse flag on slot k of X is kept when X is followed by the same instruction as in ptxas' order
// and the flag was ptxas' own, or when both X and the new next instruction print the same
// general register in operand slot k+1 (Ra/Rb/Rc) and are fixed-latency ALU/FMA operations.
bool LegalityChecker::reuseValid(const Schedule& s, uint32_t i, uint32_t p, uint8_t flags) const
{
    const auto& a = *m_analysis;
    const auto& insts = a.listing.instructions;
    const auto& b = a.cfg.blocks[a.cfg.blockOf[p]];
    std::optional<uint32_t> next;
    if (p + 1 < b.end)
        next = s.order[p + 1];
    for (int k = 0; k < 4; ++k) {
        if (!((flags >> k) & 1))
            continue;
        bool original = ((insts[i].control.reuse >> k) & 1) && next && *next == i + 1 && i + 1 < b.end;
        if (original)
            continue;
        if (!next || k > 2)
            return false;
        const auto& x = insts[i];
        const auto& y = insts[*next];
        auto slot = [&](const Instruction& ins) -> std::optional<Reg> {
            if (ins.operands.size() <= size_t(k + 1))
                return std::nullopt;
            const auto& op = ins.operands[k + 1];
            if (op.kind != Operand::Kind::Register || !op.reg || op.reg->file != RegFile::R)
                return std::nullopt;
            return op.reg;
        };
        auto fixedAlu = [](const Instruction& ins) {
            return !ins.variableLatency && (ins.cls == InstrClass::Alu || ins.cls == InstrClass::Fma);
        };
        auto rx = slot(x), ry = slot(y);
        if (!(fixedAlu(x) && fixedAlu(y) && rx && ry && *rx == *ry))
            return false;
    }
    return true;
}

void LegalityChecker::fixReuse(Schedule& s) const
{
    const auto& a = *m_analysis;
    for (uint32_t p = 0; p < s.order.size(); ++p) {
        uint32_t i = s.order[p];
        Control& c = s.control[i];
        if (c.reuse == 0)
            continue;
        uint8_t keep = 0;
        for (int k = 0; k < 4; ++k)
            if (((c.reuse >> k) & 1) && reuseValid(s, i, p, uint8_t(1u << k)))
                keep |= uint8_t(1u << k);
        c.reuse = keep;
    }
    (void)a;
}

bool LegalityChecker::repairLatencies(Schedule& s) const
{
    // Raise the stall of the instruction issued just before the late one; repeat until nothing is
    // short. Only distance hazards can be repaired this way.
    for (int round = 0; round < 64; ++round) {
        auto report = check(s);
        if (report.legal())
            return true;
        bool repaired = false;
        auto pos = s.positionOf();
        for (const auto& h : report.hazards) {
            bool distance = h.kind == HazardKind::Latency || h.kind == HazardKind::IssueSpacing ||
                            (h.kind == HazardKind::Scoreboard && h.missingCycles > 0);
            if (!distance)
                return false;
            uint32_t late = h.second;
            uint32_t p = pos[late];
            const auto& blk = m_analysis->cfg.blocks[m_analysis->cfg.blockOf[p]];
            if (h.first == h.second) {
                // Cross-block distance: pad before it (reads) or after it (writes).
                if (p > blk.first)
                    p = p - 1;
            } else if (p > blk.first) {
                p = p - 1;
            }
            Control& c = s.control[s.order[p]];
            int want = std::max<int>(c.stall, 1) + h.missingCycles;
            if (want > 15)
                return false;
            c.stall = uint8_t(want);
            repaired = true;
            break; // re-check: one padding can fix several hazards
        }
        if (!repaired)
            return false;
    }
    return false;
}

std::vector<uint32_t> LegalityChecker::legalTargets(const Schedule& current, uint32_t p) const
{
    std::vector<uint32_t> out;
    const auto& a = *m_analysis;
    if (p >= current.order.size())
        return out;
    const auto& b = a.cfg.blocks[a.cfg.blockOf[p]];
    uint32_t x = current.order[p];
    if (a.facts[x].wall || a.deps.unresolved()[x])
        return out;
    auto pos = current.positionOf();
    // Edges bound the range: x stays after its predecessors and before its successors.
    uint32_t lo = b.first, hi = b.end - 1;
    for (uint32_t e : a.deps.incoming(x))
        lo = std::max(lo, pos[a.deps.edges()[e].from] + 1);
    for (uint32_t e : a.deps.outgoing(x))
        if (pos[a.deps.edges()[e].to] > 0)
            hi = std::min(hi, pos[a.deps.edges()[e].to] - 1);
    // Walls too.
    for (uint32_t q = p; q-- > lo;)
        if (a.facts[current.order[q]].wall || a.deps.unresolved()[current.order[q]]) {
            lo = q + 1;
            break;
        }
    for (uint32_t q = p + 1; q <= hi; ++q)
        if (a.facts[current.order[q]].wall || a.deps.unresolved()[current.order[q]]) {
            hi = q - 1;
            break;
        }
    CheckOptions opts;
    opts.stopAtFirst = true;
    for (uint32_t t = lo; t <= hi && t < b.end; ++t) {
        if (t == p)
            continue;
        Schedule s = current;
        if (p < t)
            std::rotate(s.order.begin() + p, s.order.begin() + p + 1, s.order.begin() + t + 1);
        else
            std::rotate(s.order.begin() + t, s.order.begin() + p, s.order.begin() + p + 1);
        fixReuse(s);
        auto npos = s.positionOf();
        LegalityReport r;
        checkBlock(s, npos, b.index, r, opts);
        if (r.legal())
            out.push_back(t);
    }
    return out;
}

} // namespace sassx
