#include "core/sass/instruction_text.h"

#include <array>
#include <bit>
#include <vector>

namespace sassx {
namespace {

bool holdsRegister(const Operand& op, int r)
{
    return op.kind == Operand::Kind::Register && op.reg && op.reg->file == RegFile::R && op.reg->index == r;
}

// Per slot (Ra, Rb, Rc), the operand that carries its `.reuse` mark, or -1.
std::array<int, 3> markedOperands(const Instruction& ins)
{
    std::array<int, 3> at{-1, -1, -1};
    const auto& ops = ins.operands;
    std::vector<char> taken(ops.size(), 0);
    const uint8_t own = ins.control.reuse & 7;
    // A listing built from text has no words: only ptxas' marks can be placed.
    const bool hasWord = (ins.lo & 0xFFF) != 0;
    // ptxas' flags where nvdisasm printed them: on the register in the slot's field, or, for forms that
    // print a flag elsewhere (HADD2.F32 prints its Rc flag on the register in Rb), on the marks left.
    for (int slot = 0; slot < 3; ++slot) {
        if (!((own >> slot) & 1)) continue;
        for (size_t k = 0; k < ops.size() && at[size_t(slot)] < 0; ++k)
            if (ops[k].reuse && !taken[k] &&
                (!hasWord || holdsRegister(ops[k], reuseFieldRegister(ins, slot))))
                at[size_t(slot)] = int(k), taken[k] = 1;
    }
    for (int slot = 0; slot < 3; ++slot)
        if (((own >> slot) & 1) && at[size_t(slot)] < 0)
            for (size_t k = 0; k < ops.size() && at[size_t(slot)] < 0; ++k)
                if (ops[k].reuse && !taken[k]) at[size_t(slot)] = int(k), taken[k] = 1;
    if (!hasWord) return at;
    // Any other slot: the source operand holding its field's register. The first printed operand of an
    // instruction that writes a register is its destination, not a source; where two slots name the same
    // register, the lower slot takes the earlier operand (sources print in field order).
    for (int slot = 0; slot < 3; ++slot) {
        if (at[size_t(slot)] >= 0) continue;
        const int r = reuseFieldRegister(ins, slot);
        for (size_t k = (ins.defs.empty() ? 0 : 1); k < ops.size() && at[size_t(slot)] < 0; ++k)
            if (holdsRegister(ops[k], r) && !taken[k]) at[size_t(slot)] = int(k), taken[k] = 1;
    }
    return at;
}

} // namespace

int reuseFieldRegister(const Instruction& ins, int slot)
{
    switch (slot) {
    case 0:
        return int((ins.lo >> 24) & 0xFF);
    case 1:
        return int((ins.lo >> 32) & 0xFF);
    default:
        return int(ins.hi & 0xFF);
    }
}

std::string operandText(const Instruction& ins, const Control& c)
{
    const uint8_t want = c.reuse & 7;
    const auto& ops = ins.operands;
    int printed = 0;
    for (const auto& op : ops)
        printed += op.reuse;
    // Flags kept under Y0: marked `.reuse*`, the '*' of the Reuse field (control_text.h).
    const bool unprinted = want != 0 && !(c.yield & 1);
    // What nvdisasm printed for ptxas' flags is already the text of these.
    if (!unprinted && want == (ins.control.reuse & 7) && printed == std::popcount(unsigned(want)))
        return ins.operandText;
    const std::array<int, 3> at = markedOperands(ins);
    std::vector<char> marked(ops.size(), 0);
    for (int slot = 0; slot < 3; ++slot)
        if (((want >> slot) & 1) && at[size_t(slot)] >= 0) marked[size_t(at[size_t(slot)])] = 1;
    // Edit each operand's span in the printed text, so everything else stays as nvdisasm wrote it.
    std::string out;
    size_t cursor = 0;
    for (size_t k = 0; k < ops.size(); ++k) {
        const size_t from = ins.operandText.find(ops[k].text, cursor);
        if (from == std::string::npos) return ins.operandText; // not printed as parsed: leave it alone
        out.append(ins.operandText, cursor, from - cursor);
        std::string t = ops[k].text;
        if (ops[k].reuse && !marked[k]) {
            if (const size_t m = t.find(".reuse"); m != std::string::npos) t.erase(m, 6);
        } else if (!ops[k].reuse && marked[k]) {
            t += unprinted ? ".reuse*" : ".reuse";
        } else if (marked[k] && unprinted) {
            if (const size_t m = t.find(".reuse"); m != std::string::npos) t.insert(m + 6, "*");
        }
        out += t;
        cursor = from + ops[k].text.size();
    }
    out.append(ins.operandText, cursor, std::string::npos);
    return out;
}

std::string instructionText(const Instruction& ins, const Control& c)
{
    std::string s;
    if (!ins.predicateText.empty()) s = ins.predicateText + " ";
    s += ins.opcode;
    const std::string ops = operandText(ins, c);
    if (!ops.empty()) s += " " + ops;
    return s;
}

} // namespace sassx
