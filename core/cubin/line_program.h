#pragma once
// DWARF line-number programs over SASS code offsets, decoded: the rows (file, line, column, flags,
// inlining context) of every sequence, and each unit's file table. The rewrite (core/rewrite/
// line_table.h) moves rows with their instructions; the source map (core/cubin/source_map.h) reads them.
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

    // The file table of DWARF 2 to 4: file k (from 1) is fileNames[k - 1], in includeDirectories[d - 1]
    // for its directory d (0: the compilation directory, which a line program does not name). A
    // malformed table never fails the decode (the rows do not need it): it is kept as far as it went
    // and fileTableProblem says why. DWARF 5 tables are not read (ptxas writes version 2).
    struct FileEntry
    {
        std::string name;
        uint64_t directory = 0;
    };
    std::vector<std::string> includeDirectories;
    std::vector<FileEntry> fileNames;
    std::string fileTableProblem;
    // "directory/name" of file k (the name alone when it is absolute or has no directory); empty when
    // the table has no file k.
    std::string filePath(uint64_t file) const;

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

} // namespace sassx
