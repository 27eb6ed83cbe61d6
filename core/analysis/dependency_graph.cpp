#include "core/analysis/dependency_graph.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>

namespace sassx {

const char* depKindName(DepKind k)
{
    switch (k) {
    case DepKind::Raw:
        return "raw";
    case DepKind::War:
        return "war";
    case DepKind::Waw:
        return "waw";
    case DepKind::SbProducer:
        return "sb_producer";
    case DepKind::SbConsumer:
        return "sb_consumer";
    case DepKind::ImplicitCover:
        return "implicit_cover";
    case DepKind::Memory:
        return "memory";
    }
    return "?";
}

int completionPipe(const Instruction& ins)
{
    switch (ins.cls) {
    case InstrClass::LoadShared:
    case InstrClass::StoreShared:
        return 1; // MIO shared-memory pipe
    case InstrClass::LoadGlobal:
    case InstrClass::StoreGlobal:
    case InstrClass::LoadLocal:
    case InstrClass::StoreLocal:
    case InstrClass::Atomic:
        return 2; // LSU global path
    case InstrClass::AsyncCopy:
        return 3;
    case InstrClass::LoadConst:
        return 4;
    case InstrClass::Texture:
        return 5;
    case InstrClass::Tensor:
        return 6;
    case InstrClass::Mufu:
    case InstrClass::Conversion:
        return 7;
    case InstrClass::SpecialReg:
        return 8;
    case InstrClass::Shuffle:
        return 9;
    default:
        return -1;
    }
}

int stateSpace(const Instruction& ins)
{
    switch (ins.cls) {
    case InstrClass::LoadGlobal:
    case InstrClass::StoreGlobal:
        return ins.op == Op::LD || ins.op == Op::ST ? 6 : 1; // 6 = generic
    case InstrClass::LoadShared:
    case InstrClass::StoreShared:
        return 2;
    case InstrClass::LoadLocal:
    case InstrClass::StoreLocal:
        return 3;
    case InstrClass::Atomic:
        return ins.op == Op::ATOMS ? 2 : (ins.op == Op::ATOM ? 6 : 1);
    case InstrClass::AsyncCopy:
        return 7; // global → shared
    case InstrClass::Texture:
        return 5;
    default:
        return 0;
    }
}

namespace {

constexpr int kNoPipe = -1;
constexpr int kUnknownPipe = 99;
constexpr int kKeys = Reg::kKeyCount;

// What is outstanding for one register: a write not yet landed (RAW/WAW hazards) or a source not yet
// consumed by an asynchronous reader (WAR hazards). Two parts:
//  - explicit: producers with their own SB; *every* one of those SBs must be waited on (a wait on SB2
//    says nothing about an access on SB5: four LDGSTS reading one address register on SB2..SB5 need all
//    four waits before it is overwritten);
//  - implicit: producers without an SB, retired by a wait on the SB of a later producer of the same
//    in-order pipe (`any` holds those SBs; a wait on any one of them retires the part).
struct Pending
{
    uint8_t all = 0;
    uint8_t any = 0;
    int16_t pipe = kNoPipe;        // pipe of the implicit part; kNoPipe: there is none
    int32_t producer = -1;         // latest in-block producer (for messages), -1 if from another block
    int32_t implicitProducer = -1; // latest in-block producer of the implicit part
    std::array<int32_t, 6> via{-1, -1, -1, -1, -1, -1}; // SB b set by this in-block producer covers it
    uint8_t implicitOwnSb = kNoBarrier; // implicitProducer's own cover (ownReadCover), if it has one
    // Earlier in-block implicit readers of the part (index, own cover SB or kNoBarrier): each is retired
    // by the wait on its own SB, or by whatever retires the part while it stays before that SB's setter.
    // Their ordering edges are added only once that is known. Tracked only when edges are emitted.
    std::vector<std::pair<int32_t, uint8_t>> members;

