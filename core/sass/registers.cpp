#include "core/sass/registers.h"

namespace sassx {

std::string Reg::name() const
{
    switch (file) {
    case RegFile::R:
        return "R" + std::to_string(index);
    case RegFile::UR:
        return "UR" + std::to_string(index);
    case RegFile::P:
        return "P" + std::to_string(index);
    case RegFile::UP:
        return "UP" + std::to_string(index);
    case RegFile::B:
        return "B" + std::to_string(index);
    }
    return "?";
}

uint16_t Reg::key() const
{
    switch (file) {
    case RegFile::R:
        return index & 0xFF;
    case RegFile::UR:
        return 256 + (index & 0x3F);
    case RegFile::P:
        return 320 + (index & 7);
    case RegFile::UP:
        return 328 + (index & 7);
    case RegFile::B:
        return 336 + (index & 0xF);
    }
    return 0;
}

Reg Reg::fromKey(uint16_t key)
{
    if (key < 256) return {RegFile::R, key};
    if (key < 320) return {RegFile::UR, uint16_t(key - 256)};
    if (key < 328) return {RegFile::P, uint16_t(key - 320)};
    if (key < 336) return {RegFile::UP, uint16_t(key - 328)};
    return {RegFile::B, uint16_t(key - 336)};
}

} // namespace sassx
