#include "core/eval/input_gen.h"

#include <cmath>

namespace sassx::eval {

uint64_t bufferSeed(uint64_t seed, uint32_t inputSet, uint32_t paramIndex)
{
    SplitMix64 mix(seed ^ (uint64_t(inputSet) << 32 | paramIndex) * 0xd1342543de82ef95ull);
    mix.next();
    return mix.next();
}

std::vector<uint8_t> generateBuffer(const ParamSpec& p, uint64_t seed, uint32_t inputSet, uint32_t paramIndex)
{
    const size_t elem = dtypeSize(p.dtype);
    std::vector<uint8_t> out(p.count * elem, 0);
    SplitMix64 rng(bufferSeed(seed, inputSet, paramIndex));
    const InitSpec& init = p.init;
    uint8_t* dst = out.data();
    switch (init.kind) {
    case InitKind::Zeros:
        break;
    case InitKind::Constant:
        for (uint64_t i = 0; i < p.count; ++i)
            storeValue(p.dtype, init.value, dst + i * elem);
        break;
    case InitKind::Iota:
        for (uint64_t i = 0; i < p.count; ++i)
            storeValue(p.dtype, double(i), dst + i * elem);
        break;
    case InitKind::Uniform:
        for (uint64_t i = 0; i < p.count; ++i) {
            double v = init.low + (init.high - init.low) * rng.uniform();
            // Integer types: floor so that uniform{0,4} on i32 gives 0..3 evenly.
            if (!isFloat(p.dtype)) v = std::floor(v);
            storeValue(p.dtype, v, dst + i * elem);
        }
        break;
    case InitKind::Normal:
        for (uint64_t i = 0; i < p.count; i += 2) {
            // Box-Muller: two normals from two uniforms; 1 - u keeps the log away from 0.
            const double u1 = 1.0 - rng.uniform();
            const double u2 = rng.uniform();
            const double r = std::sqrt(-2.0 * std::log(u1));
            const double a = 2.0 * M_PI * u2;
            storeValue(p.dtype, init.mean + init.std * r * std::cos(a), dst + i * elem);
            if (i + 1 < p.count)
                storeValue(p.dtype, init.mean + init.std * r * std::sin(a), dst + (i + 1) * elem);
        }
        break;
    case InitKind::RandInt: {
        const double lo = std::ceil(init.low);
        const uint64_t span = uint64_t(std::max(1.0, std::ceil(init.high) - lo));
        for (uint64_t i = 0; i < p.count; ++i)
            storeValue(p.dtype, lo + double(rng.below(span)), dst + i * elem);
        break;
    }
    }
    return out;
}

std::vector<uint8_t> scalarBytes(const ParamSpec& p)
{
    std::vector<uint8_t> out(dtypeSize(p.dtype));
    storeValue(p.dtype, p.value, out.data());
    return out;
}

uint8_t poisonByte(uint32_t inputSet)
{
    static constexpr uint8_t kPoison[] = {0xFF, 0xA5, 0x7F, 0x5A};
    return kPoison[inputSet % 4];
}

} // namespace sassx::eval
