#include "core/analysis/required_latency.h"

#include "core/analysis/kernel_analysis.h"

namespace sassx {
namespace {

// A table whose figures carry a label (one derived from a published table) is named with it, so no
// figure of it reads as a measurement.
std::string tableName(const KernelAnalysis& a)
{
    const std::string name =
        a.latencies.arch().empty() ? std::string("latency table") : a.latencies.arch() + " latency table";
    return a.latencies.label().empty() ? name : name + " (" + a.latencies.label() + ")";
}

} // namespace

RequiredLatency requiredLatency(const KernelAnalysis& a, const Dependency& d)
{
    RequiredLatency r;
    if (!d.hasDistanceBound()) return r;
    // The checker's figure (LegalityChecker::checkDependencyEdges): never above ptxas' own distance.
    r.cycles = d.requiredDistance();
    r.bound = d.latency;
    const auto& insts = a.listing.instructions;
    if (d.kind == DepKind::Raw && d.hasReg && d.from < insts.size() && d.to < insts.size())
        if (auto t = a.latencies.rawLatency(insts[d.from], insts[d.to], d.reg, d.guardUse))
            r.tableFigure = *t;
    if (!d.latencyFromTable || d.latency > d.distance)
        r.source = LatencySource::Original;
    else if (d.measured)
        r.source = LatencySource::Measured;
    else if (r.tableFigure >= 0 && d.latency == r.tableFigure)
        r.source = LatencySource::Table;
    else
        r.source = LatencySource::PtxasLeast;
    return r;
}

const char* latencySourceKey(LatencySource s)
{
    switch (s) {
    case LatencySource::None:
        return "";
    case LatencySource::Measured:
        return "measured";
    case LatencySource::Table:
        return "table";
    case LatencySource::PtxasLeast:
        return "ptxas_least";
    case LatencySource::Original:
        return "original";
    }
    return "";
}

char latencySourceMark(LatencySource s)
{
    switch (s) {
    case LatencySource::None:
        return 0;
    case LatencySource::Measured:
        return 'M';
    case LatencySource::Table:
        return 'L';
    case LatencySource::PtxasLeast:
        return 'P';
    case LatencySource::Original:
        return 'O';
    }
    return 0;
}

std::string latencySourceText(const KernelAnalysis& a, const Dependency& d, const RequiredLatency& r)
{
    switch (r.source) {
    case LatencySource::None:
        return "no distance of its own: only the order is kept";
    case LatencySource::Measured:
        return "measured on the GPU for this pair of opcodes: " + a.latencies.measuredSource();
    case LatencySource::Table:
        return "the " + tableName(a);
    case LatencySource::PtxasLeast:
        if (r.tableFigure >= 0)
            return "the least distance ptxas left for this pair in the kernel, above the " + tableName(a) +
                   "'s " + std::to_string(r.tableFigure);
        return "the least distance ptxas left between these two opcodes in the kernel";
    case LatencySource::Original:
        break;
    }
    // ptxas' own distance: what it ran with, and why no shorter figure applies.
    if (d.latencyFromTable && d.latency > d.distance) {
        if (d.measured) return "the distance ptxas left, below the bound measured on the GPU";
        // The least-distance raise never exceeds the edge's own distance (the edge is one of the pairs), so
        // only the table's figure can lie above it.
        return "the distance ptxas left, below the " + tableName(a) + "'s " + std::to_string(d.latency) +
               ": ptxas' own order runs with it";
    }
    if (d.kind == DepKind::Memory)
        return "the distance ptxas left: the two may touch the same memory and complete after issue";
    const auto& insts = a.listing.instructions;
    if (d.kind == DepKind::Raw && d.from < insts.size() && !insts[d.from].variableLatency)
        return "the distance ptxas left; the table does not know this pair";
    // A variable-latency producer without a scoreboard, or a write after a reader that may read late.
    return "the distance ptxas left: nothing proves a shorter one safe";
}

} // namespace sassx
