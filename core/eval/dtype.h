#pragma once
// Element types of launch-spec buffers and scalars, and the half-precision bit conversions the
// input generator and the comparator share (so both round the same way).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sassx::eval {

enum class DType
{
    F16,
    BF16,
    F32,
    F64,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
};

std::optional<DType> parseDType(std::string_view name);
std::string_view dtypeName(DType t);
size_t dtypeSize(DType t);
bool isFloat(DType t);
bool isSigned(DType t);

// IEEE binary16 / bfloat16 from float, round to nearest even; NaN stays NaN.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t b);

// Writes `value` converted to `t` at `dst` (dtypeSize(t) bytes). Integers saturate to the type's
// range and truncate toward zero, so "iota" and "randint" stay exact wherever the type can hold them.
void storeValue(DType t, double value, void* dst);
// Reads one element of type `t` as double (f16/bf16/f32 widen exactly; 64-bit ints may round).
double loadValue(DType t, const void* src);

} // namespace sassx::eval
