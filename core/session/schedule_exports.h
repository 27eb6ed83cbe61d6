#pragma once
// What a front end writes or shows about schedules of a kernel besides figures: diffs (against the
// original, or between two inputs), their text/JSON/HTML forms, and the Triton cache write-back and its
// undo. Made only here, so `sassx-cli diff` and the GUI's Export ▸ Diff, or `sassx-cli triton-export`
// and Export ▸ Triton Cache Write-Back, cannot produce different files (docs/export.md).
#include "core/common/result.h"
#include "core/rewrite/schedule_diff.h"
#include "core/session/workspace.h"

#include <string>
#include <vector>

namespace sassx {

// `schedule` of `kernel` against ptxas' original ("original" → `name`).
Result<ScheduleDiff> diffFromOriginal(const KernelWorkspace& kernel, const Schedule& schedule,
                                      const std::string& name);

// `kernel` (labelled `labelA`) against `pathB`: a cubin (or anything Workspace::open reads) holding the
// same kernel, or a variant JSON applied to `kernel`. The error says why the two are not schedules of one
// kernel.
Result<ScheduleDiff> diffInputs(const KernelWorkspace& kernel, const std::string& labelA,
                                const std::string& pathB, const WorkspaceOptions& options);

enum class DiffFormat
{
    Text,
    Json,
    Html,
};
struct CheckerVerdict;
// `context`: unchanged lines around a change in the text form (negative: the whole listing). With
// `checker`, the checker's verdict on B's differences (variant_import.h) goes with it: a closing
// section of the text, a "checker" field of the JSON, a note at the top of the HTML.
std::string renderDiff(const ScheduleDiff& diff, DiffFormat format, int context = 3,
                       const CheckerVerdict* checker = nullptr);

struct TritonWriteBack
{
    std::string cubin;  // the entry's cubin, now the tuned one
    std::string backup; // ptxas' original, kept beside it
};
// The cubin of the Triton cache entry directory `entry`, the file a write-back replaces; the error says
// why `entry` is not an entry a write-back can go into.
Result<std::string> tritonEntryCubin(const std::string& entry);
// Puts `tuned` (a cubin holding `kernel`; empty: the one the entry's metadata names) into the Triton
// cache entry `entry`, keeping the original for restoreTriton.
Result<TritonWriteBack> writeBackToTriton(const std::string& entry, const std::vector<uint8_t>& tuned,
                                          const std::string& kernel);
// Puts ptxas' original back into the entry.
Status restoreTriton(const std::string& entry);

} // namespace sassx
