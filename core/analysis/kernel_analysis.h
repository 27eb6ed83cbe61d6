#pragma once
// Every fact sassx derives about one kernel, computed once and shared (read-only) by the rewriter,
// the estimate backend, the CLI and the views.
#include "core/analysis/arch_model.h"
#include "core/analysis/cfg.h"
#include "core/analysis/dependency_graph.h"
#include "core/analysis/latency_table.h"
#include "core/analysis/liveness.h"
#include "core/sass/listing.h"

#include <memory>

namespace sassx {

struct InstructionFacts
{
    int block = 0;
    int cycle = 0;     // static issue cycle inside its block
    int liveGpr = 0;   // live 32-bit registers (nvdisasm -plr's '#')
    bool wall = false; // nothing may cross it (barriers, control flow, opaque, unpatchable offsets)
    std::string wallReason;
};

struct KernelAnalysis
{
    KernelListing listing;
    ControlFlowGraph cfg;
    std::shared_ptr<const ArchModel> arch; // the listing's architecture: its rules and their origins
    LatencyTable latencies; // the figures the dependencies took: arch->latencies(), or a test's own
    DependencyGraph deps;
    Liveness liveness;
    std::vector<InstructionFacts> facts;

    static std::shared_ptr<const KernelAnalysis> build(KernelListing listing, LatencyTable latencies);
    // With the architecture's latency table (ArchModel::forSm; an empty one if none exists: every pair
    // then keeps its original distance).
    static std::shared_ptr<const KernelAnalysis> build(KernelListing listing);
};

// Why an instruction is a wall, or empty if it is not (see issue: walls nothing crosses).
std::string wallReason(const Instruction& ins);

} // namespace sassx
