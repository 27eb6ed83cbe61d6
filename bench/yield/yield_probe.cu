// Microbenchmark kernels for the stall x yield probe (bench/yield/README.md).
//
// gap_* kernels: a loop whose body is a straight run of independent fixed-latency instructions
// (8 independent chains, interleaved, so each instruction's producer sits 8 instructions back and no
// stall value 0..15 can create a read-after-write hazard), bracketed by two clock64() reads outside
// the loop. Two body sizes (_64, _192) let the runner take the slope, so loop overhead cancels.
//
// raw_* kernels: a loop whose body is one dependent chain (each instruction reads the previous one's
// result), so a writer's stall count is the whole distance to its reader. If the reader issues before
// the result is written it reads the previous value and the final value differs from the unmodified
// kernel's output.
//
// Every kernel writes per-warp start/end clocks and SM id (lane 0) and a per-thread value.
// extern "C" keeps the names stable for the rewriter and the runner.
#include <cstdint>

namespace {

__device__ __forceinline__ unsigned smid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ void record(long long* clocks, long long t0, long long t1)
{
    const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    if ((threadIdx.x & 31) == 0) {
        const unsigned warp = gtid >> 5;
        clocks[3 * warp + 0] = t0;
        clocks[3 * warp + 1] = t1;
        clocks[3 * warp + 2] = smid();
    }
}

} // namespace

#define FFMA8(a, b)                                                                                          \
    x0 = fmaf(x0, a, b);                                                                                     \
    x1 = fmaf(x1, a, b);                                                                                     \
    x2 = fmaf(x2, a, b);                                                                                     \
    x3 = fmaf(x3, a, b);                                                                                     \
    x4 = fmaf(x4, a, b);                                                                                     \
    x5 = fmaf(x5, a, b);                                                                                     \
    x6 = fmaf(x6, a, b);                                                                                     \
    x7 = fmaf(x7, a, b);

// FADD with a distinct addend per chain: consecutive instructions share no source register, so ptxas
// sets no reuse flags (nvdisasm rejects reuse flags together with yield bit 0, see README.md);
// __fadd_rn keeps nvcc from contracting an add and a multiply into an FFMA.
#define FADD8()                                                                                              \
    x0 = __fadd_rn(x0, y0);                                                                                  \
    x1 = __fadd_rn(x1, y1);                                                                                  \
    x2 = __fadd_rn(x2, y2);                                                                                  \
    x3 = __fadd_rn(x3, y3);                                                                                  \
    x4 = __fadd_rn(x4, y4);                                                                                  \
    x5 = __fadd_rn(x5, y5);                                                                                  \
    x6 = __fadd_rn(x6, y6);                                                                                  \
    x7 = __fadd_rn(x7, y7);

// Fibonacci-like pairs (u += v + c; v += u + c): not foldable into fewer adds.
#define IADD8(c)                                                                                             \
    u0 = u0 + v0 + c;                                                                                        \
    u1 = u1 + v1 + c;                                                                                        \
    u2 = u2 + v2 + c;                                                                                        \
    u3 = u3 + v3 + c;                                                                                        \
    v0 = v0 + u0 + c;                                                                                        \
    v1 = v1 + u1 + c;                                                                                        \
    v2 = v2 + u2 + c;                                                                                        \
    v3 = v3 + u3 + c;

#define GAP_FFMA(NAME, GROUPS)                                                                               \
    extern "C" __global__ void __launch_bounds__(1024, 2)                                                    \
        NAME(float* out, long long* clocks, float a, float b, int iters)                                     \
    {                                                                                                        \
        const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;                                         \
        float x0 = gtid * 1e-3f, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,            \
              x6 = x0 + 6, x7 = x0 + 7;                                                                      \
        /* Per-thread factors: ptxas keeps them in reuse slots, and a reuse slot filled by another warp */   \
        /* would show up as a wrong output. a = 1 keeps the chains from settling on a fixed point. */        \
        const float aa = a + (gtid & 1023) * 1e-7f, bb = b - (gtid & 1023) * 1e-4f;                          \
        const long long t0 = clock64();                                                                      \
        _Pragma("unroll 1") for (int i = 0; i < iters; ++i)                                                  \
        {                                                                                                    \
            _Pragma("unroll") for (int g = 0; g < GROUPS; ++g)                                               \
            {                                                                                                \
                FFMA8(aa, bb)                                                                                \
            }                                                                                                \
        }                                                                                                    \
        const long long t1 = clock64();                                                                      \
        record(clocks, t0, t1);                                                                              \
        out[gtid] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));                                       \
    }

