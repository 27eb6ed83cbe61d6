#include "core/sass/semantics.h"

#include <algorithm>
#include <unordered_map>

namespace sassx {
namespace {

bool hasModifier(const Instruction& ins, std::string_view m)
{
    return std::find(ins.modifiers.begin(), ins.modifiers.end(), m) != ins.modifiers.end();
}

int typeWidth(std::string_view t)
{
    if (t == "F64" || t == "S64" || t == "U64") return 2;
    return 1;
}
bool isTypeName(std::string_view t)
{
    static const char* kTypes[] = {"F16", "F32", "F64", "BF16", "S8",   "U8",   "S16", "U16",
                                   "S32", "U32", "S64", "U64",  "TF32", "E4M3", "E5M2"};
    for (auto k : kTypes)
        if (t == k) return true;
    return false;
}

// Accumulator / operand register counts for the warp-level MMA shapes (per thread).
struct MmaWidths
{
    int d = 1, a = 1, b = 1, c = 1;
};

MmaWidths mmaWidths(const Instruction& ins)
{
    MmaWidths w;
    const auto& mods = ins.modifiers;
    std::string shape = mods.empty() ? "" : mods[0];
    bool f32acc = hasModifier(ins, "F32") || hasModifier(ins, "S32");
    bool tf32 = hasModifier(ins, "TF32");
    if (ins.op == Op::HMMA) {
        if (shape == "16816") {
            w = {f32acc ? 4 : 2, 4, 2, f32acc ? 4 : 2};
        } else if (shape == "1688") {
            w = tf32 ? MmaWidths{4, 4, 2, 4} : MmaWidths{f32acc ? 4 : 2, 2, 1, f32acc ? 4 : 2};
        } else if (shape == "1684") {
            w = {4, 2, 1, 4};
        } else if (shape == "884") {
            w = {f32acc ? 8 : 4, 2, 2, f32acc ? 8 : 4};
        } else {
            w = {4, 4, 4, 4};
        }
    } else if (ins.op == Op::IMMA) {
        if (shape == "16832")
            w = {4, 4, 2, 4};
        else if (shape == "16816")
            w = {4, 2, 1, 4};
        else if (shape == "8816" || shape == "8832")
            w = {2, 1, 1, 2};
        else
            w = {4, 4, 4, 4};
    } else if (ins.op == Op::DMMA) {
        w = {4, 2, 2, 4};
    }
    return w;
}

// HGMMA.64xNxK: the accumulator fragment is N/2 registers for 32-bit accumulators, N/4 for 16-bit.
int gmmaAccumulatorWidth(const Instruction& ins)
{
    if (ins.modifiers.empty()) return 1;
    const std::string& shape = ins.modifiers[0];
    auto x1 = shape.find('x');
    auto x2 = shape.find('x', x1 + 1);
    if (x1 == std::string::npos || x2 == std::string::npos) return 1;
    int n = std::atoi(shape.substr(x1 + 1, x2 - x1 - 1).c_str());
    bool acc32 = hasModifier(ins, "F32") || hasModifier(ins, "S32");
    return std::max(1, acc32 ? n / 2 : n / 4);
}

void addRegs(RegList& list, const Reg& r, int width)
{
    for (int i = 0; i < width; ++i) {
        Reg x{r.file, uint16_t(r.index + i)};
        if (x.file == RegFile::R && x.index >= kRZ) break;
        if (x.file == RegFile::UR && x.index >= kURZ) break;
        list.push_back(x);
    }
}

void addOperandUses(RegList& uses, const Operand& op, int width)
{
    switch (op.kind) {
    case Operand::Kind::Register:
        if (op.reg)
            addRegs(uses, *op.reg, op.reg->file == RegFile::R || op.reg->file == RegFile::UR ? width : 1);
        break;
    case Operand::Kind::Memory:
        if (op.memBase) addRegs(uses, *op.memBase, op.memBaseWidth);
        if (op.memUniform) addRegs(uses, *op.memUniform, op.memUniformWidth);
        if (op.memDescriptor) addRegs(uses, *op.memDescriptor, op.text.starts_with("gdesc") ? 4 : 2);
        break;
    case Operand::Kind::Constant:
        if (op.constBankReg) addRegs(uses, *op.constBankReg, 1);
        if (op.constOffsetReg) addRegs(uses, *op.constOffsetReg, 1);
        break;
    default:
        break;
    }
}

void dedupe(RegList& l)
{
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
}

// Class and latency from the opcode's row, then what the row cannot say on its own.
void classify(Instruction& ins)
{
    const OpcodeInfo& row = opcodeInfo(ins.op);
    ins.opaque = ins.is(kNotInTables);
    ins.cls = ins.opaque ? InstrClass::Other : row.cls;
    ins.variableLatency = ins.opaque || row.latency == Latency::Variable; // unknown: assume the worst
    // Warp-level MMA without a write scoreboard is scheduled by ptxas with stall counts (fixed
    // latency on sm_80+): treat it so, keeping ptxas' distances (the table does not know them).
    const bool warpMma = ins.op == Op::HMMA || ins.op == Op::IMMA || ins.op == Op::DMMA || ins.op == Op::BMMA;
    if (warpMma && ins.control.wbar == kNoBarrier) ins.variableLatency = false;
    if (ins.cls == InstrClass::Barrier && (ins.op == Op::BSSY || ins.op == Op::BSYNC || ins.op == Op::BREAK))
        ins.cls = InstrClass::Branch;
    if (ins.op == Op::CS2R && ins.operands.size() > 1 && ins.operands[1].text.starts_with("SR_"))
        ins.cls = InstrClass::SpecialReg; // clock reads: keep as special
}

bool isMemoryClass(InstrClass c)
{
    return c == InstrClass::LoadGlobal || c == InstrClass::StoreGlobal || c == InstrClass::LoadShared ||
           c == InstrClass::StoreShared || c == InstrClass::LoadLocal || c == InstrClass::StoreLocal ||
           c == InstrClass::Atomic || c == InstrClass::LoadConst;
}

// Registers per data operand from the .64 / .128 modifiers.
int dataWidthOf(const Instruction& ins)
{
    int w = 1;
    for (const auto& m : ins.modifiers) {
        if (m == "64")
            w = 2;
        else if (m == "128")
            w = 4;
    }
    return w;
}

int memoryBitsOf(const Instruction& ins, int dataWidth)
{
    int bits = 32 * dataWidth;
    const bool memory = isMemoryClass(ins.cls);
    for (const auto& m : ins.modifiers) {
        if (m == "U8" || m == "S8")
            bits = memory ? 8 : bits;
        else if (m == "U16" || m == "S16")
            bits = memory ? 16 : bits;
    }
    return bits;
}

// Indices of the general (R, UR) register operands, in order.
std::vector<size_t> generalRegisterOperands(const std::vector<Operand>& ops)
{
    std::vector<size_t> idx;
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == Operand::Kind::Register &&
            (ops[i].reg ? (ops[i].reg->file == RegFile::R || ops[i].reg->file == RegFile::UR)
                        : (ops[i].text.starts_with("R") || ops[i].text.starts_with("UR"))))
            idx.push_back(i);
    return idx;
}

bool isPredicateOperand(const Operand& o)
{
    if (o.kind != Operand::Kind::Register) return false;
    if (o.reg) return o.reg->file == RegFile::P || o.reg->file == RegFile::UP;
    std::string t = o.text;
    while (!t.empty() && (t[0] == '!' || t[0] == '-'))
        t.erase(0, 1);
    return t.starts_with("PT") || t.starts_with("UPT");
}

void setMmaWidths(Instruction& ins, std::vector<int>& width)
{
    auto w = mmaWidths(ins);
    auto r = generalRegisterOperands(ins.operands);
    int ws[] = {w.d, w.a, w.b, w.c};
    for (size_t k = 0; k < r.size() && k < 4; ++k)
        width[r[k]] = ws[k];
}

void setWarpgroupMmaWidths(Instruction& ins, std::vector<int>& width)
{
    int acc = gmmaAccumulatorWidth(ins);
    auto r = generalRegisterOperands(ins.operands);
    // Rd, [Ra (A from registers)], gdesc[...], Rc: the first and last R operands are accumulators.
    if (!r.empty()) width[r[0]] = acc;
    if (r.size() >= 2) width[r.back()] = acc;
    if (r.size() >= 3) width[r[1]] = 4;
    for (auto& op : ins.operands)
        if (op.kind == Operand::Kind::Memory && op.memDescriptor)
            op.memUniformWidth = 2; // gdesc[URa]: two 64-bit descriptors (A, B)
}

void setConversionWidths(const Instruction& ins, std::vector<int>& width)
{
    std::vector<std::string> types;
    for (const auto& m : ins.modifiers)
        if (isTypeName(m)) types.push_back(m);
    int dw = 1, sw = 1;
    if (types.size() >= 2) {
        dw = typeWidth(types[0]);
        sw = typeWidth(types[1]);
    } else if (types.size() == 1) {
        // One printed type names the side that differs from the 32-bit default: be conservative.
        dw = sw = typeWidth(types[0]);
    }
    if (ins.op == Op::FRND) dw = sw = types.empty() ? 1 : typeWidth(types[0]);
    auto r = generalRegisterOperands(ins.operands);
    for (size_t k = 0; k < r.size(); ++k)
        width[r[k]] = k == 0 ? dw : sw;
}

// IMAD.WIDE: a 64-bit destination, and Rc, the third source operand (after any carry predicates).
void setWideMultiplyWidths(const Instruction& ins, std::vector<int>& width)
{
    const auto& ops = ins.operands;
    auto r = generalRegisterOperands(ops);
    if (!r.empty()) width[r[0]] = 2;
    std::vector<size_t> srcs;
    for (size_t i = 1; i < ops.size(); ++i)
        if (!(ops[i].kind == Operand::Kind::Register && ops[i].reg &&
              (ops[i].reg->file == RegFile::P || ops[i].reg->file == RegFile::UP)) &&
            !(ops[i].kind == Operand::Kind::Register && ops[i].isZeroReg &&
              (ops[i].text.starts_with("PT") || ops[i].text.starts_with("!PT") ||
               ops[i].text.starts_with("UPT"))))
            srcs.push_back(i);
    if (srcs.size() >= 3 && ops[srcs[2]].kind == Operand::Kind::Register) width[srcs[2]] = 2;
}

void setAllGeneralRegisters(const std::vector<Operand>& ops, std::vector<int>& width, int w, bool uniformToo)
{
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == Operand::Kind::Register && ops[i].reg &&
            (ops[i].reg->file == RegFile::R || (uniformToo && ops[i].reg->file == RegFile::UR)))
            width[i] = w;
}

