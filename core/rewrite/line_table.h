#pragma once
// Line-number programs rewritten when instructions move: every instruction keeps the rows (file, line,
// column, flags, inlining context) it had, at its new offset. Decoding, and the facts about which
// section maps what, are in core/cubin/line_program.h.
#include "core/common/result.h"
#include "core/cubin/cubin.h"
#include "core/cubin/line_program.h"
#include "core/rewrite/schedule_index.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sassx {

// The index of the one sequence that describes the kernel (-1: none, or one without rows), after
// checking that its rows can move with the instructions: row and end addresses at instruction
// boundaries inside the code, no other sequence for the kernel, nothing unsupported. Any sequence
// whose DW_LNE_set_address is not relocated makes this an error (its code is unknown).
Result<int> kernelLineSequence(const LineTable& table, const Kernel& kernel);

// Instructions [first, end) of the kernel that the kernel's rows in one section cover; moves must not
// cross first or end. present = false when the section has no sequence for the kernel. An error says in
// one line why the kernel's rows cannot be rewritten.
struct LineCoverage
{
    bool present = false;
    uint32_t first = 0;
    uint32_t end = 0;
};
Result<LineCoverage> lineTableCoverage(const Cubin& cubin, int section, const Kernel& kernel);

// The rewritten contents of one line section for order[newPosition] = originalIndex over the kernel's
// instructions. bytes equal the original when the kernel's rows come out the same (the identity
// schedule, or moves that change no row), and are never shorter: a shorter sequence is padded with
// DW_LNS_advance_pc 0 before its DW_LNE_end_sequence. A longer one makes the section longer; then
// relocationOffsets gives the new r_offset of each relocation (index into Cubin::relocations()) that
// moved with the bytes after it.
struct LineTableEdit
{
    int section = -1;
    std::vector<uint8_t> bytes;
    std::vector<std::pair<size_t, uint64_t>> relocationOffsets;
};
Result<LineTableEdit> rewriteLineTable(const Cubin& cubin, int section, const Kernel& kernel,
                                       const IndexVector<Position, InstrId>& order);

// The opcodes of a sequence after its DW_LNE_set_address: the rows, the advance to endAddress, a 0x90
// restoring finalContext when the last row left another one, then DW_LNE_end_sequence. Opcodes are
// chosen as ptxas chooses them, so an unchanged sequence re-encodes byte for byte (tests check this on
// every sample). padTo > 0: padded to exactly padTo bytes (an error when the encoding is longer).
Result<std::vector<uint8_t>> encodeLineRows(const LineProgramHeader& header, const std::vector<LineRow>& rows,
                                            uint64_t startAddress, uint64_t endAddress,
                                            std::pair<uint64_t, uint64_t> finalContext = {0, 0},
                                            size_t padTo = 0);

} // namespace sassx
