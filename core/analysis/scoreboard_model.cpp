// The scoreboard model of the dependency graph (docs/legality.md, "What the model knows"): a forward
// simulation per block of what each wait retires, seeded with what may still be outstanding when the
// block starts (a may-analysis over the CFG). It adds the producer → wait, wait → consumer and implicit
// coverage edges, and pins the instructions whose protection it cannot attribute to a visible wait.
#include "core/analysis/dependency_builder.h"

#include <algorithm>

namespace sassx::depgraph {
namespace {

// Join of two paths: every explicit SB of either path must be waited on; an implicit part is retired
// only by an SB that retires it on both paths.
bool mergeInto(State& into, const State& from)
{
    bool changed = false;
    auto merge = [&](Pending& a, const Pending& b) {
        Pending m = a;
        m.all = uint8_t(a.all | b.all);
        if (b.pipe != kNoPipe) {
            if (a.pipe == kNoPipe) {
                m.pipe = b.pipe;
                m.any = b.any;
            } else if (a.pipe != b.pipe) {
                m.pipe = int16_t(kUnknownPipe);
                m.any = 0;
            } else {
                m.any = uint8_t(a.any & b.any);
            }
        }
        m.producer = -1;
        m.implicitProducer = -1;
        m.via.fill(-1);
        m.implicitOwnSb = kNoBarrier;
        m.members.clear();
        if (!(m == a)) changed = true;
        a = m;
    };
    for (int k = 0; k < kKeys; ++k) {
        merge(into.write[k], from.write[k]);
        merge(into.read[k], from.read[k]);
    }
    return changed;
}

// Async readers whose source registers may be read after issue.
// Memory instructions read their source registers after issue, through the memory pipe's queue:
// stores and async copies their data, loads too their addresses. ptxas protects an overwrite of an LDG's
// address either with the LDG's own read scoreboard or with a later LDG's read scoreboard that is waited
// on (implicit coverage: moving an overwrite of an LDG's address register above that wait faulted on an
// H100 with no other hazard; docs/legality.md).
bool readsSourcesLate(const Instruction& ins)
{
    return ins.isMemory() || ins.cls == InstrClass::AsyncCopy;
}

// The scoreboard whose release proves a late reader has read its sources: a load's write scoreboard is
// released when its data reaches the registers, which is after the request left with the address
// read (docs/legality.md, "Scoreboards"). ptxas relies on it: RMSNorm's two LDGs have no read
// scoreboard, and their address registers are overwritten right after the waits on their write
// scoreboards. kNoBarrier if the instruction has none.
uint8_t ownReadCover(const Instruction& ins)
{
    return ins.isMemory() && !ins.defs.empty() && ins.control.wbar < 6 && ins.control.rbar == kNoBarrier
               ? ins.control.wbar
               : kNoBarrier;
}

// The scoreboards an instruction waits on: its wait mask, and the SB a DEPBAR drains.
uint8_t waitMask(const Instruction& ins)
{
    uint8_t mask = ins.control.wait;
    if (ins.op == Op::DEPBAR) {
        // DEPBAR.LE SBn, 0 drains SBn; a non-zero count retires an unknown subset: no credit.
        if (ins.operands.size() >= 2 && ins.operands[0].text.starts_with("SB") &&
            ins.operands[1].kind == Operand::Kind::Immediate && ins.operands[1].intValue == 0)
            mask |= uint8_t(1u << (ins.operands[0].text[2] - '0'));
    }
    return mask;
}

using Covers = std::vector<std::vector<int32_t>>; // per register key: indices of in-block waits

// One run of the scoreboard model over a block (Builder::transfer), instruction by instruction: the
// waits it meets, the hazards of each instruction against what is still outstanding, and what the
// instruction leaves outstanding.
class ScoreboardWalk
{
public:
    // Walks from `state` (a block's entry state), which it leaves as the state after each step.
    ScoreboardWalk(Builder& builder, State& state, bool emit)
        : m_bld(builder), m_insts(builder.listing.instructions), m_emit(emit), m_s(state),
          m_wCover(emit ? kKeys : 0), m_rCover(emit ? kKeys : 0)
    {
    }

