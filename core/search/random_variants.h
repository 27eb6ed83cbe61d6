#pragma once
// Random schedules: legal ones (every edit checked) for testing the checker and writer on a GPU and for
// seeding searches, and ones built by SIP's rule (swap a memory instruction with a neighbour, no checks)
// as the baseline sassx's legality model is compared against.
#include "core/rewrite/legality.h"

#include <random>

namespace sassx {

struct RandomVariantOptions
{
    int minEdits = 1;
    int maxEdits = 30;
    bool memoryOnly = false;              // moves of memory instructions only (else any instruction)
    double controlEditProbability = 0.25; // share of edits that change a stall or the yield bit
    bool onlyRaiseStalls = false;         // control experiment: only stall increases, no moves
    // Yield rule (variants --rule yield): between minEdits and maxEdits legal yield flips of distinct
    // instructions on the given schedule (ptxas' own order), no moves and no other edits.
    bool yieldOnly = false;
    // With yieldOnly (variants --rule control): reuse edits (one flag cleared or set) are drawn too,
    // from LegalityChecker::legalControlEdits(schedule, ControlSpace::YieldAndReuse).
    bool withReuse = false;
};

// Applies between minEdits and maxEdits random legal edits; returns the edits actually applied (an
// edit whose every candidate is illegal is skipped, so fewer may result) and the schedule. With
// options.yieldOnly it is randomYieldFlips.
std::vector<Edit> randomLegalEdits(const LegalityChecker& checker, std::mt19937_64& rng,
                                   const RandomVariantOptions& options, Schedule& schedule);

// Between minEdits and maxEdits yield flips drawn from LegalityChecker::legalControlEdits(schedule,
// ControlSpace::Yield), each on a different instruction and each confirmed by a full check; fewer if the
// kernel offers fewer. A flip to Y0 of an instruction with reuse flags clears them in the same edit.
// Returns them in the order drawn.
std::vector<Edit> randomYieldFlips(const LegalityChecker& checker, std::mt19937_64& rng,
                                   const RandomVariantOptions& options, Schedule& schedule);

// SIP's move rule: pick a random LDG/STG/LDS/LDSM/LDGSTS and swap it with its upper or lower
// neighbour, refusing only swaps across a basic-block boundary. No legality checks at all.
std::vector<Edit> sipRuleEdits(const KernelAnalysis& analysis, std::mt19937_64& rng, int swaps,
                               Schedule& schedule);

} // namespace sassx
