#pragma once
// Writes a schedule back into the cubin: the new .text.K words, every instruction-offset attribute of
// .nv.info.K, every relocation r_offset into .text.K and (unless PatchOptions::keepStaleLineInfo) the
// kernel's rows in the line tables follow their instruction (core/rewrite/line_table.h); every other
// byte stays identical. A line table whose rewritten program is longer moves to the end of the file,
// which then grows (see rewriteLineTables in cubin_writer.cpp). Refuses (with a sentence) what it
// cannot follow (core/rewrite/patch_limits.h).
#include "core/common/result.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/patch_limits.h"
#include "core/rewrite/variant.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

struct KernelAnalysis;

// schedule.order[newPosition] = original index; schedule.control[originalIndex] = its new control bits.
// Moves must stay inside basic blocks (block starts fixed keeps every PC-relative branch valid).
Result<std::vector<uint8_t>> writeSchedule(const Cubin& cubin, const KernelAnalysis& analysis,
                                           const Schedule& schedule, const PatchOptions& options = {});

// hi with its control fields (bits 105-125 of the instruction: stall, yield, scoreboards, wait mask,
// reuse) replaced by c; every other bit untouched. Clears all 21 bits itself rather than trusting the
// mask in Control::encode, which covered only 17 of them and so could only ever set reuse flags.
uint64_t withControl(uint64_t hi, const Control& c);

// Byte ranges of the file that writeSchedule may change for this kernel (the code, each offset slot,
// each r_offset, the line sections with their header fields and relocations): everything outside them
// must come out identical (tests check this); bytes may also be appended past the original end when a
// line table grows.
struct PatchedRange
{
    uint64_t fileOffset = 0;
    uint64_t size = 0;
};
std::vector<PatchedRange> patchedRanges(const Cubin& cubin, const Kernel& kernel);

} // namespace sassx
