#pragma once
// Internal to sassx_analysis: what DependencyGraph::build (dependency_graph.cpp) and the scoreboard model
// (scoreboard_model.cpp) share while they collect the graph's edges.
#include "core/analysis/dependency_graph.h"

#include <array>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace sassx::depgraph {

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

    // dependency_graph.cpp
    void addEdge(Dependency d);
    // A scoreboard-model edge about one register.
    void addSbEdge(uint32_t from, uint32_t to, DepKind kind, const Reg& reg, bool readScoreboard,
                   int sb = -1);
    // A measured cell for the edge's key replaces the table and ptxas' evidence (applyPtxasEvidence
    // leaves measured edges alone).
    void measure(Dependency& d, const LatencyKey& key) const;
    void registerEdges(const BasicBlock& b);
    void memoryEdges(const BasicBlock& b);

    // scoreboard_model.cpp
    // Outstanding scoreboard state at each block's entry, indexed by block.
    std::vector<std::unique_ptr<State>> scoreboardEntryStates();
    // Runs the scoreboard model over one block starting from `in`; returns the exit state. With
    // emit, records edges and unresolved instructions.
    State transfer(const BasicBlock& b, const State& in, bool emit);
    void relaxCoveredWar();
};

} // namespace sassx::depgraph
