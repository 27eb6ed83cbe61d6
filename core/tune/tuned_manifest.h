#pragma once
// `sassx-cli tune DIR --write-back` for kernels without a Triton cache entry (captured at the driver, or a
// Triton kernel whose entry was not found): the best cubin goes into DIR/tuned/ and its entry into
// DIR/tuned/manifest.json, which the driver hook reads to run it in place of the original
// (`python -m sassx_capture run --tuned DIR/tuned`, docs/driver-capture.md). The user's files are never
// touched. Entries are keyed by the SHA-256 of the original cubin as captured, which is the image the
// program loads, and the kernel's symbol.
#include "core/common/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx::tune {

inline constexpr const char* kTunedDir = "tuned";

struct TunedKernel
{
    std::string name;          // the capture's name (the file's stem)
    std::string symbol;        // the kernel's symbol in the cubin
    std::string originalCubin; // the captured original, whose hash keys the entry
};

// Writes the tuned cubin and adds (or replaces) its entry; returns the cubin's path.
Result<std::string> addTuned(const std::string& tunedDir, const TunedKernel& kernel,
                             const std::vector<uint8_t>& tuned);
// Removes the kernel's entry and its cubin; fine when there is none.
Status removeTuned(const std::string& tunedDir, const std::string& name);

} // namespace sassx::tune
