#pragma once
// The one distance a dependency edge must keep, and where that figure comes from: what the checker
// enforces (core/rewrite/legality.cpp), and what the dependency gutter's tooltip, `annotate` (text and
// JSON) and a refusal say. Dependency::latency is the bound before it is held to ptxas' own distance for
// the edge; a table figure above the distance ptxas left is no requirement (ptxas' order runs, so its
// distance is enough, docs/legality.md), so nothing shows that figure as one.
#include "core/analysis/dependency_graph.h"

#include <cstdint>
#include <string>

namespace sassx {

struct KernelAnalysis;

enum class LatencySource : uint8_t
{
    None,       // no distance bound: the edge only keeps an order (a scoreboard wait or another edge
                // carries the timing)
    Measured,   // a cell measured on the GPU for this pair of opcodes (resources/latency/sm_XX.json)
    Table,      // the architecture's latency table
    PtxasLeast, // the least distance ptxas left for this pair (opcodes, operand slot, register) anywhere
                // in the kernel, above the table's figure: ptxas' evidence that the table is optimistic
    Original,   // ptxas' own distance for this edge: no table figure, or one above what ptxas left
};

struct RequiredLatency
{
    int cycles = -1; // the least issue distance the edge allows; -1 with LatencySource::None
    LatencySource source = LatencySource::None;
    int bound = -1;       // Dependency::latency: the measured, table or ptxas-least figure before the cap
    int tableFigure = -1; // the table's own figure for a fixed-latency RAW pair; -1 where it has none
};

RequiredLatency requiredLatency(const KernelAnalysis& a, const Dependency& d);

// "measured", "table", "ptxas_least", "original" (annotate --json `latency_source`); "" for None.
const char* latencySourceKey(LatencySource s);
// 'M', 'L', 'P', 'O' (annotate's text listing); 0 for None.
char latencySourceMark(LatencySource s);
// Where the figure comes from, as a phrase for tooltips and refusals: "measured on the GPU for this pair
// of opcodes (…)", "the sm_90 latency table", "the least distance ptxas left for this pair in the
// kernel, above the sm_90 table's 5", "the distance ptxas left for this edge, below the sm_90 table's 6".
std::string latencySourceText(const KernelAnalysis& a, const Dependency& d, const RequiredLatency& r);

} // namespace sassx