    bool active() const { return all != 0 || pipe != kNoPipe; }
    uint8_t sbs() const { return uint8_t(all | (pipe != kNoPipe ? any : 0)); }
    bool operator==(const Pending& o) const { return all == o.all && any == o.any && pipe == o.pipe; }
};

struct State
{
    std::array<Pending, kKeys> write;
    std::array<Pending, kKeys> read;
};

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

struct Builder
{
    const KernelListing& listing;
    const ControlFlowGraph& cfg;
    const LatencyTable& lat;
    std::vector<Dependency> edges;
    std::vector<char> unresolved;
    std::vector<std::string> reasons;
    std::vector<int> cycle;
    std::unordered_set<uint64_t> seen;
    // (overwriter << 32 | register key): every late reader of the register since its last definition
    // was retired by an in-block scoreboard wait before the overwrite (SbConsumer edges keep it so).
    std::unordered_set<uint64_t> readCovered;

    void addEdge(Dependency d)
    {
        if (d.from == d.to) return;
        // One edge per (from, to, kind) and register: register edges of one pair can need different
        // distances (the evidence bound below is per operand slot).
        const uint64_t regKey = d.hasReg ? uint64_t(d.reg.key()) + 1 : 0;
        if (!seen.insert(uint64_t(d.from) << 40 | uint64_t(d.to) << 16 | uint64_t(d.kind) << 12 | regKey)
                 .second)
            return;
        d.distance = cycle[d.to] - cycle[d.from];
        edges.push_back(d);
    }

    // A scoreboard-model edge about one register.
    void addSbEdge(uint32_t from, uint32_t to, DepKind kind, const Reg& reg, bool readScoreboard, int sb = -1)
    {
        Dependency d;
        d.from = from;
        d.to = to;
        d.kind = kind;
        d.hasReg = true;
        d.reg = reg;
        d.readScoreboard = readScoreboard;
        d.scoreboard = int8_t(sb);
        addEdge(d);
    }

