#include "core/rewrite/control_rules.h"

#include "core/analysis/kernel_analysis.h"
#include "core/analysis/yield_evidence.h"
#include "core/sass/instruction_text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace sassx {
namespace {

// Bit of a (stall, yield) pair in ControlRules::m_observedStalls: the two act as one 5-bit value.
uint32_t stallYieldBit(uint8_t stall, uint8_t yield)
{
    return 1u << ((stall & 0xF) + 16 * (yield & 1));
}

const char* slotName(int slot)
{
    static const char* const names[] = {"Ra", "Rb", "Rc", "the reserved fourth slot"};
    return names[slot & 3];
}

bool fixedAlu(const Instruction& ins)
{
    return !ins.variableLatency && (ins.cls == InstrClass::Alu || ins.cls == InstrClass::Fma);
}

// The register in reuse slot `slot`'s encoding field (the same one the instruction text marks).
int registerField(const Instruction& ins, int slot)
{
    return reuseFieldRegister(ins, slot);
}

// Encoding form: the full opcode and the kinds of the printed operands (immediate, constant and register
// forms of one opcode encode their fields differently).
std::string formOf(const Instruction& ins)
{
    std::string form = ins.opcode + ':';
    for (const auto& op : ins.operands)
        form += char('a' + int(op.kind));
    return form;
}

} // namespace

YieldRule ControlRules::yieldRule()
{
    static const YieldRule rule = [] {
        const char* v = std::getenv("SASSX_YIELD_RULE");
        const std::string value = v ? v : "";
        if (value == "ptxas-habits") return YieldRule::PtxasHabits;
        if (value == "reuse-printed") return YieldRule::ReusePrinted;
        return YieldRule::Evidence;
    }();
    return rule;
}

bool ControlRules::habitsOnly()
{
    return yieldRule() == YieldRule::PtxasHabits;
}

bool issueGapIgnoresYield(uint8_t stall)
{
    return stall >= kYieldNeutralMinStall && stall <= kYieldNeutralMaxStall;
}

int issueGap(uint8_t stall, uint8_t yield)
{
    // The measured gaps are stated once, at issueGapIgnoresYield (control_rules.h); here 12-15 with Y1
    // take 1 cycle (12, 13) or 2 (14, 15), and stall 0 (ptxas puts it only on NOP and BRA) counts 1, the
    // analysis' own issue cycles, as a lower bound. Every distance the checker verifies is a sum of these
    // lower bounds, so contention, which only adds cycles, cannot make a check unsafe.
    if (stall == 0) return 1;
    if (stall > kYieldNeutralMaxStall && (yield & 1)) return stall >= 14 ? 2 : 1;
    return stall;
}

std::string instructionAt(const KernelAnalysis& a, InstrId i)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, " at 0x%04llx",
                  static_cast<unsigned long long>(a.listing.instructions[i.value()].offset));
    return a.listing.instructions[i.value()].opcode + buf;
}

ControlRules::ControlRules(const KernelAnalysis& analysis) : m_analysis(&analysis)
{
    for (const auto& ins : analysis.listing.instructions) {
        m_observedStalls[ins.baseOpcode] |= stallYieldBit(ins.control.stall, ins.control.yield);
        m_observedYield[ins.baseOpcode] |= uint8_t(1u << (ins.control.yield & 1));
    }
    // Per form, the slots whose every ptxas flag sat on the register in the slot's field (nvdisasm
    // prints ".reuse" on that register): only there does setting a flag name a known register.
    std::map<std::string, uint8_t> contradicted;
    for (const auto& ins : analysis.listing.instructions) {
        for (int slot = 0; slot < 3; ++slot) {
            if (!((ins.control.reuse >> slot) & 1)) continue;
            const int r = registerField(ins, slot);
            const bool printed =
                std::any_of(ins.operands.begin(), ins.operands.end(), [&](const Operand& op) {
                    return op.reuse && op.kind == Operand::Kind::Register && op.reg &&
                           op.reg->file == RegFile::R && op.reg->index == r;
                });
            (printed ? m_reuseSlots : contradicted)[formOf(ins)] |= uint8_t(1u << slot);
        }
    }
    for (auto& [form, slots] : m_reuseSlots)
        if (auto it = contradicted.find(form); it != contradicted.end()) slots &= uint8_t(~it->second);
    m_gate = EncodingGate::forListing(analysis.listing);
}

