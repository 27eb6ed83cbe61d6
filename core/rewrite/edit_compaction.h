#pragma once
// Short edit lists. A search reaches its schedules through long chains of edits (an annealing walk moves
// an instruction back and forth hundreds of times), and a variant is stored as its edit list from the
// original; this finds a short list that reaches the same schedule, so a variant shows the edits that
// matter and a session file stays small.
#include "core/rewrite/variant.h"

#include <functional>
#include <optional>
#include <vector>

namespace sassx {

// Moves that bring each instruction to its place in `target`, left to right (at most one per displaced
// instruction), then one control edit per instruction whose bits still differ. Replaying the result with
// applyEdits(a, edits, afterMove) gives `target` exactly; nullopt when it would not (then keep the
// long list).
std::optional<std::vector<Edit>> compactEdits(const KernelAnalysis& a, const Schedule& target,
                                              const std::function<void(Schedule&)>& afterMove = {});

} // namespace sassx
