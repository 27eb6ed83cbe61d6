#pragma once
// A search's budget: the one duration parser for every budget a user types (sassx-cli search
// --budget-time, tune --budget-time and --total-time) and the one fraction-of-budget formula (the
// progress bar of a search, the board of a tune, the annealer's cooling).
//
// Zero. Inside SearchConfig a limit of 0 means "no limit on this measure": SIP's annealing preset ends on
// its own temperature and a list schedule after its few heuristics, so they run with none. A zero that a
// user types would be stored as that same 0 and read back as "no limit", the opposite of what was asked;
// so it is refused in one line wherever a budget is typed (a duration here, --budget-evals by the CLI's
// aboveZero check), and "no limit" is said by leaving the option out.
#include "core/common/result.h"

#include <cstdint>
#include <string_view>

namespace sassx::search {

struct SearchConfig;

// "10m", "90s", "1h", "1.5m", "45" (seconds) → seconds, above zero. Anything else is refused with
// "<option> takes a duration above zero such as 90s, 10m or 1h, not '<text>'".
Result<double> parseDuration(std::string_view text, std::string_view option);

// The share of `config`'s budget that `evaluations` and `seconds` have spent: the larger share of the
// limits set, clamped to [0, 1]. 0 when no limit is set (the run ends by its own rule, see above).
double budgetFraction(const SearchConfig& config, int64_t evaluations, double seconds);

} // namespace sassx::search
