#pragma once
// One node of a session's variant tree: a name, where it came from, the full edit list from the
// original, and the figures last obtained for it together with their source. Figures are dropped when
// the edits change, so a figure on screen always belongs to the schedule next to it. Re-exports the one
// Speedup type (core/eval/speedup.h), the written form of every speed-up the panels and the CLI show.
#include "core/eval/eval_result.h"
#include "core/eval/speedup.h"
#include "core/eval/stall_profile.h"
#include "core/rewrite/variant.h"

#include <optional>
#include <string>
#include <vector>

namespace sassx {

struct VariantFigures
{
    eval::EvalResult result; // correctness, timing ratio with interval, metrics; each with its source
    std::string when;        // ISO 8601, when the evaluator answered

    // "estimate" or "measured on NVIDIA H100" (never an unlabelled number).
    std::string sourceLabel() const;
    // The variant's speed-up over the original; none without timing figures.
    std::optional<eval::Speedup> speedup() const { return eval::speedupOf(result); }
};

// Where a variant imported from another cubin came from (Variant ▸ Import Cubin as Variant…) and what
// the checker refuses among its differences from the original, one "<what>: refused: <reason>" line
// each (CheckerVerdict::refusalLines). Kept with the record, since a refused one is measured all the
// same: its figures must never read as those of a checked schedule.
struct VariantImport
{
    std::string path;
    std::vector<std::string> refusals; // empty: the checker accepts every difference

    bool checkedLegal() const { return refusals.empty(); }
    bool operator==(const VariantImport&) const = default;
};

struct VariantRecord
{
    int id = 0;      // stable for the life of the session (and in the session file)
    int parent = -1; // -1 for the original
    std::string name;
    std::vector<Edit> edits; // from the original, in order (a child repeats its parent's edits first)
    std::optional<VariantFigures> figures;
    // Warp-stall samples of one launch of this schedule (GPU only; dropped with the figures).
    std::optional<eval::StallProfile> stalls;
    std::optional<VariantImport> imported; // set for a variant imported from another cubin

    bool isOriginal() const { return parent < 0; }
};

// Label of one figure source: "estimate", "measured on GPU", "cupti on GPU", "ncu on GPU".
std::string figureSourceLabel(const eval::FigureSource& source);

} // namespace sassx
