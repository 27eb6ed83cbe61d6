#include "core/search/search_budget.h"

#include "core/search/search_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace sassx::search {

Result<double> parseDuration(std::string_view text, std::string_view option)
{
    auto refuse = [&] {
        return makeError(std::string(option) + " takes a duration above zero such as 90s, 10m or 1h, not '" +
                         std::string(text) + "'");
    };
    std::string_view number = text;
    double scale = 1.0;
    if (!number.empty()) {
        switch (number.back()) {
        case 's':
            number.remove_suffix(1);
            break;
        case 'm':
            scale = 60.0;
            number.remove_suffix(1);
            break;
        case 'h':
            scale = 3600.0;
            number.remove_suffix(1);
            break;
        default:
            break;
        }
    }
    double v = 0.0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(v) ||
        !(v > 0.0))
        return refuse();
    return v * scale;
}

double budgetFraction(const SearchConfig& c, int64_t evaluations, double seconds)
{
    double f = 0.0;
    if (c.budgetEvals > 0) f = std::max(f, double(evaluations) / double(c.budgetEvals));
    if (c.budgetSeconds > 0) f = std::max(f, seconds / c.budgetSeconds);
    return std::clamp(f, 0.0, 1.0);
}

} // namespace sassx::search
