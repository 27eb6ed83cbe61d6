#pragma once
// DWARF line-number programs over SASS code offsets, and their rewrite when instructions move: every
// instruction keeps the rows (file, line, column, flags, inlining context) it had, at its new offset.
//
// Which sections hold offsets into .text.K (checked with CUDA 13.0 on the captured Triton cubins and on
// CUDA sources built with -lineinfo by tests/core/rewrite/test_line_table.cpp):
// - .nv_debug_line_sass maps SASS offsets to lines of the embedded PTX (.nv_debug_ptx_txt: file 0 and
//   an empty file table; what `nvdisasm --print-line-info-ptx` shows).
// - .debug_line is not PTX-level on these cubins: it maps SASS offsets to source lines (.py, .cu; what
//   `nvdisasm --print-line-info` shows). Evidence: in attention_fwd.sm_90.cubin its one sequence opens
//   with a DW_LNE_set_address that .rela.debug_line relocates against attention_fwd (R_CUDA_64 at
//   0x9e), advances by multiples of 16 and ends at 0x4a80, the size of .text.attention_fwd. It is
//   rewritten exactly like .nv_debug_line_sass.
// - Both are DWARF version 2 (min_inst_length 1, line_base -5, line_range 14, opcode_base 10): one unit
//   per section, one sequence per kernel, each opened by a relocated DW_LNE_set_address. Rows are
//   numbered from 1 in each sequence.
// - .debug_line of CUDA code also carries NVIDIA's extended opcode 0x90 with two ULEB128 operands: the
//   number of the call-site row in the same sequence (0: not inlined) and the .debug_str offset of the
//   inlined function's name. The register persists until the next 0x90. `nvdisasm -gi` prints
//   "inlined at" from it (setting the operand to k makes it show row k of the sequence, counted from 1,
//   as the call site), so a rewrite must renumber these references.
// - .debug_frame rows are fences (core/rewrite/patch_limits.cpp); .debug_str and .nv_debug_ptx_txt
//   hold no code offsets; -G sections (.debug_info, .debug_loc, .nv_debug_info_reg_sass) are not
//   rewritten (patch_limits refuses them).
#include "core/common/result.h"
#include "core/cubin/cubin.h"

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace sassx {

// The sections that hold line-number programs over SASS offsets.
inline constexpr const char* kLineTableSections[] = {".debug_line", ".nv_debug_line_sass"};

// Line-program opcodes: standard (DWARF 5 §6.2.5.2, with the ULEB128 operand count of each), extended
// (§6.2.5.3), and NVIDIA's inlining opcode (above).
namespace dwarf_line {
enum : uint8_t
{
    LNS_copy = 1,
    LNS_advance_pc = 2,
    LNS_advance_line = 3,
    LNS_set_file = 4,
    LNS_set_column = 5,
    LNS_negate_stmt = 6,
    LNS_set_basic_block = 7,
    LNS_const_add_pc = 8,
    LNS_fixed_advance_pc = 9,
    LNS_set_prologue_end = 10,
    LNS_set_epilogue_begin = 11,
    LNS_set_isa = 12,
};
inline constexpr uint8_t kStandardOperands[] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
inline constexpr uint8_t LNE_end_sequence = 1, LNE_set_address = 2, LNE_define_file = 3,
                         LNE_set_discriminator = 4, LNE_nv_inlined_at = 0x90;
} // namespace dwarf_line

// One row of the line-number matrix (DWARF 5 §6.2.2) plus NVIDIA's inlining register.
struct LineRow
{
    uint64_t address = 0; // offset into the code section the sequence describes
    uint64_t file = 1;
    int64_t line = 1;
    uint64_t column = 0;
    bool isStmt = true;
    bool basicBlock = false;
    bool prologueEnd = false;
    bool epilogueBegin = false;
    uint64_t isa = 0;
    uint64_t discriminator = 0;
    uint64_t context = 0;      // 1-based number of the call-site row of this sequence, 0 = none
    uint64_t functionName = 0; // .debug_str offset of the inlined function's name

    bool sameExceptAddress(const LineRow& o) const;
    bool operator==(const LineRow&) const = default;
};

struct LineProgramHeader
{
    uint64_t unitOffset = 0;    // section offset of unit_length
    uint64_t unitEnd = 0;       // one past the unit
    uint64_t programOffset = 0; // first opcode
    bool dwarf64 = false;
    uint16_t version = 0;
    uint8_t minInstLength = 1;
    uint8_t maxOpsPerInst = 1;
    bool defaultIsStmt = true;
    int8_t lineBase = 0;
    uint8_t lineRange = 0;
    uint8_t opcodeBase = 0;
    std::vector<uint8_t> standardOpcodeLengths; // [opcode - 1]

    // True when standard opcode `op` exists here with the operand count DWARF gives it, so its meaning
    // is known.
    bool definesStandard(uint8_t op) const;
};

struct LineSequence
{
    size_t unit = 0;             // index into LineTable::units
    uint64_t begin = 0;          // section offset of its first opcode
    uint64_t end = 0;            // one past its DW_LNE_end_sequence
    uint64_t prologueEnd = 0;    // one past its leading DW_LNE_set_address (0: it has none)
    uint64_t addressOperand = 0; // section offset of that op's address operand
    uint8_t addressSize = 0;     // its size in bytes
    uint64_t startAddress = 0;   // the address it sets
    int textSection = -1;        // code section the relocated address names; -1 = not known
    uint64_t endAddress = 0;     // address of the end_sequence row
    uint64_t endContext = 0;     // the 0x90 register at end_sequence
    uint64_t endFunctionName = 0;
    std::vector<LineRow> rows; // without the end_sequence row
    std::string unsupported;   // non-empty: why this sequence cannot be rewritten
};

struct LineTable
{
    std::string section; // its name, for messages
    std::vector<LineProgramHeader> units;
    std::vector<LineSequence> sequences;
};

// Decodes every unit and sequence of a line-number program (DWARF versions 2 to 5). The structure
// (unit and opcode lengths) must be sound or nothing is returned; what only makes one sequence
// impossible to rewrite (an opcode without known meaning, a forward inlining reference) is noted in
// LineSequence::unsupported. Addresses are as the program states them (no relocation applied).
Result<LineTable> decodeLineProgram(std::span<const uint8_t> data, const std::string& sectionName);

// The same for a section of a cubin, with each sequence's addresses made relative to the code section
// its relocated DW_LNE_set_address names.
Result<LineTable> decodeLineTable(const Cubin& cubin, int section);

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
                                       const std::vector<uint32_t>& order);

// The opcodes of a sequence after its DW_LNE_set_address: the rows, the advance to endAddress, a 0x90
// restoring finalContext when the last row left another one, then DW_LNE_end_sequence. Opcodes are
// chosen as ptxas chooses them, so an unchanged sequence re-encodes byte for byte (tests check this on
// every sample). padTo > 0: padded to exactly padTo bytes (an error when the encoding is longer).
Result<std::vector<uint8_t>> encodeLineRows(const LineProgramHeader& header, const std::vector<LineRow>& rows,
                                            uint64_t startAddress, uint64_t endAddress,
                                            std::pair<uint64_t, uint64_t> finalContext = {0, 0},
                                            size_t padTo = 0);

} // namespace sassx
