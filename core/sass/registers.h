#pragma once
// Architectural registers as dependency analysis sees them: one entry per 32-bit register
// (wide operands are expanded), plus predicates, uniform files and convergence barriers.
#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

enum class RegFile : uint8_t
{
    R,
    UR,
    P,
    UP,
    B
};

struct Reg
{
    RegFile file = RegFile::R;
    uint16_t index = 0;

    std::string name() const; // "R12", "UR4", "P0", "UP1", "B0"
    auto operator<=>(const Reg&) const = default;
    // Dense key for bitsets / tables: R 0-255, UR 256-319, P 320-327, UP 328-335, B 336-351.
    uint16_t key() const;
    static constexpr int kKeyCount = 352;
    static Reg fromKey(uint16_t key);
};

// The zero / true registers (RZ, URZ, PT, UPT) are not dependencies and never appear in defs/uses.
constexpr uint16_t kRZ = 255;
constexpr uint16_t kURZ = 63;
constexpr uint16_t kPT = 7;

using RegList = std::vector<Reg>;

} // namespace sassx
