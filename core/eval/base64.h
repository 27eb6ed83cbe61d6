#pragma once
// Base64 (RFC 4648, with padding) for cubins inside protocol lines.
#include "core/common/result.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sassx::eval {

std::string base64Encode(std::span<const uint8_t> bytes);
Result<std::vector<uint8_t>> base64Decode(std::string_view text);

} // namespace sassx::eval
