#pragma once
// Reading a whole input file without ever blocking on a special one: a FIFO named `k.cubin` would make
// an open wait for a writer forever (and every later open queue behind it), and a device file may never
// end. Only regular files (after following symbolic links) are read; everything else, and every failed
// open, is a one-line error that says why.
#include "core/common/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

// The bytes of the regular file at `path`; "PATH: not a regular file (a FIFO)", "PATH: no such file or
// directory", "cannot open PATH: Permission denied" and the like otherwise.
Result<std::vector<uint8_t>> readRegularFile(const std::string& path);

// Why `path` may not be read as an input file ("not a regular file (a FIFO)", "no such file or
// directory"), or "" when it is a regular file.
std::string irregularFileReason(const std::string& path);

} // namespace sassx