std::vector<std::string> ControlRules::valueRefusals(InstrId i, const Control& c) const
{
    const auto& a = *m_analysis;
    const auto& ins = a.listing.instructions[i.value()];
    const Control& orig = ins.control;
    std::vector<std::string> out;
    if (c.stall == 0 && orig.stall != 0)
        out.push_back(instructionAt(a, i) +
                      ": a stall of 0 is only kept where ptxas used it (it waits 33 cycles with Y0 and is "
                      "undefined with Y1; " +
                      citeEvidence(kYieldFixedRow, "stall 0") + ")");
    if (auto why = stallRefusal(i, c)) out.push_back(std::move(*why));
    if (auto why = yieldRefusal(i, c)) out.push_back(std::move(*why));
    // Reuse flags with Y0: ptxas pairs them only with Y1; the pairing is allowed per class and mask where
    // the probe measured it (reuseUnderY0Refusal).
    if ((c.reuse & 7) != 0 && (c.yield & 1) == 0 && (c.reuse != orig.reuse || c.yield != orig.yield))
        if (auto why = reuseUnderY0Refusal(i, uint8_t(c.reuse & 7))) out.push_back(std::move(*why));
    if (c.wbar != orig.wbar || c.rbar != orig.rbar || c.wait != orig.wait)
        out.push_back(instructionAt(a, i) + ": scoreboard fields are not editable");
    if ((c.reuse & 8) && !(orig.reuse & 8))
        out.push_back(instructionAt(a, i) + ": the fourth reuse slot is reserved");
    if (out.empty())
        if (auto why = encodingRefusal(i, c)) out.push_back(std::move(*why));
    return out;
}

std::optional<std::string> ControlRules::encodingRefusal(InstrId i, const Control& c) const
{
    const auto& ins = m_analysis->listing.instructions[i.value()];
    if (c == ins.control || !m_gate) return std::nullopt;
    const auto judged = m_gate->judge(i.value(), c.encode(ins.hi));
    switch (judged.verdict) {
    case DecodeVerdict::Same:
        return std::nullopt;
    case DecodeVerdict::SameReuseUnprinted:
        // The flags stay in the word; nvdisasm only hides them under Y0. Whether the hardware computes
        // the same with them is the measured table's answer.
        if (yieldRule() == YieldRule::ReusePrinted)
            return instructionAt(*m_analysis, i) + ": " + judged.why +
                   " (SASSX_YIELD_RULE=reuse-printed refuses such words)";
        if (auto why = reuseUnderY0Refusal(i, uint8_t(c.reuse & 7))) return why;
        return std::nullopt;
    case DecodeVerdict::Other:
        break;
    }
    return instructionAt(*m_analysis, i) + ": " + judged.why;
}

std::optional<std::string> ControlRules::reuseUnderY0Refusal(InstrId i, uint8_t mask) const
{
    const auto& ins = m_analysis->listing.instructions[i.value()];
    const std::string who =
        instructionAt(*m_analysis, i) + ": reuse flags " + reuseMaskName(mask) + " with Y0 ";
    if (yieldRule() == YieldRule::PtxasHabits)
        return who + "are never written by ptxas (SASSX_YIELD_RULE=ptxas-habits)";
    const auto& row = m_analysis->arch->reuseUnderY0Evidence(ins);
    if (!*row.name)
        return who + "were not measured on " + ins.baseOpcode + " (" +
               citeEvidence(kReuseUnderY0Row, "no class covers it") +
               "; ptxas pairs reuse flags only with Y1)";
    const std::string cell = std::string(row.name) + ", mask " + reuseMaskName(mask);
    if ((row.unsafeMasks >> mask) & 1)
        return who + "changed a result, faulted or hung on " + row.name + " (" +
               citeEvidence(row.cites, cell) + ")";
    if (!((row.safeMasks >> mask) & 1))
        return who + "were not measured on " + row.name + " (" +
               citeEvidence(row.cites, cell + " was not run") + ")";
    return std::nullopt;
}

std::optional<std::string> ControlRules::keptReuseNote(InstrId i, const Control& c) const
{
    const auto& ins = m_analysis->listing.instructions[i.value()];
    const uint8_t mask = uint8_t(c.reuse & 7);
    if (mask == 0 || (c.yield & 1) || (mask == (ins.control.reuse & 7) && c.yield == ins.control.yield))
        return std::nullopt;
    const auto& row = m_analysis->arch->reuseUnderY0Evidence(ins);
    if (!*row.name || !((row.safeMasks >> mask) & 1)) return std::nullopt;
    return instructionAt(*m_analysis, i) + ": yield cleared with the reuse flags " + reuseMaskName(mask) +
           " kept (nvdisasm prints no .reuse marks under Y0; measured safe: " +
           citeEvidence(row.cites, std::string(row.name) + ", mask " + reuseMaskName(mask)) + ")";
}

