#pragma once
// An instruction as written with the control bits a schedule gives it: nvdisasm's text, its `.reuse`
// marks following the reuse flags of those bits rather than ptxas' own. The listing, the diff dock, the
// diff exports and `annotate` all write instructions through it, so no view shows ptxas' marks on a word
// whose flags were edited.
//
// Under a cleared yield bit nvdisasm prints no `.reuse` marks (core/sass/encoding_gate.h), yet the flags
// stay in the word and the same word with Y1 prints every one. The text marks them as `.reuse*`: the
// operand's flag is in the word (as the Reuse field's letters say), and the '*' (the one the Reuse field
// ends with, core/sass/control_text.h) says that nvdisasm prints no mark there. One notation for the
// listing, `annotate`, the diffs and the exports, which all write through here.
#include "core/sass/control.h"
#include "core/sass/instruction.h"

#include <string>

namespace sassx {

// The register number in reuse slot `slot`'s encoding field: Ra bits 24-31, Rb bits 32-39, Rc bits
// 64-71 (docs/sass-facts.md §1; 255 = RZ). Whether the field holds a register depends on the form.
int reuseFieldRegister(const Instruction& ins, int slot);

// The operands as printed, with `.reuse` marks for exactly the flags of `c` (Ra, Rb, Rc; the reserved
// fourth is never printed), `.reuse*` under Y0. A flag ptxas set is marked where nvdisasm printed it; another
// one on the printed source operand holding the slot's register. A flag with no such operand stays unmarked
// (the Reuse column still shows it).
std::string operandText(const Instruction& ins, const Control& c);
// "@P0 FFMA R93, R38, R41, R93": predicate, opcode and operandText(ins, c).
std::string instructionText(const Instruction& ins, const Control& c);

} // namespace sassx
