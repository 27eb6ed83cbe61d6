#pragma once
// The rules for editing one instruction's control bits in place (stall count, yield bit, reuse flags;
// scoreboard fields are not editable), and the issue-gap function every distance the checker verifies
// is computed with. LegalityChecker::check and LegalityChecker::legalControlEdits both call these, so
// what a search is offered and what the checker accepts come from one rule table. docs/legality.md
// ("Control edits") says where each bound comes from.
#include "core/common/enum_names.h"
#include "core/rewrite/variant.h"
#include "core/sass/control.h"
#include "core/sass/encoding_gate.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sassx {

struct KernelAnalysis;

// Stall counts whose issue gap (as issueGap bounds it) does not depend on the yield bit: the one
// statement of this measured fact, which the checker, the enumerator and the rescheduler take from here.
// Measured on an H100 (docs/status.md, "Yield flips per class"; one warp, FADD/FFMA/IADD3): stalls 1-11
// give `stall` cycles under either bit (stall 1 with Y0 takes 2, longer); above 11 Y1 drops the gap to
// 1-2 cycles; stall 0 gives 33 cycles with Y0 and 2 with Y1 (docs/sass-facts.md, control bits).
constexpr uint8_t kYieldNeutralMinStall = 1;
constexpr uint8_t kYieldNeutralMaxStall = 11;

// True when an instruction with this stall count issues its successor after the same number of cycles
// whatever its yield bit says.
bool issueGapIgnoresYield(uint8_t stall);

// The fewest cycles from an instruction's issue to the next issue of its warp, given its control bits.
// Every distance the checker verifies (latency bounds, scoreboard spacing, issue spacing, cross-block
// bounds) and every distance a move or control edit is enumerated with is a sum of these, so refining
// the (stall, yield) table here updates checking and enumeration at once. A lower bound from the gaps
// measured at issueGapIgnoresYield: the stall count, but 1 for stall 0 and 1-2 for a stall above 11 with
// Y1 (a pairing ptxas never emits).
int issueGap(uint8_t stall, uint8_t yield);
inline int issueGap(const Control& c)
{
    return issueGap(c.stall, c.yield);
}

// "LDG.E at 0x0120": how refusals name an instruction.
std::string instructionAt(const KernelAnalysis& a, InstrId i);

// Which control edits LegalityChecker::legalControlEdits enumerates (bit flags).
enum class ControlSpace : uint8_t
{
    Yield = 1,         // flip the yield bit
    Reuse = 2,         // clear one reuse flag, or set one where the next instruction reuses the operand
    YieldAndReuse = 3, // both
    Stall = 4,         // lower the stall count to the least value the block stays legal with
    All = 7,           // every kind
};
inline bool hasSpace(ControlSpace space, ControlSpace part)
{
    return (uint8_t(space) & uint8_t(part)) != 0;
}

// The spaces a user names (`sassx-cli legal --control`); YieldAndReuse is the searches' own.
inline constexpr std::array<EnumName<ControlSpace>, 4> kControlSpaceNames{{
    {ControlSpace::Yield, "yield"},
    {ControlSpace::Reuse, "reuse"},
    {ControlSpace::Stall, "stall"},
    {ControlSpace::All, "all"},
}};
constexpr std::optional<ControlSpace> parseControlSpace(std::string_view text)
{
    return parseEnum(kControlSpaceNames, text);
}

// Which evidence the yield rules take (SASSX_YIELD_RULE): the measured tables (the default), or an
// earlier rule kept for measuring what the widening adds, never for tuning.
enum class YieldRule : uint8_t
{
    Evidence,     // the class tables and the decode gate
    ReusePrinted, // "reuse-printed": as Evidence, but a word whose reuse marks nvdisasm leaves out under
                  // Y0 is refused (the rule without the reuse-under-Y0 measurements)
    PtxasHabits,  // "ptxas-habits": a yield bit only where ptxas used it on the opcode in this kernel,
                  // no reuse flags with Y0 (the narrowest rule, for comparisons)
};

// Per-kernel control-value rules. Edits are judged against ptxas' own bits for the same instruction, the
// measured tables and nvdisasm's decoding of the edited word.
class ControlRules
{
public:
    explicit ControlRules(const KernelAnalysis& analysis);

