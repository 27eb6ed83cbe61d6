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
    std::vector<SearchRecord> searches; // finished searches of the kernel ("searches"; optional)
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