// Registers each operand spans, by opcode family.
std::vector<int> operandWidths(Instruction& ins, int dataWidth)
{
    auto& ops = ins.operands;
    std::vector<int> width(ops.size(), 1);
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == Operand::Kind::Register) width[i] = ops[i].regWidth;
    const Op op = ins.op;
    auto first = [&](int w) {
        auto r = generalRegisterOperands(ops);
        if (!r.empty()) width[r[0]] = w;
    };
    if (op == Op::LDSM || op == Op::STSM) {
        int n = 1;
        for (const auto& m : ins.modifiers)
            if (m == "2")
                n = 2;
            else if (m == "4")
                n = 4;
        auto r = generalRegisterOperands(ops);
        if (!r.empty()) width[r[0]] = n;
        if (op == Op::STSM && r.size() > 0) width[r.back()] = n;
    } else if (isMemoryClass(ins.cls) || ins.cls == InstrClass::AsyncCopy) {
        // Data registers take the access width; address registers carry their own (.64) width.
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == Operand::Kind::Register && ops[i].reg && ops[i].reg->file != RegFile::P &&
                ops[i].reg->file != RegFile::UP)
                width[i] = std::max<int>(width[i], dataWidth);
    } else if (op == Op::HMMA || op == Op::IMMA || op == Op::DMMA) {
        setMmaWidths(ins, width);
    } else if (ins.is(kWarpgroupMma)) {
        setWarpgroupMmaWidths(ins, width);
    } else if (op == Op::DADD || op == Op::DFMA || op == Op::DMUL || op == Op::DMNMX || op == Op::DSETP ||
               op == Op::DSET) {
        setAllGeneralRegisters(ops, width, 2, false);
    } else if (ins.cls == InstrClass::Conversion) {
        setConversionWidths(ins, width);
    } else if (op == Op::IMAD || op == Op::UIMAD) {
        if (hasModifier(ins, "WIDE")) setWideMultiplyWidths(ins, width);
    } else if (op == Op::RET) {
        first(2); // 64-bit return address
    } else if (op == Op::CS2R) {
        if (!hasModifier(ins, "32")) first(2);
    } else if (dataWidth > 1 && (op == Op::ULDC || op == Op::LDC || op == Op::LDCU || op == Op::S2UR ||
                                 op == Op::UMOV || op == Op::R2UR)) {
        first(dataWidth);
    } else if (dataWidth == 2 && (op == Op::IADD || op == Op::MOV || op == Op::UIADD3 || op == Op::UMOV ||
                                  op == Op::SEL || op == Op::USEL)) {
        setAllGeneralRegisters(ops, width, 2, true);
    }
    return width;
}

