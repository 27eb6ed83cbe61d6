#pragma once
// The key of one measured latency cell: which dependency (RAW, WAR, WAW, a scoreboard wait, issue
// spacing) between which two opcodes, through which operand or register file. Typed inside sassx; a
// key is spelt as text ("RAW|IMAD|LOP3|reg") only at the edges: the "measured" cells of
// resources/latency/sm_XX.json, the probe's results files and the bench tools that write them.
#include "core/sass/registers.h"

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sassx {

enum class DepCategory : uint8_t
{
    Raw,        // the first writes what the second reads; the first of fixed latency
    War,        // the second overwrites what the first, of fixed latency, reads
    Waw,        // both write a register; both of fixed latency
    Scoreboard, // the second waits on the write scoreboard the first sets and reads its result
    Spacing,    // two memory instructions of one base opcode
};

// How the reader of a RAW dependency reads the register.
enum class OperandRole : uint8_t
{
    Reg,   // any other register operand
    Guard, // its guard predicate
    Addr,  // a memory address, base, uniform offset or descriptor
    Data,  // the data a store, atomic or async copy reads
    Pred,  // a predicate operand or carry-in
    Ur,    // a uniform register read by a non-uniform instruction
};

struct LatencyKey
{
    DepCategory category = DepCategory::Raw;
    std::string first;  // latencyOpcodeKey of the first instruction; the base opcode for Spacing
    std::string second; // latencyOpcodeKey of the second; empty for Spacing
    OperandRole role = OperandRole::Reg; // Raw only
    RegFile file = RegFile::R;           // War and Waw only

    static LatencyKey raw(std::string first, std::string second, OperandRole role);
    static LatencyKey war(std::string first, std::string second, RegFile file);
    static LatencyKey waw(std::string first, std::string second, RegFile file);
    static LatencyKey scoreboard(std::string first, std::string second);
    static LatencyKey spacing(std::string baseOpcode);

    // "RAW|IMAD|LOP3|reg", "WAR|IADD3|LOP3|R", "WAW|A|B|UR", "SB|LDG|FFMA", "SPACE|LDS".
    std::string name() const;
    // The inverse of name(); nullopt for text that is not a key.
    static std::optional<LatencyKey> parse(std::string_view text);

    auto operator<=>(const LatencyKey&) const = default;
};

const char* operandRoleName(OperandRole role); // "reg", "guard", "addr", "data", "pred", "ur"
const char* regFileKey(RegFile file);          // "R", "UR", "P", "UP", "B"

} // namespace sassx
