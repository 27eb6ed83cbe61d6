#pragma once
// Users often have only a host executable, a shared library or a .fatbin: pull the cubins out.
#include "core/common/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

struct EmbeddedCubin
{
    int smVersion = 0;          // from the fatbin entry header
    std::string origin;         // e.g. "fatbin entry 3 in .nv_fatbin"
    std::vector<uint8_t> bytes; // an ELF cubin (decompressed)
    std::string compression;    // "none", "lz4" or "zstd": how the entry was stored
};

// Accepts: a cubin (returned as the only entry), a fatbin blob, or an ELF host object/executable/
// shared library with .nv_fatbin / __nv_relfatbin sections. PTX entries are skipped.
// Compressed entries (LZ4 with --compress-mode=speed, zstd otherwise) are decompressed when sassx was
// built with liblz4 / libzstd; otherwise the Error names the missing library.
// An input holding no ELF entry at all (a PTX-only fatbin) is an Error.
Result<std::vector<EmbeddedCubin>> extractCubins(const std::vector<uint8_t>& bytes);

// Which decompressors this build has (for messages and tests).
bool haveLz4Support();
bool haveZstdSupport();

bool looksLikeCubin(const std::vector<uint8_t>& bytes); // ELF with EM_CUDA (190)

} // namespace sassx
