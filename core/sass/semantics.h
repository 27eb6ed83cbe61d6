#pragma once
// Per-opcode operand semantics: which registers an instruction reads and writes (widths expanded,
// hidden operands included), its class, and whether its result is guarded by a scoreboard. The opcode's
// row (core/sass/opcode.h) comes from parsing; unknown opcodes get the default rule and are marked
// opaque so the move checker treats them as walls.
#include "core/sass/instruction.h"

namespace sassx {

void applySemantics(Instruction& ins, int sm);

} // namespace sassx
