#include "core/analysis/yield_evidence.h"

#include <array>
#include <cstring>
#include <vector>

namespace sassx {
namespace {

// One row per class the probes cover (bench/yield/classes/README.md lists their kernels). A row whose
// measurement found a changed gap, scoreboard or result, or that was not run, stays unsafe and says so.
struct Row
{
    std::array<Op, 2> opcodes; // Op::Unknown: no further opcode
    YieldClassEvidence evidence;
};

// Measured on an H200 (docs/status.md, "Yield flips per class"): at stalls 2, 6, 11 and ptxas'
// own, one warp's issue gap was the same under both bits (MUFU within 0.23 cycles, longer with Y0) and
// never below the stall; flipping the bit on every instruction of the class in a kernel that consumes
// the results left every output bit-identical on 3 input sets x {1 warp, 1 block of 256, 2 blocks of
// 1024 per SM}. BAR, DEPBAR and MEMBAR are walls: ControlRules refuses them before this table.
const std::array<Row, 14>& rows()
{
    static const std::array<Row, 14> table{{
        {{Op::MUFU}, {"MUFU", true, false, kYieldClassRow, ""}},
        {{Op::LDG}, {"LDG", true, false, kYieldClassRow, ""}},
        {{Op::STG}, {"STG", true, false, kYieldClassRow, ""}},
        {{Op::LDS}, {"LDS", true, false, kYieldClassRow, ""}},
        {{Op::STS}, {"STS", true, false, kYieldClassRow, ""}},
        {{Op::LDGSTS}, {"LDGSTS", true, false, kYieldClassRow, ""}},
        {{Op::LDSM}, {"LDSM", true, false, kYieldClassRow, ""}},
        {{Op::CS2R}, {"CS2R", true, false, kYieldClassRow, ""}},
        {{Op::SHFL}, {"SHFL", true, false, kYieldClassRow, ""}},
        {{Op::HMMA}, {"HMMA", true, false, kYieldClassRow, ""}},
        {{Op::DEPBAR}, {"DEPBAR", true, false, kYieldClassRow, ""}},
        {{Op::BAR}, {"BAR", true, false, kYieldClassRow, ""}},
        {{Op::MEMBAR}, {"MEMBAR", true, false, kYieldClassRow, ""}},
        // The probe's S2R run is latency-bound (each read waits for the one before), so its issue gap
        // was not measured, though its results were unchanged.
        {{Op::S2R, Op::S2UR},
         {"S2R", false, false, kYieldClassRow, "its issue gap (the probe's S2R run is latency-bound)"}},
    }};
    return table;
}

} // namespace

std::string citeEvidence(const EvidenceRow& row, const std::string& detail)
{
    return std::string("docs/status.md, \"") + row.name + "\": " + (detail.empty() ? "" : detail + ", ") +
           row.device;
}

const YieldClassEvidence& yieldEvidenceFor(const Instruction& ins)
{
    // Fixed-latency ALU and FMA operations: the gap, every read-after-write bound and the results were
    // measured under both bits at stalls 1-11 (reuse flags with Y0: reuseUnderY0EvidenceFor).
    static const YieldClassEvidence fixedAluFma{"fixed-latency ALU/FMA", true, true, kYieldFixedRow, ""};
    // Other fixed-latency instructions (uniform datapath, fixed-latency MMA): the issue gap is the same
    // measured gap.
    static const YieldClassEvidence fixedOther{"fixed-latency", true, true, kYieldFixedRow, ""};
    // ALU/FMA first: CS2R of a zero register is one (CS2R of the clock is a special-register read).
    const bool fixed = !ins.variableLatency && !ins.opaque;
    if (fixed && (ins.cls == InstrClass::Alu || ins.cls == InstrClass::Fma)) return fixedAluFma;
    for (const auto& row : rows())
        for (Op op : row.opcodes)
            if (op != Op::Unknown && op == ins.op) return row.evidence;
    if (fixed) return fixedOther;
    static const YieldClassEvidence unmeasured{"", false, false, {}, ""};
    return unmeasured;
}

namespace {

// Bits of ReuseUnderY0Evidence's masks: M(a) is mask Ra, M(a | c) mask Ra+Rc.
constexpr uint8_t M(int mask)
{
    return uint8_t(1u << mask);
}
constexpr int a = 1, b = 2, c = 4;

struct ReuseRow
{
    std::array<const char*, 1> opcodes; // opcode prefixes: "IMAD" covers IMAD.HI, "IMAD.WIDE" its own forms
    ReuseUnderY0Evidence evidence;
};

// One row per class of the probe (bench/yield/reuse/README.md lists its kernels and the forms each
// covered). The masks are those that ran with Y0 in every launch shape with every output bit-identical
// (results file, "Verdicts per class × mask"); no mask of any class changed a result, faulted or hung.
// nvdisasm rejects Rb+Rc and Ra+Rb+Rc under Y0 on every class (the encoding gate refuses them first),
// and a mask whose slots hold no register on a class was not run. HMMA: only the m16n8k8 form was run.
const std::vector<ReuseRow>& reuseRows()
{
    static const std::vector<ReuseRow> table{
        {{"FFMA"}, {"FFMA", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"FMUL"}, {"FMUL", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"FADD"}, {"FADD", M(a) | M(c) | M(a | c), 0, kReuseUnderY0Row}},
        {{"IMAD"}, {"IMAD", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"IMAD.WIDE"}, {"IMAD.WIDE", M(b), 0, kReuseUnderY0Row}},
        {{"IDP"}, {"IDP", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"LEA"}, {"LEA", M(a) | M(b), 0, kReuseUnderY0Row}},
        {{"IADD3"}, {"IADD3", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"LOP3"}, {"LOP3", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"SHF"}, {"SHF", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"VIADD"}, {"VIADD", M(a), 0, kReuseUnderY0Row}},
        {{"ISETP"}, {"ISETP", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"FSETP"}, {"FSETP", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"FSEL"}, {"FSEL", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"SEL"}, {"SEL", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"FMNMX"}, {"FMNMX", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"VIMNMX"}, {"VIMNMX", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"PRMT"}, {"PRMT", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"F2FP"}, {"F2FP", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"I2FP"}, {"I2FP", M(b), 0, kReuseUnderY0Row}},
        {{"HFMA2"}, {"HFMA2", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"HADD2"}, {"HADD2", M(a) | M(c), 0, kReuseUnderY0Row}},
        {{"HMUL2"}, {"HMUL2", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"HMNMX2"}, {"HMNMX2", M(a) | M(b) | M(a | b), 0, kReuseUnderY0Row}},
        {{"HSETP2"}, {"HSETP2", M(a) | M(c) | M(a | c), 0, kReuseUnderY0Row}},
        {{"DFMA"}, {"DFMA", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseUnderY0Row}},
        {{"HMMA.1688"}, {"HMMA", M(a), 0, kReuseUnderY0Row}},
    };
    return table;
}

// The prefix matches the full opcode at a modifier boundary: "IMAD" matches "IMAD.HI.U32" and
// "IMAD.WIDE.U32", "IMAD.WIDE" only the latter.
bool opcodeHasPrefix(const std::string& opcode, const char* prefix)
{
    const size_t n = std::strlen(prefix);
    return opcode.compare(0, n, prefix) == 0 && (opcode.size() == n || opcode[n] == '.');
}

} // namespace

const ReuseUnderY0Evidence& reuseUnderY0EvidenceFor(const Instruction& ins)
{
    static const ReuseUnderY0Evidence none{};
    // The probe ran fixed-latency forms: a variable-latency form reads its operands later.
    if (ins.variableLatency || ins.opaque) return none;
    // The longest prefix wins (IMAD.WIDE over IMAD).
    const ReuseUnderY0Evidence* best = &none;
    size_t bestLength = 0;
    for (const auto& row : reuseRows())
        for (const char* op : row.opcodes)
            if (op && opcodeHasPrefix(ins.opcode, op) && std::strlen(op) > bestLength) {
                best = &row.evidence;
                bestLength = std::strlen(op);
            }
    return *best;
}

std::string reuseMaskName(uint8_t mask)
{
    std::string out;
    for (int slot = 0; slot < 3; ++slot)
        if ((mask >> slot) & 1) out += std::string(out.empty() ? "" : "+") + "R" + char('a' + slot);
    return out.empty() ? "none" : out;
}

} // namespace sassx
