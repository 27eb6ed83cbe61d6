#include "core/eval/input_gen.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace sassx::eval {

uint64_t bufferSeed(uint64_t seed, uint32_t inputSet, uint32_t paramIndex)
{
    SplitMix64 mix(seed ^ (uint64_t(inputSet) << 32 | paramIndex) * 0xd1342543de82ef95ull);
    mix.next();
    return mix.next();
}

void generateRange(const ParamSpec& p, uint64_t seed, uint32_t inputSet, uint32_t paramIndex, uint64_t begin,
                   uint64_t end, uint8_t* dst)
{
    const size_t elem = dtypeSize(p.dtype);
    SplitMix64 rng(bufferSeed(seed, inputSet, paramIndex));
    rng.skip(begin); // every kind draws once per element (a normal pair twice per two)
    const InitSpec& init = p.init;
    switch (init.kind) {
    case InitKind::Zeros:
        break;
    case InitKind::Constant:
        for (uint64_t i = begin; i < end; ++i)
            storeValue(p.dtype, init.value, dst + i * elem);
        break;
    case InitKind::Iota:
        for (uint64_t i = begin; i < end; ++i)
            storeValue(p.dtype, double(i), dst + i * elem);
        break;
    case InitKind::Uniform:
        for (uint64_t i = begin; i < end; ++i) {
            double v = init.low + (init.high - init.low) * rng.uniform();
            // Integer types: floor so that uniform{0,4} on i32 gives 0..3 evenly.
            if (!isFloat(p.dtype)) v = std::floor(v);
            storeValue(p.dtype, v, dst + i * elem);
        }
        break;
    case InitKind::Normal:
        for (uint64_t i = begin; i < end; i += 2) {
            // Box-Muller: two normals from two uniforms; 1 - u keeps the log away from 0.
            const double u1 = 1.0 - rng.uniform();
            const double u2 = rng.uniform();
            const double r = std::sqrt(-2.0 * std::log(u1));
            const double a = 2.0 * M_PI * u2;
            storeValue(p.dtype, init.mean + init.std * r * std::cos(a), dst + i * elem);
            if (i + 1 < end)
                storeValue(p.dtype, init.mean + init.std * r * std::sin(a), dst + (i + 1) * elem);
        }
        break;
    case InitKind::Recorded:
        break; // not drawn: readRecordedValues (launch_spec.h) gives the bytes, the same in every set
    case InitKind::RandInt: {
        const double lo = std::ceil(init.low);
        const uint64_t span = uint64_t(std::max(1.0, std::ceil(init.high) - lo));
        for (uint64_t i = begin; i < end; ++i)
            storeValue(p.dtype, lo + double(rng.below(span)), dst + i * elem);
        break;
    }
    }
}

std::vector<uint8_t> generateBuffer(const ParamSpec& p, uint64_t seed, uint32_t inputSet, uint32_t paramIndex)
{
    std::vector<uint8_t> out(p.count * dtypeSize(p.dtype), 0);
    // Chunks of 4M elements (even, so no normal pair is split); small buffers stay on this thread.
    constexpr uint64_t kChunk = uint64_t(1) << 22;
    const uint64_t chunks = (p.count + kChunk - 1) / kChunk;
    const size_t threads = std::min<uint64_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
    if (threads <= 1) {
        generateRange(p, seed, inputSet, paramIndex, 0, p.count, out.data());
        return out;
    }
    std::atomic<uint64_t> next{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (uint64_t c; (c = next++) < chunks;)
                generateRange(p, seed, inputSet, paramIndex, c * kChunk, std::min(p.count, (c + 1) * kChunk),
                              out.data());
        });
    for (std::thread& t : pool)
        t.join();
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
