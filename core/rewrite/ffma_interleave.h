#pragma once
// DeepGEMM's FFMA yield/reuse interleave as a named edit (docs/legality.md, "Named edits"): in runs of
// FFMAs, some instructions that cache their Rb operand give the cache up and flip the yield bit, so the
// warp scheduler may switch warps there. Every edit the pattern makes goes through the checker, like a
// hand-made one; an edit the checker refuses is left out and reported.
#include "core/rewrite/legality.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sassx {

// What the interleave does with the reuse flags of an FFMA whose yield bit it clears.
enum class InterleaveReuse : uint8_t
{
    Clear, // DeepGEMM's: the Rb flag is cleared with the flip ("yield=0, reuse cleared")
    Keep,  // the flip alone, every flag kept ("yield=0, reuse kept"; nvdisasm prints no marks then)
};

// The pattern's names on the command line and in the GUI: "ffma-interleave" (Clear) and
// "ffma-interleave-keep-reuse" (Keep).
const char* interleavePatternName(InterleaveReuse reuse);
std::optional<InterleaveReuse> interleavePatternFromName(const std::string& name);

struct PatternEdits
{
    std::vector<Edit> edits;          // legal together, positions in the schedule given
    std::vector<std::string> refused; // the checker's reason for each edit left out
    int runs = 0;                     // FFMA runs found (8 or more in a row)
};

// The interleave over positions [first, end) of `current` (the whole kernel by default). The rule, in
// sassx's terms: a run is 8 or more FFMAs one after another in a block; in the first 9/16 of each run,
// an FFMA whose Rb reuse flag is set, whose second-to-last register operand ("the key") was not seen
// earlier in the run, or that follows an FFMA that kept its Rb flag on the same key, flips its yield bit
// and, with InterleaveReuse::Clear, clears that flag. Published as deep_gemm/jit/interleave_ffma.py
// (cited in docs/legality.md).
PatternEdits ffmaInterleaveEdits(const LegalityChecker& checker, const Schedule& current,
                                 Position first = Position(0), Position end = Position(UINT32_MAX),
                                 InterleaveReuse reuse = InterleaveReuse::Clear);

} // namespace sassx