// Which operands the instruction writes.
std::vector<bool> writtenOperands(const Instruction& ins)
{
    const auto& ops = ins.operands;
    std::vector<bool> isDef(ops.size(), false);
    auto isPred = [&](size_t i) { return isPredicateOperand(ops[i]); };
    if (!ops.empty() && !ins.is(kNoDest)) {
        size_t i = 0;
        while (i < ops.size() && isPred(i))
            ++i;
        if (i > 0) {
            // Leading predicates are outputs: xSETP/PLOP3 write two, FCHK one; others then write a register.
            size_t n = ins.op == Op::FCHK ? 1 : std::min<size_t>(i, 2);
            for (size_t k = 0; k < n; ++k)
                isDef[k] = true;
            if (!ins.is(kSetsPredicates) && n < ops.size() && ops[n].kind == Operand::Kind::Register)
                isDef[n] = true;
        } else if (ops[0].kind == Operand::Kind::Register) {
            isDef[0] = true;
            // Carry-out predicates right after the destination (IADD3 R2, P0, P1, ...; LEA R2, P0, ...).
            if (ins.op != Op::VOTE && ins.op != Op::VOTEU) {
                for (size_t k = 1; k < ops.size() && isPred(k) && k < ops.size() - 1; ++k)
                    isDef[k] = true;
            } else if (ops.size() > 1 && isPred(1)) {
                isDef[1] = true;
            }
        }
    }
    if (ins.op == Op::BSSY || ins.op == Op::BMOV || ins.op == Op::R2B) {
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == Operand::Kind::Register && ops[i].reg && ops[i].reg->file == RegFile::B)
                isDef[i] = true;
    }
    return isDef;
}

