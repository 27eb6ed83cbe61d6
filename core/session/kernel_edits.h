#pragma once
// The edits a front end offers on a kernel besides single moves: the legal control edits of a schedule
// with the evidence behind each, and the named edits (DeepGEMM's FFMA interleave). Both come from the
// kernel's own checker (the one with the writer's walls), so `sassx-cli legal --control`, `sassx-cli
// move --pattern`, the listing's menu and a search's control space cannot disagree about what is legal.
// Re-exported: InterleaveReuse, its names and PatternEdits; withScheduleAddresses, which names the
// instructions of a refusal by the addresses the variant shown gives them.
#include "core/rewrite/ffma_interleave.h"
#include "core/rewrite/message_addresses.h"
#include "core/session/workspace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sassx {

struct ControlEditOption
{
    Edit edit;                       // legal on its own, at a position of the schedule given
    std::optional<std::string> note; // the evidence that allows it where nvdisasm shows nothing
};

// Every legal control edit of `current` in `space` (yield flips, reuse flags, stall decreases), each
// with the control rules' note when it keeps reuse flags under a cleared yield bit.
std::vector<ControlEditOption> legalControlEdits(const KernelWorkspace& kernel, const Schedule& current,
                                                 ControlSpace space);

// DeepGEMM's interleave over positions [first, end) of `current` (ffma_interleave.h), each edit judged by
// the kernel's checker.
PatternEdits interleaveEdits(const KernelWorkspace& kernel, const Schedule& current,
                             InterleaveReuse reuse = InterleaveReuse::Clear, Position first = Position(0),
                             Position end = Position(UINT32_MAX));

} // namespace sassx
