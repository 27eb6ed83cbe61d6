#include "core/sass/semantics.h"

#include <algorithm>
#include <unordered_map>

namespace sassx {
namespace {

struct OpInfo
{
    InstrClass cls;
    bool variableLatency;
};

// Classes per base opcode. Variable latency per docs/sass-facts.md §4.
const std::unordered_map<std::string, OpInfo>& opTable()
{
    static const std::unordered_map<std::string, OpInfo> table = [] {
        std::unordered_map<std::string, OpInfo> t;
        auto add = [&](std::initializer_list<const char*> names, InstrClass c, bool var) {
            for (auto n : names)
                t.emplace(n, OpInfo{c, var});
        };
        using C = InstrClass;
        add({"IADD3",     "IADD",     "IADD32I",   "IMAD",      "IMAD32I", "IMUL",  "IMUL32I",  "ISCADD",
             "ISCADD32I", "LEA",      "LOP",       "LOP3",      "LOP32I",  "SHF",   "SHL",      "SHR",
             "MOV",       "MOV32I",   "SEL",       "FSEL",      "PRMT",    "ISETP", "ICMP",     "IMNMX",
             "VIMNMX",    "VIMNMX3",  "VIADD",     "VIADDMNMX", "IABS",    "BMSK",  "SGXT",     "PLOP3",
             "PSETP",     "P2R",      "R2P",       "CSET",      "CSETP",   "IDP",   "IDP4A",    "LEPC",
             "VOTE",      "VOTEU",    "ISCADD",    "BFE",       "BFI",     "XMAD",  "FLO_FAST", "IMNMX3",
             "I2IP",      "LOP3.LUT", "R2UR",      "PLOP",      "HSETP2",  "HSET2", "HADD2",    "HMUL2",
             "HFMA2",     "HMNMX2",   "SHFL_FAST", "IADD.64",   "MOV.64",  "CS2R"},
            C::Alu, false);
        add({"FFMA", "FADD", "FMUL", "FMNMX", "FSETP", "FSET", "FFMA32I", "FADD32I", "FMUL32I", "FSWZADD",
             "FCHK", "FMNMX3", "FADD2", "FMUL2", "FFMA2", "FHADD", "FHFMA"},
            C::Fma, false);
        add({"UIADD3",     "UIMAD", "ULEA",  "ULOP3",  "ULOP",   "ULOP32I", "USHF",  "USHL",      "USHR",
             "UMOV",       "USEL",  "UPRMT", "UISETP", "UPLOP3", "UPSETP",  "UFLO",  "UPOPC",     "UBREV",
             "UBMSK",      "USGXT", "UP2UR", "UR2UP",  "UIABS",  "UIMNMX",  "UCLEA", "UVIADD",    "UVIMNMX",
             "USETMAXREG", "UFADD", "UFFMA", "UFMUL",  "UFSETP", "UFMNMX",  "UFSEL", "UIADD3.64", "ULEPC"},
            C::Uniform, false);
        add({"MUFU", "POPC", "FLO", "BREV", "RRO"}, C::Mufu, true);
        add({"F2F", "F2I", "I2F", "I2I", "FRND", "I2FP", "F2IP", "UF2FP", "F2UF"}, C::Conversion, true);
        add({"F2FP"}, C::Fma, false); // packing conversions run on the FMA pipe with fixed latency
        // FP64 is variable latency on consumer parts and multi-cycle everywhere: treat as scoreboarded.
        add({"DADD", "DFMA", "DMUL", "DSETP", "DMNMX", "DSET"}, C::Conversion, true);
        add({"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA", "OMMA", "QMMA", "UTCHMMA",
             "UTCQMMA", "UTCIMMA", "UTCOMMA"},
            C::Tensor, true);
        add({"LDG", "LD"}, C::LoadGlobal, true);
        add({"STG", "ST"}, C::StoreGlobal, true);
        add({"LDS", "LDSM", "LDSU"}, C::LoadShared, true);
        add({"STS", "STSM"}, C::StoreShared, true);
        add({"LDL"}, C::LoadLocal, true);
        add({"STL"}, C::StoreLocal, true);
        add({"LDGSTS", "UBLKCP", "UBLKPF", "UBLKRED", "UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG", "UTMACCTL",
             "UTMACMDFLUSH", "UTMACMDFLUSH"},
            C::AsyncCopy, true);
        add({"ATOM", "ATOMG", "ATOMS", "RED", "REDG", "REDAS", "REDUX", "ATOMSX"}, C::Atomic, true);
        add({"LDC", "LDCU"}, C::LoadConst, true);
        add({"ULDC"}, C::Uniform, false); // uniform constant loads carry no scoreboard
        add({"TEX", "TLD", "TLD4", "TXQ", "TMML", "TXD", "SULD", "SUST", "SUATOM", "SURED", "TLDS", "TEXS",
             "TLD4S"},
            C::Texture, true);
        add({"S2R", "S2UR", "B2R", "GETLMEMBASE", "SETLMEMBASE", "GETSHMEMSIZE"}, C::SpecialReg, true);
        add({"SHFL", "MATCH", "SHFL"}, C::Shuffle, true);
        add({"BAR",       "MEMBAR",  "FENCE",      "ERRBAR",      "CCTL",         "CCTLL",
             "CCTLT",     "DEPBAR",  "LDGDEPBAR",  "WARPSYNC",    "SYNCS",        "ELECT",
             "WARPGROUP", "ARRIVES", "NANOSLEEP",  "UCGABAR_ARV", "UCGABAR_WAIT", "CGAERRBAR",
             "ACQBULK",   "MEMBAR",  "BMOV",       "BSSY",        "BSYNC",        "BREAK",
             "BPT",       "PREEXIT", "ACQSHMINIT", "R2B",         "CGABAR",       "VOTE.ALL",
             "SETCTAID",  "UCGABAR", "YIELD",      "KILL",        "QSPC",         "CCTLL"},
            C::Barrier, false);
        add({"BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "EXIT", "RET", "CALL", "RTT", "JMPX", "CALLX", "BRK",
             "CONT", "SSY", "SYNC", "PBK", "PCNT", "PRET"},
            C::Branch, false);
        add({"NOP"}, C::Nop, false);
        return t;
    }();
    return table;
}

bool isSetpFamily(const std::string& base)
{
    return base.ends_with("SETP") || base == "PLOP3" || base == "UPLOP3" || base == "FCHK";
}

bool hasModifier(const Instruction& ins, std::string_view m)
{
    return std::find(ins.modifiers.begin(), ins.modifiers.end(), m) != ins.modifiers.end();
}

// Opcodes whose first operand is read, not written.
bool writesNoFirstOperand(const std::string& base)
{
    static const char* kNames[] = {
        "ST",           "STG",          "STS",       "STL",        "STSM",       "RED",       "REDG",
        "REDAS",        "LDGSTS",       "BRA",       "BRX",        "BRXU",       "JMP",       "JMX",
        "JMXU",         "EXIT",         "RET",       "CALL",       "BSYNC",      "BREAK",     "BAR",
        "MEMBAR",       "DEPBAR",       "NOP",       "ERRBAR",     "CCTL",       "CCTLL",     "WARPSYNC",
        "NANOSLEEP",    "FENCE",        "KILL",      "YIELD",      "BPT",        "LDGDEPBAR", "UTMASTG",
        "UTMALDG",      "UTMAPF",       "UBLKCP",    "UBLKRED",    "UBLKPF",     "WARPGROUP", "ARRIVES",
        "UCGABAR_ARV",  "UCGABAR_WAIT", "CGAERRBAR", "PREEXIT",    "ACQBULK",    "UTMAREDG",  "UTMACCTL",
        "UTMACMDFLUSH", "SUST",         "SURED",     "USETMAXREG", "ACQSHMINIT", "WARPGROUP"};
    for (auto n : kNames)
        if (base == n) return true;
    return false;
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
    if (ins.baseOpcode == "HMMA") {
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
    } else if (ins.baseOpcode == "IMMA") {
        if (shape == "16832")
            w = {4, 4, 2, 4};
        else if (shape == "16816")
            w = {4, 2, 1, 4};
        else if (shape == "8816" || shape == "8832")
            w = {2, 1, 1, 2};
        else
            w = {4, 4, 4, 4};
    } else if (ins.baseOpcode == "DMMA") {
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

} // namespace

bool isKnownOpcode(const std::string& baseOpcode)
{
    return opTable().count(baseOpcode) > 0;
}

const char* instrClassName(InstrClass cls)
{
    switch (cls) {
    case InstrClass::Alu:
        return "alu";
    case InstrClass::Fma:
        return "fma";
    case InstrClass::Uniform:
        return "uniform";
    case InstrClass::Mufu:
        return "mufu";
    case InstrClass::Conversion:
        return "conversion";
    case InstrClass::Tensor:
        return "tensor";
    case InstrClass::LoadGlobal:
        return "load_global";
    case InstrClass::StoreGlobal:
        return "store_global";
    case InstrClass::LoadShared:
        return "load_shared";
    case InstrClass::StoreShared:
        return "store_shared";
    case InstrClass::LoadLocal:
        return "load_local";
    case InstrClass::StoreLocal:
        return "store_local";
    case InstrClass::AsyncCopy:
        return "async_copy";
    case InstrClass::Atomic:
        return "atomic";
    case InstrClass::LoadConst:
        return "load_const";
    case InstrClass::Texture:
        return "texture";
    case InstrClass::SpecialReg:
        return "special_reg";
    case InstrClass::Shuffle:
        return "shuffle";
    case InstrClass::Barrier:
        return "barrier";
    case InstrClass::Branch:
        return "branch";
    case InstrClass::Nop:
        return "nop";
    case InstrClass::Other:
        return "other";
    }
    return "other";
}

void applySemantics(Instruction& ins, int sm)
{
    const std::string& base = ins.baseOpcode;
    auto it = opTable().find(base);
    if (it != opTable().end()) {
        ins.cls = it->second.cls;
        ins.variableLatency = it->second.variableLatency;
        ins.opaque = false;
    } else {
        ins.cls = InstrClass::Other;
        ins.variableLatency = true; // unknown: assume the worst
        ins.opaque = true;
    }
    // Warp-level MMA without a write scoreboard is scheduled by ptxas with stall counts (fixed
    // latency on sm_80+): treat it so, keeping ptxas' distances (the table does not know them).
    if ((base == "HMMA" || base == "IMMA" || base == "DMMA" || base == "BMMA") &&
        ins.control.wbar == kNoBarrier)
        ins.variableLatency = false;
    // IMAD.MOV / IMAD.SHL / IMAD.IADD are ALU; IMAD.WIDE runs on the FMA-heavy pipe but is fixed latency.
    if (ins.cls == InstrClass::Barrier && (base == "BSSY" || base == "BSYNC" || base == "BREAK"))
        ins.cls = InstrClass::Branch;
    if (base == "CS2R" && !ins.operands.empty() && ins.operands.size() > 1 &&
        ins.operands[1].text.starts_with("SR_")) {
        ins.cls = InstrClass::SpecialReg; // clock reads: keep as special
    }

    auto& ops = ins.operands;
    RegList defs, uses;
    if (ins.guard) uses.push_back(*ins.guard);

    // --- widths from modifiers
    int dataWidth = 1;
    for (const auto& m : ins.modifiers) {
        if (m == "64")
            dataWidth = 2;
        else if (m == "128")
            dataWidth = 4;
    }
    const bool isMemoryOp = ins.cls == InstrClass::LoadGlobal || ins.cls == InstrClass::StoreGlobal ||
                            ins.cls == InstrClass::LoadShared || ins.cls == InstrClass::StoreShared ||
                            ins.cls == InstrClass::LoadLocal || ins.cls == InstrClass::StoreLocal ||
                            ins.cls == InstrClass::Atomic || ins.cls == InstrClass::LoadConst;
    ins.memoryBits = 32 * dataWidth;
    for (const auto& m : ins.modifiers) {
        if (m == "U8" || m == "S8")
            ins.memoryBits = isMemoryOp ? 8 : ins.memoryBits;
        else if (m == "U16" || m == "S16")
            ins.memoryBits = isMemoryOp ? 16 : ins.memoryBits;
    }

    // Per-operand widths, computed per opcode family.
    std::vector<int> width(ops.size(), 1);
    auto regIndices = [&] {
        std::vector<size_t> idx;
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == Operand::Kind::Register &&
                (ops[i].reg ? (ops[i].reg->file == RegFile::R || ops[i].reg->file == RegFile::UR)
                            : (ops[i].text.starts_with("R") || ops[i].text.starts_with("UR"))))
                idx.push_back(i);
        return idx;
    };
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == Operand::Kind::Register) width[i] = ops[i].regWidth;

