#pragma once
// The checker and the control rules name an instruction as instructionAt writes it (control_rules.h):
// its opcode and ptxas' address, "LDG.E.128 at 0x0240", which is also what the CLI's input cubin shows.
// A message about a variant must name it by the address the variant gives it (position × 16 in the
// variant's order), the one the listing shows; once moves have shifted instructions the two differ.
#include "core/rewrite/variant.h"

#include <string>

namespace sassx {

struct KernelAnalysis;

// `message` with every "<opcode> at 0x<ptxas' address>" of an instruction of the kernel rewritten to
// that instruction's address in `shown`. Anything else (an address that is no instruction's, or not
// preceded by that instruction's opcode) stays as it is.
std::string withScheduleAddresses(const std::string& message, const KernelAnalysis& a, const Schedule& shown);

} // namespace sassx