std::optional<std::string> ControlRules::stallRefusal(InstrId i, const Control& c) const
{
    // Some opcodes only encode some control values (nvdisasm rejects e.g. stall 15 on LDC), and stall
    // and yield act as one 5-bit value (ptxas pairs stalls above 11 only with Y0, and FADD with S12 Y1
    // changed rmsnorm's results on an H200; docs/sass-facts.md, control bits): allow only (stall, yield)
    // pairs ptxas itself used on the same opcode in this kernel.
    const auto& ins = m_analysis->listing.instructions[i.value()];
    if (c.stall == ins.control.stall) return std::nullopt;
    auto it = m_observedStalls.find(ins.baseOpcode);
    if (it != m_observedStalls.end() && (it->second & stallYieldBit(c.stall, c.yield))) return std::nullopt;
    // A raise within 1-11 keeping ptxas' yield bit: only delays the next issue (issueGapIgnoresYield),
    // and nvdisasm decodes every stall 1-11 with each instruction's own yield and reuse bits on all sm_90
    // samples (docs/status.md, "Fixed-latency, WAR, WAW and scoreboard bounds").
    if (c.stall > ins.control.stall && c.stall <= kYieldNeutralMaxStall && ins.control.stall >= 1 &&
        (c.yield & 1) == (ins.control.yield & 1))
        return std::nullopt;
    return instructionAt(*m_analysis, i) + ": ptxas never used a stall of " + std::to_string(c.stall) +
           " with Y" + std::to_string(c.yield & 1) + " on " + ins.baseOpcode +
           " in this kernel, and only a raise within 1-11 keeping the yield bit is measured to just delay "
           "the next issue (" +
           citeEvidence(kYieldFixedRow, "stalls 1-11") + ")";
}

std::optional<uint8_t> ControlRules::leastAllowedStall(InstrId i, int atLeast, uint8_t yield) const
{
    Control c = m_analysis->listing.instructions[i.value()].control;
    c.yield = yield & 1;
    for (int s = std::max(atLeast, 0); s <= 15; ++s) {
        c.stall = uint8_t(s);
        if (!stallRefusal(i, c) && !encodingRefusal(i, c)) return uint8_t(s);
    }
    return std::nullopt;
}

std::optional<std::string> ControlRules::yieldRefusal(InstrId i, const Control& c) const
{
    const auto& a = *m_analysis;
    const auto& ins = a.listing.instructions[i.value()];
    const uint8_t want = c.yield & 1;
    if (want == (ins.control.yield & 1)) return std::nullopt;
    const std::string who = instructionAt(a, i) + ": the yield bit cannot change here: ";
    // Where the gap ignores the bit (issueGapIgnoresYield) every distance the checker verifies is
    // unchanged; flipping it on random stall <= 11 instructions kept 200 of 200 Triton variants bitwise
    // correct on an H100 (docs/sass-facts.md, control-bit probe).
    if (!issueGapIgnoresYield(c.stall)) {
        if (c.stall == 0)
            return who +
                   "with stall 0 the yield bit changes the issue gap (33 cycles with Y0, 2 with Y1, which "
                   "nvdisasm cannot decode; " +
                   citeEvidence(kYieldFixedRow, "stall 0") + ")";
        return who + "with stall " + std::to_string(c.stall) + " > " + std::to_string(kYieldNeutralMaxStall) +
               " the yield bit changes the issue gap (" + std::to_string(issueGap(c.stall, 0)) +
               " cycles with Y0, " + std::to_string(issueGap(c.stall, 1)) +
               " with Y1; docs/sass-facts.md, control bits)";
    }
    // At a branch or barrier the bit may be what lets the other warps progress (a warp spinning on a
    // barrier without it could starve them): the probes measured one warp's gap and results, not that.
    if (a.facts[i.value()].wall)
        return who + "it is a wall (" + a.facts[i.value()].wallReason +
               "), where the bit may be what lets other warps progress (not measured)";
    if (habitsOnly()) {
        // The rule before the decode gate and the class table, kept for comparisons only.
        auto it = m_observedYield.find(ins.baseOpcode);
        if (it == m_observedYield.end() || !((it->second >> want) & 1) || ins.variableLatency)
            return who + "ptxas never used Y" + std::to_string(want) + " on " + ins.baseOpcode +
                   " in this kernel (SASSX_YIELD_RULE=ptxas-habits)";
        return std::nullopt;
    }
    // Whether the encoding exists is the decoder's question (encodingRefusal); whether the flip keeps
    // the gap, the scoreboards and the results is the measured table's, per class.
    const auto& ev = m_analysis->arch->yieldEvidence(ins);
    if (!ev.flipSafe) {
        if (!*ev.name)
            return who + "the yield bit on " + ins.baseOpcode + " was not measured (" +
                   citeEvidence(kYieldClassRow, "no class covers it") + ")";
        return who + "on " + std::string(ev.name) + " " + ev.missing + " was not measured (" +
               citeEvidence(ev.cites, ev.name) + ")";
    }
    if (c.stall == 1 && want == 1 && !ev.stallOneToY1Safe)
        return who + "at stall 1, Y1 issues the next instruction after 1 cycle instead of 2, and on " +
               std::string(ev.name) + " that was not measured safe (loads issued 1 cycle apart faulted; " +
               citeEvidence(ev.cites, ev.name) + ")";
    return std::nullopt;
}

