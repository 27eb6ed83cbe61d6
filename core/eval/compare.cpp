#include "core/eval/compare.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace sassx::eval {

std::string CompareResult::describe(const std::string& name) const
{
    if (pass) return name + ": match";
    std::ostringstream os;
    os.precision(9);
    os << name << ": " << mismatches << " element(s) differ";
    if (nans) os << " (" << nans << " NaN)";
    os << "; first at [" << firstMismatch << "]: expected " << firstRef << ", got " << firstGot;
    return os.str();
}

namespace {
// NaN by bit pattern: exponent all ones and a non-zero mantissa. A plain loop over words that the
// compiler vectorises; the per-element loadValue() path was the worker's bottleneck on 16 MB outputs.
template <class U> uint64_t countNanBits(std::span<const uint8_t> data, U absMask, U infBits)
{
    uint64_t n = 0;
    const size_t count = data.size() / sizeof(U);
    for (size_t i = 0; i < count; ++i) {
        U v;
        std::memcpy(&v, data.data() + i * sizeof(U), sizeof(U));
        n += (v & absMask) > infBits;
    }
    return n;
}
} // namespace

uint64_t countNaN(DType dtype, std::span<const uint8_t> data)
{
    switch (dtype) {
    case DType::F16:
        return countNanBits<uint16_t>(data, 0x7fff, 0x7c00);
    case DType::BF16:
        return countNanBits<uint16_t>(data, 0x7fff, 0x7f80);
    case DType::F32:
        return countNanBits<uint32_t>(data, 0x7fffffffu, 0x7f800000u);
    case DType::F64:
        return countNanBits<uint64_t>(data, 0x7fffffffffffffffull, 0x7ff0000000000000ull);
    default:
        return 0;
    }
}

CompareResult compareBuffers(DType dtype, std::span<const uint8_t> ref, std::span<const uint8_t> got,
                             const Tolerance& tol, bool referenceNanFree)
{
    CompareResult r;
    const size_t elem = dtypeSize(dtype);
    if (ref.size() != got.size()) {
        r.pass = false;
        r.mismatches = std::max(ref.size(), got.size()) / elem;
        return r;
    }
    const bool floating = isFloat(dtype);
    const bool bitwise = tol.bitwise();
    // Fast path: identical bytes pass unless a float NaN hides in them.
    if (std::memcmp(ref.data(), got.data(), ref.size()) == 0 &&
        (referenceNanFree || countNaN(dtype, got) == 0))
        return r;

    const uint64_t n = ref.size() / elem;
    for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* a = ref.data() + i * elem;
        const uint8_t* b = got.data() + i * elem;
        const double rv = loadValue(dtype, a);
        const double gv = loadValue(dtype, b);
        bool ok;
        if (floating && std::isnan(gv)) {
            ok = false;
            ++r.nans;
        } else if (bitwise) {
            ok = std::memcmp(a, b, elem) == 0;
        } else if (std::isinf(rv) || std::isinf(gv)) {
            ok = rv == gv;
        } else {
            const double err = std::fabs(gv - rv);
            ok = err <= tol.atol + tol.rtol * std::fabs(rv);
        }
        if (!std::isnan(gv) && !std::isnan(rv)) r.maxAbsError = std::max(r.maxAbsError, std::fabs(gv - rv));
        if (!ok) {
            if (r.pass) {
                r.firstMismatch = i;
                r.firstRef = rv;
                r.firstGot = gv;
            }
            r.pass = false;
            ++r.mismatches;
        }
    }
    return r;
}

} // namespace sassx::eval
