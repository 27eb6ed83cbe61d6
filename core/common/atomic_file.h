#pragma once
// Whole-file replacement that never leaves a half-written file behind: the contents go to a new file in
// the same directory, are flushed to disk, and only then renamed over the target (rename is atomic
// within a file system). A crash at any point leaves either the old file or the new one.
#include "core/common/result.h"

#include <string>
#include <string_view>

namespace sassx {

// Writes `contents` to `path` atomically. A symbolic link is followed (its target is replaced, the link
// stays); an existing file keeps its permission bits, a new one gets 0666 less the umask. Errors read
// "cannot write <path>: <reason>" or "cannot save <path>: <reason>" (the final rename).
Status writeFileAtomically(const std::string& path, std::string_view contents);

} // namespace sassx
