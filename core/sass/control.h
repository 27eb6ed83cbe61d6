#pragma once
// Control bits in the high word of every sm_70+ instruction (docs/sass-facts.md §1).
#include <cstdint>

namespace sassx {

constexpr int kNoBarrier = 7;

struct Control
{
    uint8_t stall = 0;         // cycles before the next issue, 0..15 (bits 105-108)
    uint8_t yield = 0;         // bit 109, kept as printed: tools disagree on its polarity
    uint8_t wbar = kNoBarrier; // write scoreboard set (7 = none)
    uint8_t rbar = kNoBarrier; // read scoreboard set (7 = none)
    uint8_t wait = 0;          // bit k: wait for SBk
    uint8_t reuse = 0;         // bit 0 Ra, 1 Rb, 2 Rc, 3 reserved

    static Control decode(uint64_t hi)
    {
        Control c;
        c.stall = (hi >> 41) & 0xF;
        c.yield = (hi >> 45) & 1;
        c.wbar = (hi >> 46) & 7;
        c.rbar = (hi >> 49) & 7;
        c.wait = (hi >> 52) & 0x3F;
        c.reuse = (hi >> 58) & 0xF;
        return c;
    }
    // Writes these fields into hi, leaving all other bits untouched.
    uint64_t encode(uint64_t hi) const
    {
        constexpr uint64_t mask = 0x1FFFFFull
                                  << 41; // 21 bits: stall 4, yield 1, wbar 3, rbar 3, wait 6, reuse 4
        hi &= ~mask;
        hi |= uint64_t(stall & 0xF) << 41 | uint64_t(yield & 1) << 45 | uint64_t(wbar & 7) << 46 |
              uint64_t(rbar & 7) << 49 | uint64_t(wait & 0x3F) << 52 | uint64_t(reuse & 0xF) << 58;
        return hi;
    }
    bool waitsOn(int sb) const { return (wait >> sb) & 1; }
    bool operator==(const Control&) const = default;
};

} // namespace sassx
