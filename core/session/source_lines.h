#pragma once
// A kernel's source lines with what their instructions add up to: how many there are, their warp-stall
// samples, and how many of them a variant moved or gave other control bits. Plain values, built in
// milliseconds, for `sassx-cli annotate --source` and the GUI's Source dock. The per-instruction map
// underneath is core/cubin/source_map.h.
#include "core/common/result.h"
#include "core/cubin/source_map.h"
#include "core/rewrite/schedule_diff.h"
#include "core/session/kernel_stalls.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

class KernelWorkspace;

// The kernel's source map with the text of every file that can be found: at the path the line table
// records, else beside the input (the cubin's directory, a Triton cache entry), else one directory up
// (samples/triton/captured/k.cubin next to samples/triton/k.py).
Result<SourceMap> kernelSourceMap(const KernelWorkspace& kernel);

// The directories loadSourceTexts searches for the files of an input at `inputPath`.
std::vector<std::string> sourceSearchDirs(const std::string& inputPath);

struct SourceLineSummary
{
    int file = -1; // index into SourceMap::files; -1: the instructions no source line covers
    uint32_t line = 0;
    std::vector<InstrId> instructions; // original instructions, ascending
    uint64_t samples = 0;              // stall samples on them (0 without samples)
    uint32_t moved = 0;                // of them, out of order in the variant
    uint32_t controlChanged = 0;       // of them, with other control bits in the variant
    uint32_t changed = 0;              // moved or with other control bits (each counted once)
};

// One entry per source line any instruction maps to, by file then line; a last entry (file -1) for the
// instructions without one, when there are any. `stalls` (indexed by original instruction) and `diff`
// (the original as side A, so entries' aPos are original indices) may be null.
std::vector<SourceLineSummary> summarizeSourceLines(const SourceMap& map,
                                                    const KernelStalls* stalls = nullptr,
                                                    const ScheduleDiff* diff = nullptr);

// The variant against the original of its kernel (side A the original, side B the variant).
Result<ScheduleDiff> diffAgainstOriginal(const KernelAnalysis& analysis, const Schedule& variant);

// The entry of `lines` that holds original instruction `original`, -1 when none does.
int sourceLineOf(const std::vector<SourceLineSummary>& lines, InstrId original);

} // namespace sassx
