#include "core/analysis/yield_evidence.h"

#include <array>
#include <cstring>
#include <vector>

namespace sassx {
namespace {

constexpr const char* kFixedSource = "bench/results/yield-semantics-h100-2026-11-22.md";
constexpr const char* kClassSource = "bench/results/yield-classes-h200-2026-11-26.md";

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
        {{Op::MUFU}, {"MUFU", true, false, kClassSource, ""}},
        {{Op::LDG}, {"LDG", true, false, kClassSource, ""}},
        {{Op::STG}, {"STG", true, false, kClassSource, ""}},
        {{Op::LDS}, {"LDS", true, false, kClassSource, ""}},
        {{Op::STS}, {"STS", true, false, kClassSource, ""}},
        {{Op::LDGSTS}, {"LDGSTS", true, false, kClassSource, ""}},
        {{Op::LDSM}, {"LDSM", true, false, kClassSource, ""}},
        {{Op::CS2R}, {"CS2R", true, false, kClassSource, ""}},
        {{Op::SHFL}, {"SHFL", true, false, kClassSource, ""}},
        {{Op::HMMA}, {"HMMA", true, false, kClassSource, ""}},
        {{Op::DEPBAR}, {"DEPBAR", true, false, kClassSource, ""}},
        {{Op::BAR}, {"BAR", true, false, kClassSource, ""}},
        {{Op::MEMBAR}, {"MEMBAR", true, false, kClassSource, ""}},
        // The probe's S2R run is latency-bound (each read waits for the one before), so its issue gap
        // was not measured, though its results were unchanged.
        {{Op::S2R, Op::S2UR},
         {"S2R", false, false, kClassSource, "its issue gap (the probe's S2R run is latency-bound)"}},
    }};
    return table;
}

} // namespace

const YieldClassEvidence& yieldEvidenceFor(const Instruction& ins)
{
    // Fixed-latency ALU and FMA operations: the gap, every read-after-write bound and the results were
    // measured under both bits at stalls 1-11 (reuse flags with Y0: reuseUnderY0EvidenceFor).
    static const YieldClassEvidence fixedAluFma{"fixed-latency ALU/FMA", true, true, kFixedSource, ""};
    // Other fixed-latency instructions (uniform datapath, fixed-latency MMA): the issue gap is the same
    // measured gap.
    static const YieldClassEvidence fixedOther{"fixed-latency", true, true, kFixedSource, ""};
    // ALU/FMA first: CS2R of a zero register is one (CS2R of the clock is a special-register read).
    const bool fixed = !ins.variableLatency && !ins.opaque;
    if (fixed && (ins.cls == InstrClass::Alu || ins.cls == InstrClass::Fma)) return fixedAluFma;
    for (const auto& row : rows())
        for (Op op : row.opcodes)
            if (op != Op::Unknown && op == ins.op) return row.evidence;
    if (fixed) return fixedOther;
    static const YieldClassEvidence unmeasured{"", false, false, "", ""};
    return unmeasured;
}

namespace {

constexpr const char* kReuseSource = "bench/results/yield-reuse-h200-2026-11-28.md";

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
        {{"FFMA"}, {"FFMA", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"FMUL"}, {"FMUL", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"FADD"}, {"FADD", M(a) | M(c) | M(a | c), 0, kReuseSource}},
        {{"IMAD"}, {"IMAD", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"IMAD.WIDE"}, {"IMAD.WIDE", M(b), 0, kReuseSource}},
        {{"IDP"}, {"IDP", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"LEA"}, {"LEA", M(a) | M(b), 0, kReuseSource}},
        {{"IADD3"}, {"IADD3", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"LOP3"}, {"LOP3", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"SHF"}, {"SHF", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"VIADD"}, {"VIADD", M(a), 0, kReuseSource}},
        {{"ISETP"}, {"ISETP", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"FSETP"}, {"FSETP", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"FSEL"}, {"FSEL", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"SEL"}, {"SEL", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"FMNMX"}, {"FMNMX", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"VIMNMX"}, {"VIMNMX", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"PRMT"}, {"PRMT", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"F2FP"}, {"F2FP", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"I2FP"}, {"I2FP", M(b), 0, kReuseSource}},
        {{"HFMA2"}, {"HFMA2", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"HADD2"}, {"HADD2", M(a) | M(c), 0, kReuseSource}},
        {{"HMUL2"}, {"HMUL2", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"HMNMX2"}, {"HMNMX2", M(a) | M(b) | M(a | b), 0, kReuseSource}},
        {{"HSETP2"}, {"HSETP2", M(a) | M(c) | M(a | c), 0, kReuseSource}},
        {{"DFMA"}, {"DFMA", M(a) | M(b) | M(c) | M(a | b) | M(a | c), 0, kReuseSource}},
        {{"HMMA.1688"}, {"HMMA", M(a), 0, kReuseSource}},
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
