#pragma once
// Small predicates LegalityChecker::check (legality.cpp) and the move enumeration (legal_moves.cpp) share,
// so both judge scoreboard spacing, issue spacing and yields alike.
#include "core/sass/instruction.h"

#include <string>

namespace sassx {

// Same-class key for issue spacing: the base opcode of memory instructions.
inline std::string spacingClass(const Instruction& ins)
{
    return ins.isMemory() ? ins.baseOpcode : std::string();
}

// Scoreboards an instruction waits on: its wait mask, and DEPBAR.LE SBn's operand.
inline uint8_t waitMaskOf(const Instruction& ins, const Control& c)
{
    uint8_t m = c.wait;
    if (ins.op == Op::DEPBAR && !ins.operands.empty() && ins.operands[0].text.size() == 3 &&
        ins.operands[0].text.starts_with("SB") && ins.operands[0].text[2] >= '0' &&
        ins.operands[0].text[2] <= '5')
        m |= uint8_t(1u << (ins.operands[0].text[2] - '0'));
    return m;
}

// ptxas' own distance below 2 cycles between a scoreboard setter and a wait on it (either order) is
// trusted only while the first of the two still yields where ptxas made it yield: what made the short
// distance safe is not known, and a yield (Y0) may be it. Adding a yield only gives other warps the
// issue slot, which delays this warp and never advances it (docs/legality.md, control edits).
inline int shortScoreboardNeed(int orig, bool firstKeepsYield)
{
    return (orig >= 0 && orig < 2 && firstKeepsYield) ? orig : 2;
}

inline bool keepsPtxasYield(const Control& now, const Instruction& ins)
{
    return !((ins.control.yield & 1) == 0 && (now.yield & 1) == 1);
}

inline bool setsScoreboard(const Control& c, int sb)
{
    return c.wbar == sb || c.rbar == sb;
}

} // namespace sassx