    // Why instruction i may not carry `c` in place of ptxas' control bits: a stall of 0 where ptxas had
    // none, stallRefusal, yieldRefusal, reuse flags with Y0 on a class where that pairing was not
    // measured on the class and mask (reuseUnderY0Refusal), changed scoreboard fields, and, when all those
    // hold, encodingRefusal. One sentence per broken rule, naming the instruction; empty when every rule
    // holds. Where each reuse flag may stand depends on the order: reuseRefusal.
    std::vector<std::string> valueRefusals(InstrId i, const Control& c) const;

    // The stall rule alone: a changed stall must form a (stall, yield) pair ptxas used on the opcode, or
    // raise ptxas' stall within 1-11 keeping its yield bit.
    std::optional<std::string> stallRefusal(InstrId i, const Control& c) const;
    // The yield rule alone: a yield bit other than ptxas' is legal only where the issue gap ignores it
    // (issueGapIgnoresYield of the new stall), the instruction is not a wall (a branch or barrier may
    // rely on the bit to let other warps progress), and the measured table says the flip keeps the
    // gap, scoreboards and results of the instruction's class (ArchModel::yieldEvidence). Whether the word
    // encodes is encodingRefusal's question, not ptxas' habits.
    std::optional<std::string> yieldRefusal(InstrId i, const Control& c) const;

    // Why the reuse flag on operand slot `slot` (0 Ra, 1 Rb, 2 Rc, 3 reserved; encoding fields, not
    // printed positions) of instruction i, issued at position p of s, is not valid there; nullopt if it
    // is. ptxas' own flag is valid while the instruction ptxas put next still follows. Any other flag
    // only where: both instructions are fixed-latency ALU/FMA operations of the same form (opcode and
    // operand kinds) on which ptxas' flags on that slot always sat on the register in the slot's field;
    // the flagged one is unpredicated, reads that register and does not write it; and the next
    // instruction of the block has the same register in that field. (Y1 is valueRefusals' part.)
    std::optional<std::string> reuseRefusal(const Schedule& s, InstrId i, Position p, int slot) const;
    // The second half of reuseRefusal: a flag on `slot` of instruction i that instruction `next` follows,
    // whoever set it (tests hold it against ptxas' own flags).
    std::optional<std::string> pairRefusal(InstrId i, InstrId next, int slot) const;

    // The least stall >= atLeast that stallRefusal accepts on instruction i with this yield bit, or
    // nullopt if none is.
    std::optional<uint8_t> leastAllowedStall(InstrId i, int atLeast, uint8_t yield) const;

    // The encoding rule alone: instruction i's word with control bits `c` must decode, by nvdisasm, to
    // the instruction ptxas wrote (EncodingGate); nvdisasm's complaint otherwise. Listings built from
    // text have no words and no gate.
    std::optional<std::string> encodingRefusal(InstrId i, const Control& c) const;
    // The class-and-mask rule for reuse flags kept under Y0 (`mask` = the Ra/Rb/Rc bits): allowed only
    // where the probe measured that mask on the instruction's class (ArchModel::reuseUnderY0Evidence); the
    // refusal cites the row, or says that none covers the class.
    std::optional<std::string> reuseUnderY0Refusal(InstrId i, uint8_t mask) const;
    // For an allowed value that keeps reuse flags under Y0 where ptxas had Y1: the sentence that says the
    // flags are kept although nvdisasm prints none, citing the measured row; nullopt otherwise.
    std::optional<std::string> keptReuseNote(InstrId i, const Control& c) const;

    // Decodes every word the control edits of this kernel can produce now, not at the first edit.
    void primeEncodings() const
    {
        if (m_gate) m_gate->prime();
    }

    static YieldRule yieldRule();
    static bool habitsOnly(); // yieldRule() == YieldRule::PtxasHabits

private:
    std::string reuseWho(InstrId i, int slot) const;

    const KernelAnalysis* m_analysis;
    std::map<std::string, uint32_t> m_observedStalls; // base opcode → bit (stall + 16 * yield) ptxas used
    std::map<std::string, uint8_t> m_observedYield;   // base opcode → bit (yield) ptxas used
    std::map<std::string, uint8_t> m_reuseSlots;      // encoding form → slots whose field ptxas' flags name
    std::shared_ptr<EncodingGate> m_gate;             // shared by every checker of the kernel
};

} // namespace sassx
