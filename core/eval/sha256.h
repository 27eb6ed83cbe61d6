#pragma once
// SHA-256 of a byte range, as lower-case hex (OpenSSL's libcrypto; empty if it fails). It checks
// recorded-values files, whose writer (the Python capture) has hashlib.sha256 in its standard library.
#include <cstddef>
#include <cstdint>
#include <string>

namespace sassx::eval {

std::string sha256Hex(const uint8_t* data, size_t size);

} // namespace sassx::eval