    if (base == "LDSM" || base == "STSM") {
        int n = 1;
        for (const auto& m : ins.modifiers)
            if (m == "2")
                n = 2;
            else if (m == "4")
                n = 4;
        auto r = regIndices();
        if (!r.empty()) width[r[0]] = n;
        if (base == "STSM" && r.size() > 0) width[r.back()] = n;
    } else if (isMemoryOp || ins.cls == InstrClass::AsyncCopy) {
        // Data registers take the access width; address registers carry their own (.64) width.
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == Operand::Kind::Register && ops[i].reg && ops[i].reg->file != RegFile::P &&
                ops[i].reg->file != RegFile::UP)
                width[i] = std::max<int>(width[i], dataWidth);
    } else if (base == "HMMA" || base == "IMMA" || base == "DMMA") {
        auto w = mmaWidths(ins);
        auto r = regIndices();
        int ws[] = {w.d, w.a, w.b, w.c};
        for (size_t k = 0; k < r.size() && k < 4; ++k)
            width[r[k]] = ws[k];
    } else if (base.size() > 4 && base.ends_with("GMMA")) {
        int acc = gmmaAccumulatorWidth(ins);
        auto r = regIndices();
        // Rd, [Ra (A from registers)], gdesc[...], Rc: the first and last R operands are accumulators.
        if (!r.empty()) width[r[0]] = acc;
        if (r.size() >= 2) width[r.back()] = acc;
        if (r.size() >= 3) width[r[1]] = 4;
        for (auto& op : ops)
            if (op.kind == Operand::Kind::Memory && op.memDescriptor)
                op.memUniformWidth = 2; // gdesc[URa]: two 64-bit descriptors (A, B)
    } else if (base == "DADD" || base == "DFMA" || base == "DMUL" || base == "DMNMX" || base == "DSETP" ||
               base == "DSET") {
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == Operand::Kind::Register && ops[i].reg && ops[i].reg->file == RegFile::R)
                width[i] = 2;
    } else if (ins.cls == InstrClass::Conversion) {
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
        if (base == "FRND") dw = sw = types.empty() ? 1 : typeWidth(types[0]);
        auto r = regIndices();
        for (size_t k = 0; k < r.size(); ++k)
            width[r[k]] = k == 0 ? dw : sw;
    } else if (base == "IMAD" || base == "UIMAD") {
        if (hasModifier(ins, "WIDE")) {
            auto r = regIndices();
            if (!r.empty()) width[r[0]] = 2;
            // Rc is the third source operand (index 3 counting the dest), possibly after carry predicates.
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
    } else if (base == "RET") {
        auto r = regIndices();
        if (!r.empty()) width[r[0]] = 2; // 64-bit return address
    } else if (base == "CS2R") {
        if (!hasModifier(ins, "32")) {
            auto r = regIndices();
            if (!r.empty()) width[r[0]] = 2;
        }
    } else if (dataWidth > 1 && (base == "ULDC" || base == "LDC" || base == "LDCU" || base == "S2UR" ||
                                 base == "UMOV" || base == "R2UR")) {
        auto r = regIndices();
        if (!r.empty()) width[r[0]] = dataWidth;
    } else if (dataWidth == 2 && (base == "IADD" || base == "MOV" || base == "UIADD3" || base == "UMOV" ||
                                  base == "SEL" || base == "USEL")) {
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == Operand::Kind::Register && ops[i].reg &&
                (ops[i].reg->file == RegFile::R || ops[i].reg->file == RegFile::UR))
                width[i] = 2;
    }

    // --- which operands are written
    std::vector<bool> isDef(ops.size(), false);
    auto isPred = [&](size_t i) {
        const auto& o = ops[i];
        if (o.kind != Operand::Kind::Register) return false;
        if (o.reg) return o.reg->file == RegFile::P || o.reg->file == RegFile::UP;
        std::string t = o.text;
        while (!t.empty() && (t[0] == '!' || t[0] == '-'))
            t.erase(0, 1);
        return t.starts_with("PT") || t.starts_with("UPT");
    };
    if (!ops.empty() && !writesNoFirstOperand(base)) {
        size_t i = 0;
        while (i < ops.size() && isPred(i))
            ++i;
        if (i > 0) {
            // Leading predicates are outputs: xSETP/PLOP3 write two, FCHK one; others then write a register.
            size_t n = base == "FCHK" ? 1 : std::min<size_t>(i, 2);
            for (size_t k = 0; k < n; ++k)
                isDef[k] = true;
            if (!isSetpFamily(base) && n < ops.size() && ops[n].kind == Operand::Kind::Register)
                isDef[n] = true;
        } else if (ops[0].kind == Operand::Kind::Register) {
            isDef[0] = true;
            // Carry-out predicates right after the destination (IADD3 R2, P0, P1, ...; LEA R2, P0, ...).
            if (base != "VOTE" && base != "VOTEU") {
                for (size_t k = 1; k < ops.size() && isPred(k) && k < ops.size() - 1; ++k)
                    isDef[k] = true;
            } else if (ops.size() > 1 && isPred(1)) {
                isDef[1] = true;
            }
        }
    }
    if (base == "BSSY" || base == "BMOV" || base == "R2B") {
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == Operand::Kind::Register && ops[i].reg && ops[i].reg->file == RegFile::B)
                isDef[i] = true;
    }

    for (size_t i = 0; i < ops.size(); ++i) {
        const auto& op = ops[i];
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
    if (base == "P2R" || base == "UP2UR") {
        for (uint16_t p = 0; p < 7; ++p)
            uses.push_back(Reg{base == "P2R" ? RegFile::P : RegFile::UP, p});
    }
    if (base == "R2P" || base == "UR2UP") {
        for (uint16_t p = 0; p < 7; ++p)
            defs.push_back(Reg{base == "R2P" ? RegFile::P : RegFile::UP, p});
    }
    if (base == "CALL") // ABI: the callee returns in R0-R3 (and may clobber more; calls end blocks anyway)
        for (uint16_t r = 0; r < 4; ++r)
            defs.push_back(Reg{RegFile::R, r});
    dedupe(defs);
    dedupe(uses);
    ins.defs = std::move(defs);
    ins.uses = std::move(uses);
    (void)sm;
}

} // namespace sassx