#define GAP_FADD(NAME, GROUPS)                                                                               \
    extern "C" __global__ void __launch_bounds__(1024, 2)                                                    \
        NAME(float* out, long long* clocks, float a, float b, int iters)                                     \
    {                                                                                                        \
        const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;                                         \
        float x0 = gtid * 1e-3f, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,            \
              x6 = x0 + 6, x7 = x0 + 7;                                                                      \
        const float y0 = a, y1 = a * b, y2 = y1 * b, y3 = y2 * b, y4 = y3 * b, y5 = y4 * b, y6 = y5 * b,     \
                    y7 = y6 * b;                                                                             \
        const long long t0 = clock64();                                                                      \
        _Pragma("unroll 1") for (int i = 0; i < iters; ++i)                                                  \
        {                                                                                                    \
            _Pragma("unroll") for (int g = 0; g < GROUPS; ++g)                                               \
            {                                                                                                \
                FADD8()                                                                                      \
            }                                                                                                \
        }                                                                                                    \
        const long long t1 = clock64();                                                                      \
        record(clocks, t0, t1);                                                                              \
        out[gtid] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));                                       \
    }

#define GAP_IADD(NAME, GROUPS)                                                                               \
    extern "C" __global__ void __launch_bounds__(1024, 2)                                                    \
        NAME(unsigned* out, long long* clocks, unsigned c, unsigned unused, int iters)                       \
    {                                                                                                        \
        const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;                                         \
        unsigned u0 = gtid, u1 = gtid ^ 0x55, u2 = gtid * 3, u3 = gtid + 77;                                 \
        unsigned v0 = gtid ^ c, v1 = gtid + c, v2 = gtid - c, v3 = gtid | c;                                 \
        const long long t0 = clock64();                                                                      \
        _Pragma("unroll 1") for (int i = 0; i < iters; ++i)                                                  \
        {                                                                                                    \
            _Pragma("unroll") for (int g = 0; g < GROUPS; ++g)                                               \
            {                                                                                                \
                IADD8(c)                                                                                     \
            }                                                                                                \
        }                                                                                                    \
        const long long t1 = clock64();                                                                      \
        record(clocks, t0, t1);                                                                              \
        out[gtid] = (u0 ^ u1 ^ u2 ^ u3) + (v0 ^ v1 ^ v2 ^ v3);                                               \
    }

GAP_FFMA(gap_ffma_64, 8)
GAP_FFMA(gap_ffma_192, 24)
GAP_FADD(gap_fadd_64, 8)
GAP_FADD(gap_fadd_192, 24)
GAP_IADD(gap_iadd3_64, 8)
GAP_IADD(gap_iadd3_192, 24)

// raw_ffma: x = fma(x, a, b), 32 times per iteration; a slightly above 1 so the value never settles.
extern "C" __global__ void __launch_bounds__(1024, 2)
    raw_ffma(float* out, long long* clocks, float a, float b, int iters)
{
    const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = gtid * 1e-4f;
    const long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 32; ++k)
            x = fmaf(x, a, b);
    }
    const long long t1 = clock64();
    record(clocks, t0, t1);
    out[gtid] = x;
}

// raw_iadd3: Fibonacci-like recurrence w_{k+1} = w_k + w_{k-1} + c, one IADD3 per step.
extern "C" __global__ void __launch_bounds__(1024, 2)
    raw_iadd3(unsigned* out, long long* clocks, unsigned c, unsigned unused, int iters)
{
    const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = gtid * 2654435761u, q = gtid ^ c;
    const long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            p = p + q + c;
            q = q + p + c;
        }
    }
    const long long t1 = clock64();
    record(clocks, t0, t1);
    out[gtid] = p ^ q;
}

// raw_imad: alternating IMAD (w = w_prev * m + w_prev2) and IADD3 (w = w_prev + w_prev2 + c); the
// rewriter edits only the IMADs, so the measured distance is IMAD -> IADD3.
extern "C" __global__ void __launch_bounds__(1024, 2)
    raw_imad(unsigned* out, long long* clocks, unsigned c, unsigned m, int iters)
{
    const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = gtid * 2654435761u, q = gtid ^ c;
    const long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            p = q * m + p;
            q = q + p + c;
        }
    }
    const long long t1 = clock64();
    record(clocks, t0, t1);
    out[gtid] = p ^ q;
}
