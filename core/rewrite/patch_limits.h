#pragma once
// What the cubin writer cannot follow when instructions move: code offsets held in places it does not
// rewrite (jump tables, unhandled offset attributes, debug frames, -G debug info, line tables it cannot
// decode). The writer refuses schedules that break these limits; the legality checker treats the same
// instructions as walls, so the search never proposes a schedule the writer would refuse.
//
// Line tables (.debug_line, .nv_debug_line_sass; -lineinfo, and Triton always emits them) are no limit
// when they decode: the writer rewrites them so every row follows its instruction
// (core/rewrite/line_table.h). Only the ends of the rows a table holds for the kernel are fences (ptxas
// covers the whole kernel, so none in practice). A table that cannot be decoded or rewritten makes
// refuseAll say why in one sentence.
#include "core/cubin/cubin.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

struct PatchLimits
{
    // Instructions that must keep their position: an offset names them and the writer cannot update it.
    struct Pin
    {
        uint32_t index = 0;
        std::string reason;
    };
    // Boundaries nothing may cross: instruction indices b such that every instruction before b stays
    // before b (and every one from b on stays there). Offsets that name a *place* (a row of
    // .debug_frame, a jump target) rather than one instruction only need this.
    struct Fence
    {
        uint32_t index = 0;
        std::string reason;
    };
    std::vector<Pin> pins;
    std::vector<Fence> fences;
    // Non-empty: no instruction of this kernel may move at all (a sentence saying why).
    std::string refuseAll;
};

struct PatchOptions
{
    // Line tables (.nv_debug_line_sass, .debug_line; Triton always emits them) map code offsets to
    // source lines for profilers and debuggers; the GPU never reads them. false (default): the writer
    // rewrites them so each instruction keeps its source line at its new offset, and a table it cannot
    // rewrite stops every move with the reason. true (escape hatch): the tables are left byte for byte
    // as they are, never a limit, so a moved instruction is attributed to the line of the instruction
    // now at its old offset.
    bool keepStaleLineInfo = false;
};

// Scans .nv.info.K, the global .nv.info, relocations of every section, .debug_frame, -G sections and
// (unless keepStaleLineInfo) the line tables for offsets into .text.K that the writer does not rewrite.
PatchLimits patchLimits(const Cubin& cubin, const Kernel& kernel, const PatchOptions& options = {});

// Instructions the checker should treat as walls (pins and fence instructions; every instruction when
// nothing may move), sorted and unique. Each comes with the sentence to show.
struct UnpatchableInstruction
{
    uint32_t index = 0;
    std::string reason;
};
std::vector<UnpatchableInstruction> unpatchableInstructionsWithReasons(const Cubin& cubin,
                                                                       const Kernel& kernel,
                                                                       const PatchOptions& options = {});
std::vector<uint32_t> unpatchableInstructions(const Cubin& cubin, const Kernel& kernel,
                                              const PatchOptions& options = {});

// Attributes of .nv.info.K that hold no code offsets at all (sizes, flags, parameter layout). Every
// other attribute is either rewritten (nvinfo::holdsInstructionOffsets) or limits moves.
bool isValueOnlyAttribute(uint8_t attribute);

} // namespace sassx
