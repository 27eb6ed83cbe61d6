#pragma once
// The session file (JSON): what to reopen (input, arch, kernel, launch spec) and everything the user
// made (variants with their edits, figures and sources, and the searches run on the kernel with every
// evaluation). Written atomically (core/common/atomic_file.h: temp
// file beside it, fsync, rename) so a crash while saving never leaves a half-written session behind.
#include "core/common/result.h"
#include "core/session/search_record.h"
#include "core/session/variant_record.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace sassx {

// A folder the user pointed sassx at for source files that are not where the line tables say (the
// Source dock's "Source Folder…", as a debugger's substitute-path): a file recorded under `from` is read
// from `to` with the rest of its path, or by its name in `to`.
struct SourceFolder
{
    std::string from; // a directory as the line tables record it
    std::string to;   // the folder on this machine
    bool operator==(const SourceFolder&) const = default;
};

struct SessionFile
{
    static constexpr int kVersion = 1;
    std::string input; // absolute path
    std::string arch;
    std::string kernel;
    std::string launchSpec;
    int currentVariant = 0;
    int selected = -1;
    std::vector<VariantRecord> variants;
    std::vector<SearchRecord> searches;      // finished searches of the kernel ("searches"; optional)
    std::vector<SourceFolder> sourceFolders; // "source_folders" (optional)
    // Read only: what could not be restored whole (a run whose outputs, which hold its history, are
    // gone), one line each, said once when the session reopens.
    std::vector<std::string> notes;
};

nlohmann::json toJson(const SessionFile& file);
Result<SessionFile> sessionFileFromJson(const nlohmann::json& j);

nlohmann::json figuresToJson(const VariantFigures& figures);
Result<VariantFigures> figuresFromJson(const nlohmann::json& j);

// Atomic write (writeFileAtomically: temp file in the same directory + fsync + rename).
Status writeSessionFile(const std::string& path, const SessionFile& file);
Result<SessionFile> readSessionFile(const std::string& path);

} // namespace sassx
