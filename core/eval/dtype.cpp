#include "core/eval/dtype.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace sassx::eval {

namespace {
struct Entry
{
    std::string_view name;
    DType type;
    size_t size;
};
constexpr Entry kTypes[] = {
    {"f16", DType::F16, 2}, {"bf16", DType::BF16, 2}, {"f32", DType::F32, 4}, {"f64", DType::F64, 8},
    {"i8", DType::I8, 1},   {"u8", DType::U8, 1},     {"i16", DType::I16, 2}, {"u16", DType::U16, 2},
    {"i32", DType::I32, 4}, {"u32", DType::U32, 4},   {"i64", DType::I64, 8}, {"u64", DType::U64, 8},
};

template <class T> T saturate(double v)
{
    if (std::isnan(v)) return T(0);
    const double lo = double(std::numeric_limits<T>::lowest());
    const double hi = double(std::numeric_limits<T>::max());
    if (v <= lo) return std::numeric_limits<T>::lowest();
    if (v >= hi) return std::numeric_limits<T>::max();
    return T(std::trunc(v));
}

template <class T> void put(void* dst, T v)
{
    std::memcpy(dst, &v, sizeof v);
}

template <class T> T get(const void* src)
{
    T v;
    std::memcpy(&v, src, sizeof v);
    return v;
}
} // namespace

std::optional<DType> parseDType(std::string_view name)
{
    for (const auto& e : kTypes)
        if (e.name == name) return e.type;
    return std::nullopt;
}

std::string_view dtypeName(DType t)
{
    for (const auto& e : kTypes)
        if (e.type == t) return e.name;
    return "?";
}

size_t dtypeSize(DType t)
{
    for (const auto& e : kTypes)
        if (e.type == t) return e.size;
    return 0;
}

bool isFloat(DType t)
{
    return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
}

bool isSigned(DType t)
{
    return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64;
}

uint16_t floatToHalf(float f)
{
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7fffffffu;
    if (absx > 0x7f800000u) return uint16_t(sign | 0x7e00u); // NaN (quiet)
    if (absx >= 0x477ff000u) {                               // rounds to >= 65520: inf
        return uint16_t(sign | 0x7c00u);
    }
    if (absx < 0x38800000u) { // below the smallest normal half: subnormal or zero
        // Scale into the subnormal grid (2^-24 steps) with the FPU's round-to-nearest-even.
        const float scaled = std::bit_cast<float>(absx) * 16777216.0f; // 2^24
        return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
    }
    const uint32_t mant = absx & 0x7fffffu;
    const uint32_t exp = (absx >> 23) - 127 + 15;
    uint32_t h = (exp << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h; // carry may roll into the exponent: fine
    return uint16_t(sign | h);
}

float halfToFloat(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        const float v = float(mant) / 16777216.0f; // mant * 2^-24
        return sign ? -v : v;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t floatToBf16(float f)
{
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u); // keep NaN a NaN
    const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return uint16_t((x + rounding) >> 16);
}

float bf16ToFloat(uint16_t b)
{
    return std::bit_cast<float>(uint32_t(b) << 16);
}

void storeValue(DType t, double v, void* dst)
{
    switch (t) {
    case DType::F16:
        put(dst, floatToHalf(float(v)));
        break;
    case DType::BF16:
        put(dst, floatToBf16(float(v)));
        break;
    case DType::F32:
        put(dst, float(v));
        break;
    case DType::F64:
        put(dst, v);
        break;
    case DType::I8:
        put(dst, saturate<int8_t>(v));
        break;
    case DType::U8:
        put(dst, saturate<uint8_t>(v));
        break;
    case DType::I16:
        put(dst, saturate<int16_t>(v));
        break;
    case DType::U16:
        put(dst, saturate<uint16_t>(v));
        break;
    case DType::I32:
        put(dst, saturate<int32_t>(v));
        break;
    case DType::U32:
        put(dst, saturate<uint32_t>(v));
        break;
    case DType::I64:
        put(dst, saturate<int64_t>(v));
        break;
    case DType::U64:
        put(dst, saturate<uint64_t>(v));
        break;
    }
}

double loadValue(DType t, const void* src)
{
    switch (t) {
    case DType::F16:
        return halfToFloat(get<uint16_t>(src));
    case DType::BF16:
        return bf16ToFloat(get<uint16_t>(src));
    case DType::F32:
        return get<float>(src);
    case DType::F64:
        return get<double>(src);
    case DType::I8:
        return get<int8_t>(src);
    case DType::U8:
        return get<uint8_t>(src);
    case DType::I16:
        return get<int16_t>(src);
    case DType::U16:
        return get<uint16_t>(src);
    case DType::I32:
        return get<int32_t>(src);
    case DType::U32:
        return get<uint32_t>(src);
    case DType::I64:
        return double(get<int64_t>(src));
    case DType::U64:
        return double(get<uint64_t>(src));
    }
    return 0.0;
}

} // namespace sassx::eval
