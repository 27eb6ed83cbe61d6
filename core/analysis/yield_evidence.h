#pragma once
// What was measured about the yield bit, per instruction class: the rows the yield rule
// (ControlRules::yieldRefusal) and the reuse-with-Y0 rule cite. A class without a row that says "safe"
// keeps ptxas' bit, and its refusal names the measurement that is missing by the evidence row it cites.
// The measurements are docs/status.md's "Yield flips per class" (fixed-latency ALU/FMA, then the
// variable-latency and special classes; methods in bench/yield/README.md and
// bench/yield/classes/README.md) and "Reuse flags kept under Y0, per class and mask" (method in
// bench/yield/reuse/README.md).
#include "core/sass/instruction.h"

#include <string>

namespace sassx {

// A row of docs/status.md's evidence tables, by its name (the first column, which stays when a later run
// replaces the row's figures) and the device it was measured on. User-visible text cites rows, never
// result files, so that it stays true when a run supersedes a row.
struct EvidenceRow
{
    const char* name = ""; // "Yield flips per class"
    const char* device = "";
};

inline constexpr EvidenceRow kYieldFixedRow{"Yield flips per class", "H100"}; // fixed-latency ALU/FMA
inline constexpr EvidenceRow kYieldClassRow{"Yield flips per class", "H200"}; // every other class
inline constexpr EvidenceRow kReuseUnderY0Row{"Reuse flags kept under Y0, per class and mask", "H200"};

// `docs/status.md, "Yield flips per class": MUFU, H200`: the row, what of it applies (a class, a mask;
// none where `detail` is empty), and the device.
std::string citeEvidence(const EvidenceRow& row, const std::string& detail);

struct YieldClassEvidence
{
    const char* name = ""; // "MUFU", "fixed-latency ALU/FMA", ...
    bool flipSafe = false; // at stall 1-11 the flip leaves the issue gap, scoreboards and results
    // A Y0 → Y1 flip at stall 1 shortens the gap from 2 cycles to 1. Measured harmless on fixed-latency
    // ALU/FMA; loads issued 1 cycle apart faulted (LDG, LDS, LDSM, LDGSTS), so on the other classes
    // only the Y1 → Y0 direction is allowed at stall 1.
    bool stallOneToY1Safe = false;
    EvidenceRow cites;        // the evidence row that says so (cited with the class name)
    const char* missing = ""; // what was not measured, for a class that stays refused
};

// The row that covers this instruction (by opcode and latency class).
const YieldClassEvidence& yieldEvidenceFor(const Instruction& ins);

// Operand-reuse flags kept under a cleared yield bit (Y0), a pairing ptxas never writes and nvdisasm
// prints without the `.reuse` marks, per opcode class and reuse mask. A mask is a 3-bit value (Ra 1,
// Rb 2, Rc 4); bit m of safeMasks / unsafeMasks stands for mask m. Measured by the probe family of
// bench/yield/reuse (many resident warps per scheduler with their own values in the reused registers,
// reuse chains on each slot, Y0 between the chain's instructions): a mask is safe where every output was
// bit-identical in every launch shape, unsafe where any result changed, a launch faulted or hung.
struct ReuseUnderY0Evidence
{
    const char* name = "";   // the probe's class: "FFMA", "IMAD", ...
    uint8_t safeMasks = 0;   // measured: results unchanged in every launch shape
    uint8_t unsafeMasks = 0; // measured: a changed result, a fault or a hang (stays refused)
    EvidenceRow cites;       // the evidence row (cited with the class name and the mask)
};

// The row of this instruction's class (by base opcode; fixed-latency forms only), or an empty row
// (name "") for a class the probe did not cover.
const ReuseUnderY0Evidence& reuseUnderY0EvidenceFor(const Instruction& ins);

// "Ra+Rc": how refusals and notes name a reuse mask.
std::string reuseMaskName(uint8_t mask);

} // namespace sassx
