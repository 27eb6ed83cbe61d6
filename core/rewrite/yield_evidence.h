#pragma once
// What was measured about the yield bit, per instruction class: the rows the yield rule
// (ControlRules::yieldRefusal) and the reuse-with-Y0 rule cite. A class without a row that says "safe"
// keeps ptxas' bit, and its refusal names the measurement that is missing. The measurements:
// bench/results/yield-semantics-h100-2026-11-22.md (fixed-latency ALU/FMA) and
// bench/results/yield-classes-h200-2026-11-26.md (the variable-latency and special classes, yield with
// reuse flags), method in bench/yield/README.md and bench/yield/classes/README.md.
#include "core/sass/instruction.h"

#include <string>

namespace sassx {

struct YieldClassEvidence
{
    const char* name = "";        // "MUFU", "fixed-latency ALU/FMA", ...
    bool flipSafe = false;        // at stall 1-11 the flip leaves the issue gap, scoreboards and results
    bool reuseWithY0Safe = false; // Y0 together with reuse flags computes what Y1 does
    // A Y0 → Y1 flip at stall 1 shortens the gap from 2 cycles to 1. Measured harmless on fixed-latency
    // ALU/FMA; loads issued 1 cycle apart faulted (LDG, LDS, LDSM, LDGSTS), so on the other classes
    // only the Y1 → Y0 direction is allowed at stall 1.
    bool stallOneToY1Safe = false;
    const char* source = "";  // the results file (and row) that says so
    const char* missing = ""; // what was not measured, for a class that stays refused
};

// The row that covers this instruction (by opcode and latency class).
const YieldClassEvidence& yieldEvidenceFor(const Instruction& ins);

} // namespace sassx
