#include "core/sass/control_text.h"

namespace sassx {

ControlFieldTexts controlFieldTexts(const Control& c)
{
    ControlFieldTexts t;
    t.stall = std::string("S") + char('0' + c.stall / 10) + char('0' + c.stall % 10);
    t.yield = std::string("Y") + char('0' + (c.yield & 1));
    auto sb = [](char prefix, uint8_t b) {
        return std::string(1, prefix) + (b == kNoBarrier ? '-' : char('0' + (b & 7)));
    };
    t.wbar = sb('W', c.wbar);
    t.rbar = sb('R', c.rbar);
    for (int k = 0; k < 6; ++k)
        t.wait += c.waitsOn(k) ? char('0' + k) : '-';
    for (int k = 0; k < 3; ++k)
        t.reuse += (c.reuse >> k) & 1 ? char('a' + k) : '-';
    if ((c.reuse >> 3) & 1) t.reuse += 'd';
    // Flags kept under Y0: in the word, though nvdisasm prints no `.reuse` marks there.
    if ((c.reuse & 7) && !(c.yield & 1)) t.reuse += '*';
    return t;
}

std::string controlText(const Control& c)
{
    const ControlFieldTexts t = controlFieldTexts(c);
    return t.stall + ' ' + t.yield + ' ' + t.wbar + ' ' + t.rbar + ' ' + t.wait + ' ' + t.reuse;
}

} // namespace sassx
