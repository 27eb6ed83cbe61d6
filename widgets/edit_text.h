#pragma once
// An edit in the listing's own terms, for messages (refusals, "Done: …", undo entries): instructions are
// named by their opcode and their address in the variant shown (as the Address column writes it), not by
// the position indices core's Edit::describe uses for files and the CLI.
#include "core/session/variant_record.h"

#include <QString>

namespace sassx {
class VariantTree;

// "move LDG.E.128 at 0120 to 00f0", "yield of FFMA at 0340 = 0"; falls back to Edit::describe when no
// kernel is open or a position is out of range.
QString describeEdit(const VariantTree& variants, const Edit& edit);

} // namespace sassx