    // Runs the scoreboard model over one block starting from `in`; returns the exit state. With
    // emit, records edges and unresolved instructions.
    State transfer(const BasicBlock& b, const State& in, bool emit)
    {
        State s = in;
        const auto& insts = listing.instructions;
        // Coverers: the in-block waits that retired (part of) a register's pending state since its last
        // definition; a consumer must stay after every one of them.
        std::vector<std::vector<int32_t>> wCover(emit ? kKeys : 0), rCover(emit ? kKeys : 0);
        std::array<std::vector<int32_t>, 6> sbProducers; // in-block producers pending per SB
        for (uint32_t i = b.first; i < b.end; ++i) {
            const auto& ins = insts[i];
            uint8_t mask = ins.control.wait;
            if (ins.op == Op::DEPBAR) {
                // DEPBAR.LE SBn, 0 drains SBn; a non-zero count retires an unknown subset: no credit.
                if (ins.operands.size() >= 2 && ins.operands[0].text.starts_with("SB") &&
                    ins.operands[1].kind == Operand::Kind::Immediate && ins.operands[1].intValue == 0)
                    mask |= uint8_t(1u << (ins.operands[0].text[2] - '0'));
            }
            if (mask) {
                for (int sb = 0; sb < 6; ++sb) {
                    if (!((mask >> sb) & 1)) continue;
                    if (emit)
                        for (int32_t p : sbProducers[sb]) {
                            Dependency d;
                            d.from = uint32_t(p);
                            d.to = i;
                            d.kind = DepKind::SbProducer;
                            d.scoreboard = int8_t(sb);
                            d.readScoreboard = insts[p].control.wbar != sb;
                            addEdge(d);
                        }
                    sbProducers[sb].clear();
                }
                auto retire = [&](std::array<Pending, kKeys>& pend, std::vector<std::vector<int32_t>>& cover,
                                  bool isRead) {
                    for (int k = 0; k < kKeys; ++k) {
                        Pending& p = pend[k];
                        // Members whose own SB this waits on are done; the wait covers them.
                        const size_t before = p.members.size();
                        std::erase_if(p.members, [&](const auto& m) {
                            return m.second < 6 && ((mask >> m.second) & 1);
                        });
                        const bool memberDone = p.members.size() != before;
                        const bool hitAll = (p.all & mask) != 0;
                        const bool hitAny = p.pipe != kNoPipe && (p.any & mask) != 0;
                        if (!hitAll && !hitAny) {
                            if (emit && memberDone) cover[k].push_back(int32_t(i));
                            continue;
                        }
                        if (emit && hitAny) {
                            // Implicit: the producers relied on the later same-pipe producer whose SB this
                            // is.
                            for (int sb = 0; sb < 6; ++sb) {
                                if (!((mask & p.any) >> sb & 1) || p.via[sb] < 0) continue;
                                const Reg reg = Reg::fromKey(uint16_t(k));
                                if (p.implicitProducer >= 0)
                                    addSbEdge(uint32_t(p.implicitProducer), uint32_t(p.via[sb]),
                                              DepKind::ImplicitCover, reg, isRead, sb);
                                for (const auto& m : p.members)
                                    addSbEdge(uint32_t(m.first), uint32_t(p.via[sb]), DepKind::ImplicitCover,
                                              reg, isRead, sb);
                            }
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
                        if (emit) cover[k].push_back(int32_t(i));
                    }
                };
                retire(s.write, wCover, false);
                retire(s.read, rCover, true);
            }

            // Hazards of this instruction against what is still outstanding.
            auto check = [&](const Reg& r, bool isDef) {
                int k = r.key();
                auto consider = [&](Pending& p, std::vector<std::vector<int32_t>>& cover, bool isRead) {
                    if (isRead && p.all == 0 && p.pipe != kNoPipe && p.pipe != kUnknownPipe &&
                        p.pipe == completionPipe(ins) && ins.variableLatency && readsSourcesLate(ins)) {
                        // Overwritten by a later access of the same in-order pipe (an LDG loading into
                        // the address register an earlier LDG reads): its result lands after it read its
                        // own sources, so after the earlier readers of the pipe read theirs, while they
                        // stay earlier (the assumption behind implicit coverage).
                        if (emit) {
                            if (p.implicitProducer >= 0)
                                addSbEdge(uint32_t(p.implicitProducer), i, DepKind::ImplicitCover, r, true);
                            for (const auto& m : p.members)
                                addSbEdge(uint32_t(m.first), i, DepKind::ImplicitCover, r, true);
                            readCovered.insert(uint64_t(i) << 32 | uint32_t(k));
                        }
                        return;
                    }
                    if (p.active()) {
                        if (emit && !unresolved[i]) {
                            unresolved[i] = 1;
                            std::string why = r.name() + (isRead ? " may still be read asynchronously by "
                                                                 : " may still be written by ");
                            why += p.producer >= 0
                                       ? listing.instructions[p.producer].opcode + " in this block"
                                       : std::string("an instruction in another block");
                            if (p.sbs()) {
                                why += " (SB";
                                for (int sb = 0; sb < 6; ++sb)
                                    if ((p.sbs() >> sb) & 1)
                                        why += (why.back() == 'B' ? "" : ",") + std::to_string(sb);
                                why += " not waited on here)";
                            } else {
                                why += " (no scoreboard; no covering wait found)";
                            }
                            reasons[i] = why;
                        }
                        return;
                    }
                    if (!emit) return;
                    if (isRead && !cover[k].empty()) readCovered.insert(uint64_t(i) << 32 | uint32_t(k));
                    for (int32_t w : cover[k])
                        if (uint32_t(w) != i) addSbEdge(uint32_t(w), i, DepKind::SbConsumer, r, isRead);
                };
                consider(s.write[k], wCover, false);
                if (isDef) consider(s.read[k], rCover, true);
            };
            for (const auto& r : ins.uses)
                check(r, false);
            for (const auto& r : ins.defs)
                check(r, true);

            // New outstanding state.
            const int pipe = completionPipe(ins);
            if (ins.variableLatency) {
                // A later same-pipe producer's SB also covers earlier implicit entries of that pipe.
                auto convert = [&](std::array<Pending, kKeys>& pend, uint8_t sb) {
                    if (sb >= 6 || pipe < 0) return;
                    for (auto& p : pend)
                        if (p.pipe == pipe) {
                            p.any |= uint8_t(1u << sb);
                            if (p.via[sb] < 0) p.via[sb] = int32_t(i);
                        }
                };
                convert(s.write, ins.control.wbar);
                convert(s.read, ins.control.rbar);
                if (ins.control.wbar < 6) sbProducers[ins.control.wbar].push_back(int32_t(i));
                if (ins.control.rbar < 6 && ins.control.rbar != ins.control.wbar)
                    sbProducers[ins.control.rbar].push_back(int32_t(i));
            }
            for (const auto& r : ins.defs) {
                int k = r.key();
                if (emit) {
                    wCover[k].clear();
                    rCover[k].clear();
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
                s.write[k] = p;
                s.read[k] = Pending{};
            }
            if (ins.variableLatency && (ins.control.rbar < 6 || readsSourcesLate(ins))) {
                const uint8_t own = ownReadCover(ins);
                for (const auto& r : ins.uses) {
                    if (ins.guard && r == *ins.guard) continue;
                    int k = r.key();
                    Pending& p = s.read[k];
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
                            if (emit && p.implicitProducer >= 0)
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
        }
        // Still pending at the block's end: covered, if at all, after it, by what covers the latest
        // reader; nothing can overwrite the register after a block without successors (EXIT).
        if (emit && (!b.successors.empty() || b.endsInIndirect))
            for (int k = 0; k < kKeys; ++k)
                for (const auto& m : s.read[k].members)
                    addSbEdge(uint32_t(m.first), uint32_t(s.read[k].implicitProducer), DepKind::ImplicitCover,
                              Reg::fromKey(uint16_t(k)), true);
        return s;
    }

    // A write after a late reader without a read scoreboard keeps ptxas' distance (registerEdges) unless
    // the scoreboard model found the read retired by a wait in between: then the SbProducer and
    // SbConsumer edges keep reader, wait and overwrite in order in any schedule, and no distance is due.
    void relaxCoveredWar()
    {
        for (auto& d : edges) {
            if (d.kind != DepKind::War || !d.hasReg) continue;
            const auto& reader = listing.instructions[d.from];
            if (!reader.variableLatency || !readsSourcesLate(reader) || reader.control.rbar != kNoBarrier)
                continue;
            if (readCovered.count(uint64_t(d.to) << 32 | uint32_t(d.reg.key()))) d.latency = -1;
        }
    }

    // A measured cell for the edge's key replaces the table and ptxas' evidence (applyPtxasEvidence
    // leaves measured edges alone).
    void measure(Dependency& d, const std::string& key) const
    {
        if (auto m = lat.measuredCell(key)) {
            d.latency = *m;
            d.latencyFromTable = true;
            d.measured = true;
        }
    }

    void registerEdges(const BasicBlock& b)
    {
        const auto& insts = listing.instructions;
        std::array<int32_t, kKeys> lastWriter;
        lastWriter.fill(-1);
        std::array<std::vector<int32_t>, kKeys> readers;
        std::vector<int> touched;
        for (uint32_t i = b.first; i < b.end; ++i) {
            const auto& ins = insts[i];
            for (const auto& r : ins.uses) {
                int k = r.key();
                if (lastWriter[k] >= 0) {
                    Dependency d;
                    d.from = uint32_t(lastWriter[k]);
                    d.to = i;
                    d.kind = DepKind::Raw;
                    d.hasReg = true;
                    d.reg = r;
                    d.guardUse = ins.guard && *ins.guard == r;
                    const auto& prod = insts[d.from];
                    if (!prod.variableLatency) {
                        auto l = lat.rawLatency(prod, ins, r, d.guardUse);
                        d.latencyFromTable = l.has_value();
                        d.latency = l ? *l : cycle[i] - cycle[d.from];
                        measure(d, "RAW|" + latencyOpcodeKey(prod) + "|" + latencyOpcodeKey(ins) + "|" +
                                       operandKind(ins, r));
                    } else if (prod.control.wbar == kNoBarrier) {
                        // A "variable-latency" instruction ptxas gave no scoreboard may be fixed latency
                        // on this arch (MUFU.EX2 on sm_90 is): keep ptxas' distance as well as any
                        // implicit coverage the scoreboard model finds.
                        d.latency = cycle[i] - cycle[d.from];
                    }
                    addEdge(d);
                }
                readers[k].push_back(int32_t(i));
            }
            for (const auto& r : ins.defs) {
                int k = r.key();
                for (int32_t rd : readers[k])
                    if (uint32_t(rd) != i) {
                        Dependency d;
                        d.from = uint32_t(rd);
                        d.to = i;
                        d.kind = DepKind::War;
                        d.hasReg = true;
                        d.reg = r;
                        const auto& reader = insts[d.from];
                        if (reader.variableLatency && reader.control.rbar == kNoBarrier) {
                            // It may read late: keep ptxas' distance. Loads too: the address of an LDG
                            // without a read scoreboard, overwritten 14 cycles after it instead of ptxas'
                            // 38 (behind seven more LDGs), faulted on an H100 (docs/legality.md).
                            d.latency = cycle[i] - cycle[d.from];
                        } else if (!reader.variableLatency || reader.control.rbar == kNoBarrier) {
                            // Operands are not all read at issue (a uniform UIADD3 read UR5 too late for a
                            // UMOV issued 1 cycle after it, on an H200): bounded by ptxas' evidence below,
                            // or by a measured cell.
                            d.latency = 0;
                            d.latencyFromTable = true;
                            if (!reader.variableLatency && !ins.variableLatency)
                                measure(d, "WAR|" + latencyOpcodeKey(reader) + "|" + latencyOpcodeKey(ins) +
                                               "|" + regFileKey(r));
                        }
                        addEdge(d);
                    }
                if (lastWriter[k] >= 0) {
                    Dependency d;
                    d.from = uint32_t(lastWriter[k]);
                    d.to = i;
                    d.kind = DepKind::Waw;
                    d.hasReg = true;
                    d.reg = r;
                    if (!readers[k].empty()) {
                        // Implied by other edges: an instruction m in (from, i] reads the value `from`
                        // wrote, so that write is visible when m reads (RAW from → m, checked), and i's
                        // write comes after m's read (WAR m → i, checked; or m is i). No distance of its
                        // own: the edge only keeps the order.
                    } else if (!insts[d.from].variableLatency) {
                        // Pipes of different depths: the later write could land first.
                        d.latency = 0;
                        d.latencyFromTable = true;
                        if (!ins.variableLatency)
                            measure(d, "WAW|" + latencyOpcodeKey(insts[d.from]) + "|" +
                                           latencyOpcodeKey(ins) + "|" + regFileKey(r));
                    }
                    addEdge(d);
                }
                lastWriter[k] = int32_t(i);
                readers[k].clear();
            }
        }
    }

    struct Access
    {
        uint32_t index;
        bool write;
        int space;
        bool analysable;
        int baseKey, baseVersion, uniKey, uniVersion, descKey;
        int64_t lo, hi; // byte range relative to the base
    };

    // Memory order with transitive pruning: scanning back from a new access X stops at the first
    // earlier write W that conflicts with X; everything before W is ordered before W (hence before X)
    // except W's "skipped" set (accesses proven disjoint from W, or skipped by W's own predecessor),
    // which X checks directly. Keeps the edge count linear on long straight-line blocks.
    void memoryEdges(const BasicBlock& b)
    {
        const auto& insts = listing.instructions;
        std::array<int32_t, kKeys> version;
        version.fill(-1);
        std::vector<Access> accesses;
        std::vector<std::vector<uint32_t>> skipped; // per access: indices into accesses
        std::vector<uint32_t> writes;               // indices into accesses
        auto conflicts = [](int x, int y) {
            if (x == y) return true;
            if (x == 6 || y == 6) // generic aliases global, shared and local
                return x != 5 && y != 5;
            if (x == 7 || y == 7) // async copy: reads global, writes shared
                return x == 1 || y == 1 || x == 2 || y == 2;
            return false;
        };
        auto disjoint = [](const Access& a, const Access& p) {
            return a.analysable && p.analysable && a.space == p.space && a.baseKey == p.baseKey &&
                   a.baseVersion == p.baseVersion && a.uniKey == p.uniKey && a.uniVersion == p.uniVersion &&
                   a.descKey == p.descKey && (a.hi <= p.lo || p.hi <= a.lo);
        };
        for (uint32_t i = b.first; i < b.end; ++i) {
            const auto& ins = insts[i];
            int space = stateSpace(ins);
            if (space != 0 && space != 4) {
                const Operand* mem = nullptr;
                for (const auto& op : ins.operands)
                    if (op.kind == Operand::Kind::Memory) {
                        mem = &op;
                        break;
                    }
                Access a{};
                a.index = i;
                a.space = space;
                a.write = ins.writesMemory();
                a.analysable = mem != nullptr && ins.cls != InstrClass::Atomic;
                if (mem) {
                    a.baseKey = mem->memBase ? mem->memBase->key() : -1;
                    a.baseVersion = a.baseKey >= 0 ? version[a.baseKey] : -2;
                    a.uniKey = mem->memUniform ? mem->memUniform->key() : -1;
                    a.uniVersion = a.uniKey >= 0 ? version[a.uniKey] : -2;
                    a.descKey = mem->memDescriptor ? mem->memDescriptor->key() : -1;
                    a.lo = mem->memOffset;
                    int bytes = std::max(1, ins.memoryBits / 8);
                    if (ins.op == Op::LDSM || ins.op == Op::STSM)
                        bytes = 16; // each thread supplies one 16-byte row address
                    a.hi = a.lo + bytes;
                }
                std::vector<uint32_t> mySkipped;
                auto consider = [&](uint32_t k) -> bool { // true: ordered (edge added or read-read)
                    const Access& p = accesses[k];
                    if (!(a.write || p.write) || !conflicts(a.space, p.space))
                        return true; // no ordering needed
                    if (disjoint(a, p)) {
                        mySkipped.push_back(k);
                        return false;
                    }
                    Dependency d;
                    d.from = p.index;
                    d.to = i;
                    d.kind = DepKind::Memory;
                    // Order alone is not enough: an LDSM moved from 28 to 9 cycles before a conflicting STS
                    // (a BAR.SYNC between them) gave wrong attention output on an H200; memory accesses
                    // complete after issue. Keep ptxas' distance (additive along the pruned chains below,
                    // so pruned pairs keep theirs too).
                    d.latency = cycle[i] - cycle[p.index];
                    addEdge(d);
                    return true;
                };
                int32_t cover = -1;
                if (a.write) {
                    for (size_t k = accesses.size(); k-- > 0;) {
                        bool ordered = consider(uint32_t(k));
                        if (ordered && accesses[k].write && conflicts(a.space, accesses[k].space)) {
                            cover = int32_t(k);
                            break;
                        }
                    }
                } else {
                    for (size_t w = writes.size(); w-- > 0;) {
                        uint32_t k = writes[w];
                        if (consider(k) && conflicts(a.space, accesses[k].space)) {
                            cover = int32_t(k);
                            break;
                        }
                    }
                }
                if (cover >= 0)
                    for (uint32_t k : skipped[cover])
                        consider(k);
                if (a.write) writes.push_back(uint32_t(accesses.size()));
                accesses.push_back(a);
                skipped.push_back(std::move(mySkipped));
            }
            for (const auto& r : ins.defs)
                version[r.key()] = int32_t(i);
        }
    }
};

// The table's latencies are per class and proved too optimistic on an H200 (FMUL→FMNMX 4 cycles apart
// gave wrong results: the ALU and FMA pipes forward to each other more slowly, and ptxas never placed
// them closer than 5). ptxas knows the real latency of every pair it emits, so the least distance it left
// between the same producer opcode, consumer opcode, consumer operand and producer result register
// anywhere in this kernel is an upper bound of the truth that is never below it: the bound becomes the
// larger of the table's value and that evidence (still never above the edge's own distance).
void applyPtxasEvidence(const KernelListing& listing, std::vector<Dependency>& edges)
{
    const auto& insts = listing.instructions;
    auto keyOf = [&](const Dependency& d) {
        const auto& prod = insts[d.from];
        const auto& cons = insts[d.to];
        // RAW: producer's result → consumer's operand; WAR: reader's operand → writer's result; WAW:
        // result → result.
        const auto& fromRegs = d.kind == DepKind::War ? prod.uses : prod.defs;
        const auto& toRegs = d.kind == DepKind::Raw ? cons.uses : cons.defs;
        size_t slot = 0, def = 0;
        while (slot < toRegs.size() && !(toRegs[slot] == d.reg))
            ++slot;
        while (def < fromRegs.size() && !(fromRegs[def] == d.reg))
            ++def;
        return std::string(depKindName(d.kind)) + '|' + prod.opcode + '|' + cons.opcode + '|' +
               std::to_string(slot) + '|' + std::to_string(def) + (d.guardUse ? "|guard" : "");
    };
    std::map<std::string, int> least;
    std::vector<std::pair<size_t, std::string>> keyed;
    for (size_t e = 0; e < edges.size(); ++e) {
        const auto& d = edges[e];
        if (!d.hasDistanceBound() || !d.latencyFromTable || !d.hasReg || d.measured) continue;
        auto key = keyOf(d);
        auto [it, fresh] = least.emplace(key, d.distance);
        if (!fresh) it->second = std::min(it->second, d.distance);
        keyed.emplace_back(e, std::move(key));
    }
    for (const auto& [e, key] : keyed) {
        auto& d = edges[e];
        d.latency = std::max(d.latency, least[key]);
    }
}

} // namespace

DependencyGraph DependencyGraph::build(const KernelListing& listing, const ControlFlowGraph& cfg,
                                       const LatencyTable& latencies)
{
    const size_t n = listing.instructions.size();
    Builder bld{listing,
                cfg,
                latencies,
                {},
                std::vector<char>(n, 0),
                std::vector<std::string>(n),
                std::vector<int>(n, 0),
                {},
                {}};
    for (const auto& b : cfg.blocks) {
        int c = 0;
        for (uint32_t i = b.first; i < b.end; ++i) {
            bld.cycle[i] = c;
            c += issueCycles(listing.instructions[i]);
        }
    }
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
            State out = bld.transfer(b, *entry[b.index], false);
            for (int s : b.successors)
                if (mergeInto(*entry[s], out)) {
                    dirty[s] = 1;
                    changed = true;
                }
        }
    }
    for (const auto& b : cfg.blocks) {
        bld.registerEdges(b);
        bld.transfer(b, *entry[b.index], true);
        bld.memoryEdges(b);
    }

    bld.relaxCoveredWar();
    applyPtxasEvidence(listing, bld.edges);

    DependencyGraph g;
    g.m_edges = std::move(bld.edges);
    std::sort(g.m_edges.begin(), g.m_edges.end(), [](const Dependency& a, const Dependency& b) {
        // Total on register too: the listing's dependency notes stay put when edges are added in
        // another order.
        const int ra = a.hasReg ? a.reg.key() : -1, rb = b.hasReg ? b.reg.key() : -1;
        return std::tie(a.from, a.to, a.kind, ra) < std::tie(b.from, b.to, b.kind, rb);
    });
    g.m_out.assign(n, {});
    g.m_in.assign(n, {});
    for (uint32_t e = 0; e < g.m_edges.size(); ++e) {
        g.m_out[g.m_edges[e].from].push_back(e);
        g.m_in[g.m_edges[e].to].push_back(e);
    }
    g.m_unresolved = std::move(bld.unresolved);
    g.m_unresolvedReason = std::move(bld.reasons);
    g.m_cycle = std::move(bld.cycle);
    return g;
}

} // namespace sassx
