#pragma once
// Another cubin of the open kernel as a variant: another tool's schedule, an earlier export, a
// search's best, or ptxas with other flags where it kept the same instructions. Its schedule is
// recovered from its words (no nvdisasm, which refuses some words the GPU runs) and each of its
// differences from the original is put to the kernel's checker, so `sassx-cli diff` and the GUI's
// Variant ▸ Import Cubin as Variant… say which of them sassx would refuse, in the checker's words.
// A refused schedule is still imported: the point is to measure what another tool did.
#include "core/common/result.h"
#include "core/rewrite/variant.h"
#include "core/session/workspace.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace sassx {

// One difference from the original (an instruction that moved, or whose control bits changed) and
// what the checker says about it.
struct DifferenceVerdict
{
    InstrId instruction;               // in the original listing
    std::string what;                  // "LDG.E at 0x0230 moved 4 up; S04->S02"
    std::vector<std::string> refusals; // the checker's sentences; empty: legal
};

struct CheckerVerdict
{
    std::vector<DifferenceVerdict> differences; // in the schedule's order
    // Hazards no difference could be tied to (the checker judges the whole schedule).
    std::vector<std::string> otherRefusals;
    // Why nothing was judged (the other side is not a permutation of the original within its blocks).
    std::string unjudged;

    size_t refusedCount() const;
    bool legal() const { return unjudged.empty() && refusedCount() == 0 && otherRefusals.empty(); }
    // One line per refusal: "<what>: refused: <reason>" (a tooltip's and a session file's form).
    std::vector<std::string> refusalLines() const;
    // "checker: 3 of 4 differences legal; refused:" and the refusal lines indented below it.
    std::string text() const;
    nlohmann::json toJson() const;
};

// Judges `schedule` of `kernel` with the kernel's checker (the writer's walls included) and ties each
// hazard to the differences it involves: the instructions it names, else the changed instructions
// placed between those two (a stall lowered, or an instruction moved out, between a producer and its
// consumer).
CheckerVerdict judgeDifferences(const KernelWorkspace& kernel, const Schedule& schedule);

// A variant JSON file (Variant::toJson) for `kernel`: refused when it names another kernel.
Result<Variant> readVariantFile(const KernelWorkspace& kernel, const std::string& path);

// The schedule of `kernel` that `path` holds: a variant JSON applied to it, or anything Workspace::open
// reads holding a kernel of the same name and architecture whose words are the original's permuted
// within blocks. The error is one line naming what differs (another kernel, another size, the first
// word that is none of the original's).
Result<Schedule> scheduleOfInput(const KernelWorkspace& kernel, const std::string& path,
                                 const WorkspaceOptions& options);

// judgeDifferences on scheduleOfInput; a schedule that cannot be recovered is `unjudged`, with why.
CheckerVerdict judgeInput(const KernelWorkspace& kernel, const std::string& path,
                          const WorkspaceOptions& options);

struct ImportedSchedule
{
    std::string label; // the file's name
    Schedule schedule;
    std::vector<Edit> edits; // KernelWorkspace::schedule(edits) gives `schedule` exactly
    CheckerVerdict verdict;
};

// scheduleOfInput as a variant: its edits from the original and the checker's verdict. Fails (one line)
// also when a difference is one no edit expresses (scoreboard fields).
Result<ImportedSchedule> importSchedule(const KernelWorkspace& kernel, const std::string& path,
                                        const WorkspaceOptions& options);

} // namespace sassx