std::optional<std::string> ControlRules::reuseRefusal(const Schedule& s, InstrId i, Position p,
                                                      int slot) const
{
    const auto& a = *m_analysis;
    // Blocks never change membership, so the block at a position is the original block there.
    const auto& b = a.cfg.blocks[a.cfg.blockOf[p.value()]];
    const bool hasNext = (p + 1).value() < b.end;
    const InstrId next = hasNext ? s.order[p + 1] : InstrId(0);
    // ptxas' own flag, with the instruction ptxas put next still next.
    if (((a.listing.instructions[i.value()].control.reuse >> slot) & 1) && hasNext && next == i + 1)
        return std::nullopt;
    if (slot > 2) return reuseWho(i, slot) + "is reserved";
    if (!hasNext) return reuseWho(i, slot) + "has no next instruction in its block to reuse the operand";
    return pairRefusal(i, next, slot);
}

std::optional<std::string> ControlRules::pairRefusal(InstrId i, InstrId next, int slot) const
{
    const auto& a = *m_analysis;
    const auto& x = a.listing.instructions[i.value()];
    const auto& y = a.listing.instructions[next.value()];
    const std::string who = reuseWho(i, slot);
    if (slot > 2) return who + "is reserved";
    const std::string nextName = instructionAt(a, next);
    // Only pairs of fixed-latency ALU/FMA operations are modelled: their operands are read at issue.
    if (!fixedAlu(x)) return who + "is only modelled on fixed-latency ALU/FMA operations";
    if (!fixedAlu(y)) return who + "needs a fixed-latency ALU/FMA operation next, not " + nextName;
    // A predicated-off instruction may not read (and cache) its operands at all.
    if (x.guard) return who + "is not modelled on a predicated instruction (" + x.predicateText + ")";
    // Slots are encoding fields, not printed positions (LEA R4, P1, R4, R21 keeps R21 in Rb), and the
    // field a flag names depends on the form (HADD2.F32 prints its Rc flag on the register in Rb): two
    // instructions of one form use the fields alike, and the form's slot counts only where ptxas' own
    // flags on it always sat on the register in that field.
    const std::string form = formOf(x);
    if (formOf(y) != form)
        return who + "needs the next instruction to be another " + x.opcode +
               " with the same operand kinds (only then does the slot name the same field), not " + nextName;
    auto known = m_reuseSlots.find(form);
    if (known == m_reuseSlots.end() || !((known->second >> slot) & 1))
        return who + "is not known to name a register field on " + x.opcode +
               " with these operand kinds (ptxas never set it there in this kernel, or printed it elsewhere)";
    const int r = registerField(x, slot);
    const auto reads = [&](const Instruction& ins) {
        return std::any_of(ins.uses.begin(), ins.uses.end(),
                           [&](const Reg& u) { return u.file == RegFile::R && u.index == r; });
    };
    if (r == kRZ || !reads(x)) return who + "does not name a general register the instruction reads";
    if (registerField(y, slot) != r)
        return who + "needs the next instruction to read R" + std::to_string(r) + " in the same slot; " +
               nextName + " has R" + std::to_string(registerField(y, slot)) + " there";
    // The cache keeps the value x read: stale if x itself writes the register (or the rest of a wide
    // operand starting there).
    for (const auto& d : x.defs)
        if (d.file == RegFile::R && d.index >= r && d.index < r + 4)
            return who + "would cache R" + std::to_string(r) + ", which the instruction itself overwrites";
    return std::nullopt;
}

std::string ControlRules::reuseWho(InstrId i, int slot) const
{
    return instructionAt(*m_analysis, i) + ": the reuse flag on operand slot " + std::to_string(slot) + " (" +
           slotName(slot) + ") ";
}

} // namespace sassx
