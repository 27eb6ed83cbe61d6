#pragma once
// The one written form of control bits, used by the annotated listing (CLI and golden files), the GUI's
// diff view and listing columns, and the HTML and text diffs: "S01 Y1 W- R2 -1---- a--".
// stall S00-S15, yield Y0/Y1, write and read scoreboard W0-W5/W- and R0-R5/R-, the wait mask as six
// places (SB k waited: the digit k, else '-'), reuse flags as three places for Ra, Rb, Rc (a, b, c or
// '-'; the reserved fourth flag adds a 'd' when set, and flags under Y0 a '*': they are in the word, but
// nvdisasm prints no `.reuse` marks there; sassx's instruction text marks those operands `.reuse*`,
// core/sass/instruction_text.h).
#include "core/sass/control.h"

#include <string>

namespace sassx {

struct ControlFieldTexts
{
    std::string stall, yield, wbar, rbar, wait, reuse;
};

ControlFieldTexts controlFieldTexts(const Control& c);
std::string controlText(const Control& c); // the fields joined by single spaces

} // namespace sassx
