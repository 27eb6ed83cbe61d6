#pragma once
// Writes a tuned cubin back into a Triton cache entry so Triton's next run loads it, and undoes it.
// An entry directory (~/.triton/cache/<hash>/) holds <name>.cubin, <name>.json (metadata with "name",
// "num_warps", "shared", "target"{"arch"}, ...), <name>.ptx/.ttir/.ttgir/.llir and __grp__<name>.json.
// Triton reads <name>.cubin when a process first launches the kernel; a running process keeps the
// cubin it already loaded and must restart.
#include "core/common/result.h"
#include "core/cubin/cubin.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sassx {

struct TritonCacheEntry
{
    std::filesystem::path dir;
    std::string name; // metadata "name" = the kernel symbol
    std::filesystem::path cubin, metadata, backup;
    nlohmann::json meta;
    bool hasBackup() const;
};

// The backup kept beside the cubin: written once, never overwritten.
constexpr const char* kTritonBackupSuffix = ".sassx-orig";

Result<TritonCacheEntry> openTritonEntry(const std::filesystem::path& dir);

// The entry directory when `file` is an entry's <name>.cubin or <name>.json (a file dialog picks files,
// and opening the directory instead is what makes write-back possible); nothing otherwise.
std::optional<std::filesystem::path> tritonEntryOfFile(const std::filesystem::path& file);

// Same kernel (name), same parameter layout (KPARAM_INFO ordinals, offsets, sizes; parameter bank
// size), same code size and the same arch: a tuned cubin that passes is a drop-in for the original.
Status checkTunedCompatible(const Cubin& original, const Cubin& tuned, const std::string& kernel);

// Checks the entry and the tuned cubin (against the backup when one exists: the cubin in place may be
// an earlier export), keeps the backup, then replaces <name>.cubin atomically (temp file + rename).
// kernel: empty = the metadata's name.
Status exportToTritonCache(const std::filesystem::path& dir, const std::vector<uint8_t>& tuned,
                           const std::string& kernel = {});

// Puts the backup back atomically and removes it. An Error when there is no backup.
Status restoreTritonCache(const std::filesystem::path& dir);

} // namespace sassx
