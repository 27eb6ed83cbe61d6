#pragma once
// Seeded, reproducible inputs. The generator is our own (splitmix64 + Box-Muller) rather than
// <random>'s distributions, whose outputs differ between standard libraries: the same seed must give
// the same bytes in the worker, the tests and on a colleague's machine.
#include "core/eval/launch_spec.h"

#include <cstdint>
#include <vector>

namespace sassx::eval {

class SplitMix64
{
public:
    explicit SplitMix64(uint64_t seed) : m_state(seed) {}
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    // Uniform integer in [0, n); the modulo bias is below 2^-40 for any n we use.
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
    // As if `n` draws had been made: the state is a counter, so any draw can be reached directly.
    void skip(uint64_t n) { m_state += n * 0x9e3779b97f4a7c15ull; }

private:
    uint64_t m_state;
};

// The seed of one buffer of one input set: distinct streams for every (seed, set, parameter).
uint64_t bufferSeed(uint64_t seed, uint32_t inputSet, uint32_t paramIndex);

// Host bytes of buffer parameter `paramIndex` for input set `inputSet` (count * dtype size bytes).
// A `recorded` init is not drawn (zeros here): its bytes come from readRecordedValues.
// Element i uses the stream's draw i (a normal pair uses draws i and i + 1), so a large buffer is
// generated in chunks on several threads with the same bytes as one pass: two 134M-element arguments
// over three input sets cost a worker's set-up about 15 s of one core (docs/evaluator.md).
std::vector<uint8_t> generateBuffer(const ParamSpec& param, uint64_t seed, uint32_t inputSet,
                                    uint32_t paramIndex);
// Elements [begin, end) of that buffer into `dst` (its start), in one pass on this thread; `begin` even.
void generateRange(const ParamSpec& param, uint64_t seed, uint32_t inputSet, uint32_t paramIndex,
                   uint64_t begin, uint64_t end, uint8_t* dst);

// Bytes of a scalar parameter as the kernel receives it.
std::vector<uint8_t> scalarBytes(const ParamSpec& param);

// Byte written over output/inout buffers before every run, different per input set so that an
// element the candidate never writes cannot match the reference by chance in every set. 0xFF makes
// every float element NaN, which never passes.
uint8_t poisonByte(uint32_t inputSet);

} // namespace sassx::eval
