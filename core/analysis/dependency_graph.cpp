// DependencyGraph::build: register and memory-order edges per block with their distance bounds, the
// scoreboard model's edges (scoreboard_model.cpp), and ptxas' evidence raising the bounds.
#include "core/analysis/dependency_graph.h"

#include "core/analysis/dependency_builder.h"

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

namespace depgraph {

void Builder::addEdge(Dependency d)
{
    if (d.from == d.to) return;
    // One edge per (from, to, kind) and register: register edges of one pair can need different
    // distances (the evidence bound below is per operand slot).
    const uint64_t regKey = d.hasReg ? uint64_t(d.reg.key()) + 1 : 0;
    if (!seen.insert(uint64_t(d.from) << 40 | uint64_t(d.to) << 16 | uint64_t(d.kind) << 12 | regKey).second)
        return;
    d.distance = cycle[d.to] - cycle[d.from];
    edges.push_back(d);
}

void Builder::addSbEdge(uint32_t from, uint32_t to, DepKind kind, const Reg& reg, bool readScoreboard, int sb)
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

void Builder::measure(Dependency& d, const LatencyKey& key) const
{
    if (auto m = lat.measuredCell(key)) {
        d.latency = *m;
        d.latencyFromTable = true;
        d.measured = true;
    }
}

void Builder::registerEdges(const BasicBlock& b)
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
                    measure(d, LatencyKey::raw(latencyOpcodeKey(prod), latencyOpcodeKey(ins),
                                               operandRole(ins, r)));
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
                            measure(d,
                                    LatencyKey::war(latencyOpcodeKey(reader), latencyOpcodeKey(ins), r.file));
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
                        measure(d, LatencyKey::waw(latencyOpcodeKey(insts[d.from]), latencyOpcodeKey(ins),
                                                   r.file));
                }
                addEdge(d);
            }
            lastWriter[k] = int32_t(i);
            readers[k].clear();
        }
    }
}

namespace {

struct Access
{
    uint32_t index;
    bool write;
    int space;
    bool analysable;
    int baseKey, baseVersion, uniKey, uniVersion, descKey;
    int64_t lo, hi; // byte range relative to the base
};

} // namespace

// Memory order with transitive pruning: scanning back from a new access X stops at the first
// earlier write W that conflicts with X; everything before W is ordered before W (hence before X)
// except W's "skipped" set (accesses proven disjoint from W, or skipped by W's own predecessor),
// which X checks directly. Keeps the edge count linear on long straight-line blocks.
void Builder::memoryEdges(const BasicBlock& b)
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
                if (!(a.write || p.write) || !conflicts(a.space, p.space)) return true; // no ordering needed
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

} // namespace depgraph

namespace {

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
    depgraph::Builder bld{listing,
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
    const auto entry = bld.scoreboardEntryStates();
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
