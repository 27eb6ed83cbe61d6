#pragma once
#include "core/sass/control.h"
#include "core/sass/opcode.h"
#include "core/sass/registers.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sassx {

struct Operand
{
    enum class Kind : uint8_t
    {
        Register,  // R5, R2.64 (width in regWidth), UR4, P0, UP0, B0, RZ, PT
        Memory,    // [R2.64+0x10], desc[UR6][R2.64], [R0+UR4]
        Constant,  // c[0x0][0x210], cx[UR4][0x10]
        Immediate, // 0x4, 1.5, -INF
        Label,     // branch target address (BRA 0x120, BSSY B0, 0x130)
        Special,   // SR_TID.X, SR_CgaCtaId
        Other,     // anything else, kept as text (e.g. "gsb0", "0x0" barrier id)
    };
    Kind kind = Kind::Other;
    std::string text; // as printed by nvdisasm, trimmed

    // Register
    std::optional<Reg> reg; // absent for RZ/URZ/PT/UPT
    bool isZeroReg = false;
    uint8_t regWidth = 1; // number of 32-bit registers (.64 → 2, .128 → 4)
    bool negated = false; // !P0, -R2
    bool absolute = false;
    bool reuse = false; // ".reuse" suffix
    std::string suffix; // e.g. ".H1", ".B2", ".X4" (modifiers on register operands other than width)

    // Memory: [base(.64)? + ureg? + offset], optional descriptor desc[URx]
    std::optional<Reg> memBase; // R or UR base
    uint8_t memBaseWidth = 1;
    uint8_t memUniformWidth = 1;
    std::optional<Reg> memUniform;    // [R0+UR4]
    std::optional<Reg> memDescriptor; // desc[UR6] (reads a 64-bit pair)
    int64_t memOffset = 0;

    // Constant bank
    int constBank = -1;
    std::optional<Reg> constBankReg; // cx[URx]
    int64_t constOffset = 0;
    std::optional<Reg> constOffsetReg; // c[0x0][R4]

    // Immediate / label
    int64_t intValue = 0;
    bool isFloat = false;
    double floatValue = 0;
    uint64_t target = 0; // Label: absolute byte offset inside the function
};

struct Instruction
{
    uint32_t index = 0;  // offset / 16
    uint64_t offset = 0; // byte offset inside .text.K
    uint64_t lo = 0, hi = 0;
    Control control;

    // Guard predicate (@P0 / @!UP1); absent = always
    std::optional<Reg> guard;
    bool guardNegated = false;
    std::string predicateText; // as printed, "" if none

    std::string opcode;                 // full mnemonic with modifiers: "LDG.E.128.CONSTANT"
    std::string baseOpcode;             // "LDG"
    Op op = Op::Unknown;                // baseOpcode as a typed value (core/sass/opcode.h)
    uint32_t opFlags = kNotInTables;    // its OpFlag properties
    std::vector<std::string> modifiers; // {"E","128","CONSTANT"}
    std::string operandText;            // operands as printed
    std::vector<Operand> operands;

    bool controlFlow = false;             // nvdisasm's control-flow attribute, or a known branch opcode
    std::optional<uint64_t> branchTarget; // byte offset of a direct branch target

    // Semantics (core/sass/semantics): registers read and written, widths expanded.
    RegList defs;
    RegList uses;
    InstrClass cls = InstrClass::Other;
    bool variableLatency = false; // result guarded by a scoreboard, not by stall counts
    bool opaque = false;          // opcode unknown to the tables: treated as a wall by the checker
    int memoryBits = 0;           // access width in bits for memory ops (32 default)

    bool is(uint32_t opFlag) const { return (opFlags & opFlag) != 0; }
    bool isMemory() const;
    bool writesMemory() const;
    bool readsMemory() const;
    std::string text() const; // "@P0 LDG.E R2, desc[UR6][R2.64]"
};

} // namespace sassx