// Registers no operand names: predicate files moved as a whole, and the call ABI.
void addImplicitRegisters(const Instruction& ins, RegList& defs, RegList& uses)
{
    if (ins.op == Op::P2R || ins.op == Op::UP2UR)
        for (uint16_t p = 0; p < 7; ++p)
            uses.push_back(Reg{ins.op == Op::P2R ? RegFile::P : RegFile::UP, p});
    if (ins.op == Op::R2P || ins.op == Op::UR2UP)
        for (uint16_t p = 0; p < 7; ++p)
            defs.push_back(Reg{ins.op == Op::R2P ? RegFile::P : RegFile::UP, p});
    if (ins.op ==
        Op::CALL) // ABI: the callee returns in R0-R3 (and may clobber more; calls end blocks anyway)
        for (uint16_t r = 0; r < 4; ++r)
            defs.push_back(Reg{RegFile::R, r});
}

} // namespace

void applySemantics(Instruction& ins, int sm)
{
    classify(ins);
    const int dataWidth = dataWidthOf(ins);
    ins.memoryBits = memoryBitsOf(ins, dataWidth);
    const std::vector<int> width = operandWidths(ins, dataWidth);
    const std::vector<bool> isDef = writtenOperands(ins);
    RegList defs, uses;
    if (ins.guard) uses.push_back(*ins.guard);
    for (size_t i = 0; i < ins.operands.size(); ++i) {
        const auto& op = ins.operands[i];
        if (isDef[i] && op.kind == Operand::Kind::Register) {
            if (op.reg)
                addRegs(defs, *op.reg,
                        op.reg->file == RegFile::R || op.reg->file == RegFile::UR ? width[i] : 1);
        } else {
            addOperandUses(uses, op, width[i]);
        }
    }
    // Accumulating MMA forms read their destination only through Rc, which is listed; predicated
    // writes keep the old value, which the scheduler must treat as a read of the destination.
    addImplicitRegisters(ins, defs, uses);
    dedupe(defs);
    dedupe(uses);
    ins.defs = std::move(defs);
    ins.uses = std::move(uses);
    (void)sm;
}

} // namespace sassx
