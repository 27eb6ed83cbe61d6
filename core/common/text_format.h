#pragma once
// Small text forms more than one layer writes: HTML-escaped text (the diff page, the tune report) and
// the UTC timestamp reports and databases record.
#include <string>

namespace sassx {

// `s` with &, <, > and " escaped, for HTML text and attribute values.
std::string htmlEscape(const std::string& s);

// Now, in UTC, as ISO 8601 to the second ("2026-11-26T23:58:51Z").
std::string utcNowIso8601();

} // namespace sassx