    void step(uint32_t i);
    void finishBlock(const BasicBlock& b);

private:
    void applyWaits(uint32_t i, uint8_t mask);
    void retire(std::array<Pending, kKeys>& pend, Covers& cover, bool isRead, uint32_t i, uint8_t mask);
    void addImplicitCoverEdges(const Pending& p, int k, uint8_t mask, bool isRead);
    void checkOperand(uint32_t i, const Reg& r, bool isDef);
    void checkAgainst(const Pending& p, const Covers& cover, bool isRead, uint32_t i, const Reg& r);
    void markUnresolved(uint32_t i, const Reg& r, const Pending& p, bool isRead);
    void armScoreboards(uint32_t i, int pipe);
    void recordDefs(uint32_t i, int pipe);
    void recordLateReads(uint32_t i, int pipe);

    Builder& m_bld;
    const std::vector<Instruction>& m_insts;
    const bool m_emit;
    State& m_s;
    // Coverers: the in-block waits that retired (part of) a register's pending state since its last
    // definition; a consumer must stay after every one of them.
    Covers m_wCover, m_rCover;
    std::array<std::vector<int32_t>, 6> m_sbProducers; // in-block producers pending per SB
};

void ScoreboardWalk::step(uint32_t i)
{
    const auto& ins = m_insts[i];
    if (const uint8_t mask = waitMask(ins)) applyWaits(i, mask);

    // Hazards of this instruction against what is still outstanding.
    for (const auto& r : ins.uses)
        checkOperand(i, r, false);
    for (const auto& r : ins.defs)
        checkOperand(i, r, true);

    // New outstanding state.
    const int pipe = completionPipe(ins);
    if (ins.variableLatency) armScoreboards(i, pipe);
    recordDefs(i, pipe);
    if (ins.variableLatency && (ins.control.rbar < 6 || readsSourcesLate(ins))) recordLateReads(i, pipe);
}

// The wait at instruction i on the SBs in `mask`: each producer pending on one of them gets an edge to
// the wait, and what the wait retires is recorded.
void ScoreboardWalk::applyWaits(uint32_t i, uint8_t mask)
{
    for (int sb = 0; sb < 6; ++sb) {
        if (!((mask >> sb) & 1)) continue;
        if (m_emit)
            for (int32_t p : m_sbProducers[sb]) {
                Dependency d;
                d.from = uint32_t(p);
                d.to = i;
                d.kind = DepKind::SbProducer;
                d.scoreboard = int8_t(sb);
                d.readScoreboard = m_insts[p].control.wbar != sb;
                m_bld.addEdge(d);
            }
        m_sbProducers[sb].clear();
    }
    retire(m_s.write, m_wCover, false, i, mask);
    retire(m_s.read, m_rCover, true, i, mask);
}

// What the wait on the SBs in `mask` at instruction i retires in one table: pending writes, or with
// isRead pending late reads. Each register it retires (part of) records the wait as a coverer.
void ScoreboardWalk::retire(std::array<Pending, kKeys>& pend, Covers& cover, bool isRead, uint32_t i,
                            uint8_t mask)
{
    for (int k = 0; k < kKeys; ++k) {
        Pending& p = pend[k];
        // Members whose own SB this waits on are done; the wait covers them.
        const size_t before = p.members.size();
        std::erase_if(p.members, [&](const auto& m) { return m.second < 6 && ((mask >> m.second) & 1); });
        const bool memberDone = p.members.size() != before;
        const bool hitAll = (p.all & mask) != 0;
        const bool hitAny = p.pipe != kNoPipe && (p.any & mask) != 0;
        if (!hitAll && !hitAny) {
            if (m_emit && memberDone) cover[k].push_back(int32_t(i));
            continue;
        }
        if (m_emit && hitAny) {
            addImplicitCoverEdges(p, k, mask, isRead);
            p.members.clear();
        }
        p.all = uint8_t(p.all & ~mask);
        if (hitAny) {
            p.pipe = kNoPipe;
            p.any = 0;
            p.implicitProducer = -1;
            p.via.fill(-1);
        }
        if (!p.active()) p = Pending{};
        if (m_emit) cover[k].push_back(int32_t(i));
    }
}

// Implicit: the producers relied on the later same-pipe producer whose SB this is.
void ScoreboardWalk::addImplicitCoverEdges(const Pending& p, int k, uint8_t mask, bool isRead)
{
    for (int sb = 0; sb < 6; ++sb) {
        if (!((mask & p.any) >> sb & 1) || p.via[sb] < 0) continue;
        const Reg reg = Reg::fromKey(uint16_t(k));
        if (p.implicitProducer >= 0)
            m_bld.addSbEdge(uint32_t(p.implicitProducer), uint32_t(p.via[sb]), DepKind::ImplicitCover, reg,
                            isRead, sb);
        for (const auto& m : p.members)
            m_bld.addSbEdge(uint32_t(m.first), uint32_t(p.via[sb]), DepKind::ImplicitCover, reg, isRead, sb);
    }
}

// Instruction i reads r, or with isDef writes it: it must wait for a pending write, and an overwrite
// also for pending late reads.
void ScoreboardWalk::checkOperand(uint32_t i, const Reg& r, bool isDef)
{
    int k = r.key();
    checkAgainst(m_s.write[k], m_wCover, false, i, r);
    if (isDef) checkAgainst(m_s.read[k], m_rCover, true, i, r);
}

// Instruction i reads (or, with isRead, overwrites a source of) register r, whose pending state is p.
void ScoreboardWalk::checkAgainst(const Pending& p, const Covers& cover, bool isRead, uint32_t i,
                                  const Reg& r)
{
    const auto& ins = m_insts[i];
    const int k = r.key();
    if (isRead && p.all == 0 && p.pipe != kNoPipe && p.pipe != kUnknownPipe &&
        p.pipe == completionPipe(ins) && ins.variableLatency && readsSourcesLate(ins)) {
        // Overwritten by a later access of the same in-order pipe (an LDG loading into
        // the address register an earlier LDG reads): its result lands after it read its
        // own sources, so after the earlier readers of the pipe read theirs, while they
        // stay earlier (the assumption behind implicit coverage).
        if (m_emit) {
            if (p.implicitProducer >= 0)
                m_bld.addSbEdge(uint32_t(p.implicitProducer), i, DepKind::ImplicitCover, r, true);
            for (const auto& m : p.members)
                m_bld.addSbEdge(uint32_t(m.first), i, DepKind::ImplicitCover, r, true);
            m_bld.readCovered.insert(uint64_t(i) << 32 | uint32_t(k));
        }
        return;
    }
    if (p.active()) {
        if (m_emit && !m_bld.unresolved[i]) markUnresolved(i, r, p, isRead);
        return;
    }
    if (!m_emit) return;
    if (isRead && !cover[k].empty()) m_bld.readCovered.insert(uint64_t(i) << 32 | uint32_t(k));
    for (int32_t w : cover[k])
        if (uint32_t(w) != i) m_bld.addSbEdge(uint32_t(w), i, DepKind::SbConsumer, r, isRead);
}

// Pins instruction i: r may still be pending on p, and no wait in the block is seen to retire it.
void ScoreboardWalk::markUnresolved(uint32_t i, const Reg& r, const Pending& p, bool isRead)
{
    m_bld.unresolved[i] = 1;
    std::string why =
        r.name() + (isRead ? " may still be read asynchronously by " : " may still be written by ");
    why += p.producer >= 0 ? m_insts[p.producer].opcode + " in this block"
                           : std::string("an instruction in another block");
    if (p.sbs()) {
        why += " (SB";
        for (int sb = 0; sb < 6; ++sb)
            if ((p.sbs() >> sb) & 1) why += (why.back() == 'B' ? "" : ",") + std::to_string(sb);
        why += " not waited on here)";
    } else {
        why += " (no scoreboard; no covering wait found)";
    }
    m_bld.reasons[i] = why;
}

// The SBs a variable-latency instruction i sets.
void ScoreboardWalk::armScoreboards(uint32_t i, int pipe)
{
    const auto& ins = m_insts[i];
    // A later same-pipe producer's SB also covers earlier implicit entries of that pipe.
    auto convert = [&](std::array<Pending, kKeys>& pend, uint8_t sb) {
        if (sb >= 6 || pipe < 0) return;
        for (auto& p : pend)
            if (p.pipe == pipe) {
                p.any |= uint8_t(1u << sb);
                if (p.via[sb] < 0) p.via[sb] = int32_t(i);
            }
    };
    convert(m_s.write, ins.control.wbar);
    convert(m_s.read, ins.control.rbar);
    if (ins.control.wbar < 6) m_sbProducers[ins.control.wbar].push_back(int32_t(i));
    if (ins.control.rbar < 6 && ins.control.rbar != ins.control.wbar)
        m_sbProducers[ins.control.rbar].push_back(int32_t(i));
}

// The registers instruction i writes: pending until its SB is waited on (or a later same-pipe
// producer's SB, without one of its own) if it is variable-latency, with no reader pending.
void ScoreboardWalk::recordDefs(uint32_t i, int pipe)
{
    const auto& ins = m_insts[i];
    for (const auto& r : ins.defs) {
        int k = r.key();
        if (m_emit) {
            m_wCover[k].clear();
            m_rCover[k].clear();
        }
        Pending p;
        if (ins.variableLatency) {
            p.producer = int32_t(i);
            if (ins.control.wbar < 6) {
                p.all = uint8_t(1u << ins.control.wbar);
            } else {
                p.pipe = int16_t(pipe >= 0 ? pipe : kUnknownPipe);
                p.implicitProducer = int32_t(i);
            }
        }
        m_s.write[k] = p;
        m_s.read[k] = Pending{};
    }
}

// The source registers a late reader i may read after issue: pending on its read SB, or else on what
// covers its pipe (and on its own cover, ownReadCover).
void ScoreboardWalk::recordLateReads(uint32_t i, int pipe)
{
    const auto& ins = m_insts[i];
    const uint8_t own = ownReadCover(ins);
    for (const auto& r : ins.uses) {
        if (ins.guard && r == *ins.guard) continue;
        int k = r.key();
        Pending& p = m_s.read[k];
        p.producer = int32_t(i);
        if (ins.control.rbar < 6) {
            p.all = uint8_t(p.all | (1u << ins.control.rbar));
        } else {
            const int16_t myPipe = int16_t(pipe >= 0 ? pipe : kUnknownPipe);
            if (p.pipe != kNoPipe && p.pipe != myPipe) {
                p.pipe = int16_t(kUnknownPipe);
            } else {
                // An earlier implicit reader on this pipe is covered by whatever covers this
                // one only while it stays earlier, unless the wait on its own SB comes first.
                if (m_emit && p.implicitProducer >= 0)
                    p.members.emplace_back(p.implicitProducer, p.implicitOwnSb);
                p.pipe = myPipe;
            }
            p.any = 0;
            p.via.fill(-1);
            p.implicitProducer = int32_t(i);
            p.implicitOwnSb = own;
            if (own < 6 && p.pipe == myPipe) {
                p.any = uint8_t(1u << own);
                p.via[own] = int32_t(i);
            }
        }
    }
}

void ScoreboardWalk::finishBlock(const BasicBlock& b)
{
    // Still pending at the block's end: covered, if at all, after it, by what covers the latest
    // reader; nothing can overwrite the register after a block without successors (EXIT).
    if (m_emit && (!b.successors.empty() || b.endsInIndirect))
        for (int k = 0; k < kKeys; ++k)
            for (const auto& m : m_s.read[k].members)
                m_bld.addSbEdge(uint32_t(m.first), uint32_t(m_s.read[k].implicitProducer),
                                DepKind::ImplicitCover, Reg::fromKey(uint16_t(k)), true);
}

} // namespace

std::vector<std::unique_ptr<State>> Builder::scoreboardEntryStates()
{
    // Outstanding scoreboard state at block entries: forward may-analysis to a fixed point.
    std::vector<std::unique_ptr<State>> entry(cfg.blocks.size());
    for (auto& e : entry)
        e = std::make_unique<State>();
    std::vector<char> dirty(cfg.blocks.size(), 1);
    bool changed = true;
    for (int iter = 0; changed && iter < 50; ++iter) {
        changed = false;
        for (const auto& b : cfg.blocks) {
            if (!dirty[b.index]) continue;
            dirty[b.index] = 0;
            State out = transfer(b, *entry[b.index], false);
            for (int s : b.successors)
                if (mergeInto(*entry[s], out)) {
                    dirty[s] = 1;
                    changed = true;
                }
        }
    }
    return entry;
}

State Builder::transfer(const BasicBlock& b, const State& in, bool emit)
{
    State s = in;
    ScoreboardWalk walk(*this, s, emit);
    for (uint32_t i = b.first; i < b.end; ++i)
        walk.step(i);
    walk.finishBlock(b);
    return s;
}

// A write after a late reader without a read scoreboard keeps ptxas' distance (registerEdges) unless
// the scoreboard model found the read retired by a wait in between: then the SbProducer and
// SbConsumer edges keep reader, wait and overwrite in order in any schedule, and no distance is due.
void Builder::relaxCoveredWar()
{
    for (auto& d : edges) {
        if (d.kind != DepKind::War || !d.hasReg) continue;
        const auto& reader = listing.instructions[d.from];
        if (!reader.variableLatency || !readsSourcesLate(reader) || reader.control.rbar != kNoBarrier)
            continue;
        if (readCovered.count(uint64_t(d.to) << 32 | uint32_t(d.reg.key()))) d.latency = -1;
    }
}

} // namespace sassx::depgraph
