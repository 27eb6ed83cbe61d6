#pragma once
// Ordering facts inside each basic block: register hazards, scoreboard protection (explicit and the
// implicit same-pipe coverage ptxas relies on, docs/sass-facts.md §3), memory order per state space, and the
// waits that protect values produced in other blocks.
#include "core/analysis/cfg.h"
#include "core/analysis/latency_table.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

enum class DepKind : uint8_t
{
    Raw,           // register read after write
    War,           // register write after read
    Waw,           // register write after write
    SbProducer,    // producer sets SBk → first instruction that waits on SBk
    SbConsumer,    // waiting instruction → a reader/overwriter that relies on that wait
    ImplicitCover, // producer without its own SB → later same-pipe producer whose SB covers it
    Memory,        // two accesses to one state space, at least one a write, not provably disjoint
};

const char* depKindName(DepKind k);

struct Dependency
{
    uint32_t from = 0; // instruction index; from < to in the original order
    uint32_t to = 0;
    DepKind kind = DepKind::Raw;
    bool hasReg = false;
    Reg reg;
    int8_t scoreboard = -1;      // for Sb*/ImplicitCover
    bool readScoreboard = false; // the SB protects a source register (WAR), not a result
    bool guardUse = false;       // RAW into the guard predicate
    // Facts in the original schedule:
    int distance = 0; // issue cycle(to) - issue cycle(from)
    // Required minimum distance for fixed-latency RAW, WAR and WAW edges and memory-order edges, -1 if
    // not applicable.
    int latency = -1;
    // true: `latency` is a bound (the table's, raised to the least distance ptxas left for the same
    // pair in the kernel); false: the bound is the original distance.
    bool latencyFromTable = false;
    // true: `latency` is a cell measured on the GPU for this dependency's key (LatencyTable::measuredCell;
    // bench/latency/README.md), not raised to ptxas' evidence.
    bool measured = false;

    bool hasDistanceBound() const
    {
        return latency >= 0 && (kind == DepKind::Raw || kind == DepKind::War || kind == DepKind::Waw ||
                                kind == DepKind::Memory);
    }
    // The least issue distance this edge allows in any schedule (never more than ptxas' own).
    int requiredDistance() const { return latencyFromTable ? std::min(latency, distance) : distance; }
};

class DependencyGraph
{
public:
    static DependencyGraph build(const KernelListing& listing, const ControlFlowGraph& cfg,
                                 const LatencyTable& latencies);

    const std::vector<Dependency>& edges() const { return m_edges; }
    const std::vector<uint32_t>& outgoing(uint32_t i) const { return m_out[i]; } // edge indices
    const std::vector<uint32_t>& incoming(uint32_t i) const { return m_in[i]; }

    // Instructions whose protection the analysis could not attribute to a wait inside its block
    // (a value possibly pending from another block, covered by no wait we can see): never move them.
    const std::vector<char>& unresolved() const { return m_unresolved; }
    const std::string& unresolvedReason(uint32_t i) const { return m_unresolvedReason[i]; }

    // Issue cycle of each instruction relative to its block's start (sum of the stalls before it).
    const std::vector<int>& cycles() const { return m_cycle; }

private:
    std::vector<Dependency> m_edges;
    std::vector<std::vector<uint32_t>> m_out, m_in;
    std::vector<char> m_unresolved;
    std::vector<std::string> m_unresolvedReason;
    std::vector<int> m_cycle;
};

// Issue cost of one instruction in cycles: its stall count, at least 1.
inline int issueCycles(const Instruction& ins)
{
    return ins.control.stall == 0 ? 1 : ins.control.stall;
}

// Which in-order pipe a variable-latency instruction completes on; -1 if it has no in-order pipe
// that we rely on. Same pipe ⇒ completes in issue order (the basis of implicit coverage).
int completionPipe(const Instruction& ins);

// Memory state space: 0 none, 1 global/generic, 2 shared, 3 local, 4 constant, 5 texture/surface.
int stateSpace(const Instruction& ins);

} // namespace sassx
