// Companion of bench/yield/yield_probe.cu: what the yield bit (bit 45 of the high word) does on the
// other instruction classes of sm_90 (bench/yield/classes/README.md). Built with
//   nvcc -cubin -O3 -arch=sm_90a class_probe.cu
//
// Method.
//  gap_<class>_{32,96}: one warp. A loop of `reps` passes; each pass reads clock64() (CS2R SR_CLOCKLO),
//    runs a straight run of 32 or 96 instructions of the class (inline PTX `asm volatile`, so ptxas
//    keeps every one, and as independent as the class allows: distinct destination registers,
//    distinct addresses), reads clock64() again, and only then consumes the results (so the waits on
//    the scoreboards fall outside the timed region). The kernel keeps the shortest pass (the first one
//    warms the instruction cache). The runner takes the slope between the two sizes, so the clock reads
//    and whatever ptxas put around the run cancel: gap = (t96 - t32) / 64 cycles per instruction.
//    make_variants.py edits every instruction of the class's base opcode strictly between the first
//    and the last CS2R SR_CLOCKLO of the kernel. The consumed results go to out[] and are compared
//    bit for bit with the unmodified cubin's.
//  gap_ffmar_{32,96}: like yield_probe.cu's gap_ffma (8 interleaved FFMA chains in a loop, clock64()
//    outside the loop), 32 or 96 FFMAs per iteration; ptxas puts reuse flags on them. Used for the
//    reuse x yield variants, for timing (1 warp) and for results (up to 2 blocks of 1024 per SM).
//  res_<name>: small kernels in which the class's results are consumed right away (loads feeding
//    arithmetic and addresses, stores read back, ldmatrix feeding mma, shfl reductions, cp.async
//    pipelines with wait_group and bar.sync, fences between a store and a neighbour's load, ...).
//    Every output (out[], and scratch[] for the kernels that store to global memory) is compared bit
//    for bit with the unmodified cubin's. __launch_bounds__(1024, 2): they run as 1 warp, 1 block of
//    256 and 2 blocks of 1024 per SM.
//
// All kernels share one parameter list so that the runner can launch any of them the same way:
//   out      4 words per thread (poisoned before each launch)
//   clocks   2 words per warp (gap kernels: shortest pass, last pass)
//   in       IN_WORDS random words (read only)
//   scratch  8 words per thread (reset to a pattern before each launch)
//   p0       an input-set constant
//   reps     passes (gap_<class>), loop iterations (gap_ffmar), unused elsewhere
// extern "C" keeps the names stable for make_variants.py and run_classes.py.
#include <cstdint>
#include <cuda_fp16.h>

#define IN_MASK ((1u << 20) - 1) // in[] holds 1 << 20 words

#define PARAMS unsigned *out, long long *clocks, const unsigned *in, unsigned *scratch, unsigned p0, int reps

// R32(M, b) expands M(b + 0) ... M(b + 31); k stays a constant expression (asm "n" operands, indices).
#define R4(M, b) M((b) + 0) M((b) + 1) M((b) + 2) M((b) + 3)
#define R16(M, b) R4(M, b) R4(M, (b) + 4) R4(M, (b) + 8) R4(M, (b) + 12)
#define R32(M, b) R16(M, b) R16(M, (b) + 16)
#define REP32(M) R32(M, 0)
#define REP96(M) R32(M, 0) R32(M, 32) R32(M, 64)

namespace {

__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ float ex2(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float rsq(float x)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ unsigned half2_bits(float a, float b)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<unsigned*>(&h);
}

// An exactly representable half in [-2, 2) from 8 bits of w.
__device__ __forceinline__ float small_half(unsigned w)
{
    return (w & 0xff) * (1.0f / 64) - 2.0f;
}

__device__ __forceinline__ void mma16816(float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1,
                                         unsigned a2, unsigned a3, unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ unsigned gtid()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

} // namespace

// ---------------------------------------------------------------------------------------------------
// Gap kernels. GAP_<CLS>_SETUP runs once, GAP_<CLS>_ITEM(k) is instruction k of the run,
// GAP_<CLS>_DRAIN(k) consumes its result after the second clock read.

#define GAP_KERNEL(CLS, name, N)                                                                             \
    extern "C" __global__ void __launch_bounds__(32, 1) gap_##name##_##N(PARAMS)                             \
    {                                                                                                        \
        const unsigned t = threadIdx.x;                                                                      \
        GAP_##CLS##_SETUP unsigned acc = 0;                                                                  \
        long long best = 0x7fffffffffffffffLL, last = 0;                                                     \
        _Pragma("unroll 1") for (int r = 0; r < reps; ++r)                                                   \
        {                                                                                                    \
            GAP_##CLS##_DECL(N) const long long t0 = clock64();                                              \
            REP##N(GAP_##CLS##_ITEM) const long long t1 = clock64();                                         \
            REP##N(GAP_##CLS##_DRAIN) GAP_##CLS##_AFTER last = t1 - t0;                                      \
            best = last < best ? last : best;                                                                \
            acc = acc * 3 + r;                                                                               \
        }                                                                                                    \
        if (t == 0) {                                                                                        \
            clocks[0] = best;                                                                                \
            clocks[1] = last;                                                                                \
        }                                                                                                    \
        out[4 * t] = acc;                                                                                    \
    }

// MUFU: six functions (ex2, rsqrt, rcp, sqrt, lg2, tanh) x 16 source registers, so that no two
// instructions are alike (ptxas merges identical asm statements, volatile or not, and hoists
// loop-invariant ones); the sources change with the pass.
#define GAP_MUFU_SETUP const float fb = 0.5f + (t & 7) * 0.125f;
#define GAP_MUFU_DECL(N)                                                                                     \
    float v[N], fs[16];                                                                                      \
    for (int i = 0; i < 16; ++i)                                                                             \
        fs[i] = fb + i * 0.0625f + r * (1.0f / 1024);
#define GAP_MUFU_ITEM(k)                                                                                     \
    if ((k) % 6 == 0)                                                                                        \
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(v[k]) : "f"(fs[(k) / 6]));                          \
    else if ((k) % 6 == 1)                                                                                   \
        asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(v[k]) : "f"(fs[(k) / 6]));                        \
    else if ((k) % 6 == 2)                                                                                   \
        asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(v[k]) : "f"(fs[(k) / 6]));                          \
    else if ((k) % 6 == 3)                                                                                   \
        asm volatile("sqrt.approx.ftz.f32 %0, %1;" : "=f"(v[k]) : "f"(fs[(k) / 6]));                         \
    else if ((k) % 6 == 4)                                                                                   \
        asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(v[k]) : "f"(fs[(k) / 6]));                          \
    else                                                                                                     \
        asm volatile("tanh.approx.f32 %0, %1;" : "=f"(v[k]) : "f"(fs[(k) / 6]));
#define GAP_MUFU_DRAIN(k) acc = acc * 33 + __float_as_uint(v[k]);
#define GAP_MUFU_AFTER

// LDG: 32-bit loads from in[], one cache line apart; the base changes with the pass (else ptxas
// hoists the loads out of the loop).
#define GAP_LDG_SETUP
#define GAP_LDG_DECL(N)                                                                                      \
    unsigned v[N];                                                                                           \
    const unsigned* src = in + t + ((r & 1) << 12);
#define GAP_LDG_ITEM(k) asm volatile("ld.global.u32 %0, [%1+%2];" : "=r"(v[k]) : "l"(src), "n"((k)*128));
#define GAP_LDG_DRAIN(k) acc = acc * 33 + v[k];
#define GAP_LDG_AFTER

// STG: 32-bit stores to scratch[], one cache line apart, one data register.
#define GAP_STG_SETUP unsigned* dst = scratch + t;
#define GAP_STG_DECL(N) const unsigned sv = t * 7 + r;
#define GAP_STG_ITEM(k)                                                                                      \
    asm volatile("st.global.u32 [%0+%1], %2;" ::"l"(dst), "n"((k)*128), "r"(sv) : "memory");
#define GAP_STG_DRAIN(k)
#define GAP_STG_AFTER acc += sv;

// LDS / STS / LDSM / LDGSTS work on a 12 KiB shared array filled before the loop.
#define GAP_SMEM_FILL                                                                                        \
    __shared__ __align__(128) unsigned sm[96 * 32];                                                          \
    for (int i = t; i < 96 * 32; i += 32)                                                                    \
        sm[i] = in[i] ^ p0;                                                                                  \
    __syncwarp();                                                                                            \
    const unsigned sbase = smem_addr(sm);

#define GAP_LDS_SETUP GAP_SMEM_FILL
#define GAP_LDS_DECL(N)                                                                                      \
    unsigned v[N];                                                                                           \
    const unsigned sa = sbase + ((4 * t) ^ ((r & 1) << 2));
#define GAP_LDS_ITEM(k) asm volatile("ld.shared.u32 %0, [%1+%2];" : "=r"(v[k]) : "r"(sa), "n"((k)*128));
#define GAP_LDS_DRAIN(k) acc = acc * 33 + v[k];
#define GAP_LDS_AFTER

#define GAP_STS_SETUP GAP_SMEM_FILL const unsigned sa = sbase + 4 * t;
#define GAP_STS_DECL(N) const unsigned sv = t * 7 + r;
#define GAP_STS_ITEM(k)                                                                                      \
    asm volatile("st.shared.u32 [%0+%1], %2;" ::"r"(sa), "n"((k)*128), "r"(sv) : "memory");
#define GAP_STS_DRAIN(k)
#define GAP_STS_AFTER                                                                                        \
    __syncwarp();                                                                                            \
    acc += sm[(t * 97 + r) % (96 * 32)];                                                                     \
    __syncwarp();

// LDSM: ldmatrix .x1, lanes 0-7 give the 8 row addresses (16 bytes each), 128 bytes per instruction.
#define GAP_LDSM_SETUP GAP_SMEM_FILL
#define GAP_LDSM_DECL(N)                                                                                     \
    unsigned v[N];                                                                                           \
    const unsigned sa = sbase + ((16 * (t & 7)) ^ ((r & 1) << 4));
#define GAP_LDSM_ITEM(k)                                                                                     \
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1+%2];"                                   \
                 : "=r"(v[k])                                                                                \
                 : "r"(sa), "n"((k)*128));
#define GAP_LDSM_DRAIN(k) acc = acc * 33 + v[k];
#define GAP_LDSM_AFTER

// LDGSTS: cp.async 4 bytes per thread, global in[] -> shared, one line apart; waited for after t1.
#define GAP_LDGSTS_SETUP                                                                                     \
    GAP_SMEM_FILL const unsigned sa = sbase + 4 * t;                                                         \
    const unsigned* src = in + t;
#define GAP_LDGSTS_DECL(N)
#define GAP_LDGSTS_ITEM(k)                                                                                   \
    asm volatile("cp.async.ca.shared.global [%0+%1], [%2+%1], 4;" ::"r"(sa), "n"((k)*128), "l"(src)          \
                 : "memory");
#define GAP_LDGSTS_DRAIN(k)
#define GAP_LDGSTS_AFTER                                                                                     \
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");                           \
    __syncwarp();                                                                                            \
    acc += sm[(t * 97 + r) % (96 * 32)];                                                                     \
    __syncwarp();

// DEPBAR: cp.async.wait_group with nothing outstanding (one group was waited for before the loop).
#define GAP_DEPBAR_SETUP                                                                                     \
    GAP_SMEM_FILL                                                                                            \
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n\tcp.async.commit_group;\n\t"                    \
                 "cp.async.wait_group 0;" ::"r"(sbase + 4 * t),                                              \
                 "l"(in + t)                                                                                 \
                 : "memory");
#define GAP_DEPBAR_DECL(N)
#define GAP_DEPBAR_ITEM(k) asm volatile("cp.async.wait_group %0;" ::"n"((k)&3) : "memory");
#define GAP_DEPBAR_DRAIN(k)
#define GAP_DEPBAR_AFTER acc += sm[t];

// BAR: bar.sync 0 in a block of one warp.
#define GAP_BAR_SETUP
#define GAP_BAR_DECL(N)
#define GAP_BAR_ITEM(k) asm volatile("bar.sync 0;" ::: "memory");
#define GAP_BAR_DRAIN(k)
#define GAP_BAR_AFTER

// MEMBAR: membar.cta (MEMBAR.SC.CTA).
#define GAP_MEMBAR_SETUP
#define GAP_MEMBAR_DECL(N)
#define GAP_MEMBAR_ITEM(k) asm volatile("membar.cta;" ::: "memory");
#define GAP_MEMBAR_DRAIN(k)
#define GAP_MEMBAR_AFTER

// S2R: %warpid (S2R SR_VIRTID; the only special register ptxas does not merge when read repeatedly,
// %laneid / %tid are read once). ptxas adds a bit-field extract per read; the drain consumes it.
#define GAP_S2R_SETUP
#define GAP_S2R_DECL(N) unsigned v[N];
#define GAP_S2R_ITEM(k) asm volatile("mov.u32 %0, %%warpid;" : "=r"(v[k]));
#define GAP_S2R_DRAIN(k) acc = acc * 33 + v[k];
#define GAP_S2R_AFTER

// CS2R: clock64 (CS2R Rx, SR_CLOCKLO). Outputs: how many consecutive reads went backwards (0).
#define GAP_CS2R_SETUP
#define GAP_CS2R_DECL(N) long long v[N];
#define GAP_CS2R_ITEM(k) asm volatile("mov.u64 %0, %%clock64;" : "=l"(v[k]));
#define GAP_CS2R_DRAIN(k) acc += (v[k] < t0) + (v[k] > t1) + ((k) > 0 ? (v[(k) > 0 ? (k)-1 : 0] > v[k]) : 0);
#define GAP_CS2R_AFTER

// SHFL: butterfly shuffles of 4 source registers (changing with the pass) x lane masks 1..31, no
// two alike (ptxas merges identical shuffles), distinct destinations.
#define GAP_SHFL_SETUP const unsigned x = in[t] ^ p0;
#define GAP_SHFL_DECL(N)                                                                                     \
    unsigned v[N];                                                                                           \
    const unsigned xs[4] = {x ^ r, x + r, x * (r | 1), x - r};
#define GAP_SHFL_ITEM(k)                                                                                     \
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"                                          \
                 : "=r"(v[k])                                                                                \
                 : "r"(xs[(k)&3]), "n"(((k) % 31) + 1));
#define GAP_SHFL_DRAIN(k) acc = acc * 33 + v[k];
#define GAP_SHFL_AFTER

// HMMA: mma.sync m16n8k16 f16 -> f32 on 8 accumulator sets in turn (each reads the one 8 back).
#define GAP_HMMA_SETUP                                                                                       \
    const unsigned a0 = half2_bits(small_half(t), small_half(t + 1)),                                        \
                   a1 = half2_bits(small_half(t + 2), 0.5f), a2 = half2_bits(0.25f, small_half(t * 3)),      \
                   a3 = half2_bits(small_half(t * 5), -1.0f), b0 = half2_bits(small_half(t * 7), 0.75f),     \
                   b1 = half2_bits(-0.5f, small_half(t * 11));                                               \
    float d[8][4];                                                                                           \
    for (int i = 0; i < 8; ++i)                                                                              \
        for (int j = 0; j < 4; ++j)                                                                          \
            d[i][j] = i * 0.25f + j;
#define GAP_HMMA_DECL(N)
#define GAP_HMMA_ITEM(k) mma16816(d[(k)&7][0], d[(k)&7][1], d[(k)&7][2], d[(k)&7][3], a0, a1, a2, a3, b0, b1);
#define GAP_HMMA_DRAIN(k)
#define GAP_HMMA_AFTER                                                                                       \
    for (int i = 0; i < 8; ++i)                                                                              \
        for (int j = 0; j < 4; ++j) {                                                                        \
            acc = acc * 33 + __float_as_uint(d[i][j]);                                                       \
            d[i][j] *= 0.5f;                                                                                 \
        }

#define GAP_PAIR(CLS, name) GAP_KERNEL(CLS, name, 32) GAP_KERNEL(CLS, name, 96)

GAP_PAIR(MUFU, mufu)
GAP_PAIR(LDG, ldg)
GAP_PAIR(STG, stg)
GAP_PAIR(LDS, lds)
GAP_PAIR(STS, sts)
GAP_PAIR(LDGSTS, ldgsts)
GAP_PAIR(LDSM, ldsm)
GAP_PAIR(S2R, s2r)
GAP_PAIR(CS2R, cs2r)
GAP_PAIR(SHFL, shfl)
GAP_PAIR(HMMA, hmma)
GAP_PAIR(DEPBAR, depbar)
GAP_PAIR(BAR, bar)
GAP_PAIR(MEMBAR, membar)

// ---------------------------------------------------------------------------------------------------
// FFMA with reuse flags (as gap_ffma in ../yield_probe.cu): 8 interleaved chains x = fma(a, x, b) with
// per-thread a, b, loop of `reps` iterations, clock64() outside the loop.
#define FFMA8(a, b)                                                                                          \
    x0 = fmaf(x0, a, b);                                                                                     \
    x1 = fmaf(x1, a, b);                                                                                     \
    x2 = fmaf(x2, a, b);                                                                                     \
    x3 = fmaf(x3, a, b);                                                                                     \
    x4 = fmaf(x4, a, b);                                                                                     \
    x5 = fmaf(x5, a, b);                                                                                     \
    x6 = fmaf(x6, a, b);                                                                                     \
    x7 = fmaf(x7, a, b);

#define GAP_FFMAR(N)                                                                                         \
    extern "C" __global__ void __launch_bounds__(1024, 2) gap_ffmar_##N(PARAMS)                              \
    {                                                                                                        \
        const unsigned g = gtid();                                                                           \
        const unsigned w = in[g & IN_MASK];                                                                  \
        float x0 = (w & 0xfff) * 1e-3f, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,     \
              x6 = x0 + 6, x7 = x0 + 7;                                                                      \
        const float aa = 1.0f + (w >> 20) * 1e-7f + (p0 & 15) * 1e-6f, bb = 0.5f - (g & 1023) * 1e-4f;       \
        const long long t0 = clock64();                                                                      \
        _Pragma("unroll 1") for (int i = 0; i < reps; ++i)                                                   \
        {                                                                                                    \
            _Pragma("unroll") for (int j = 0; j < (N) / 8; ++j)                                              \
            {                                                                                                \
                FFMA8(aa, bb)                                                                                \
            }                                                                                                \
        }                                                                                                    \
        const long long t1 = clock64();                                                                      \
        if ((threadIdx.x & 31) == 0) {                                                                       \
            clocks[2 * (g >> 5)] = t1 - t0;                                                                  \
            clocks[2 * (g >> 5) + 1] = t1 - t0;                                                              \
        }                                                                                                    \
        out[4 * g] = __float_as_uint(((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)));                     \
    }

GAP_FFMAR(32)
GAP_FFMAR(96)

// ---------------------------------------------------------------------------------------------------
// Results / scoreboard kernels.

// MUFU results feed FFMA/FADD and the next MUFU's operand.
extern "C" __global__ void __launch_bounds__(1024, 2) res_mufu(PARAMS)
{
    const unsigned g = gtid();
    const unsigned w = in[g & IN_MASK];
    float x = (w & 0xffff) * (1.0f / 65536) + 0.5f, y = (w >> 16) * (1.0f / 65536) + 1.0f;
    float z = x * 0.25f;
#pragma unroll
    for (int j = 0; j < 6; ++j) {
        const float e = ex2(x * -0.75f);
        const float q = rsq(y + e);
        const float u = ex2(z - q);
        x = fmaf(e, q, x * 0.5f);
        y = y * 0.75f + q;
        z = u * 0.5f + e;
    }
    out[4 * g] = __float_as_uint(x);
    out[4 * g + 1] = __float_as_uint(y);
    out[4 * g + 2] = __float_as_uint(z);
}

// LDG results feed addresses (a chase through in[]) and arithmetic.
extern "C" __global__ void __launch_bounds__(1024, 2) res_ldg(PARAMS)
{
    const unsigned g = gtid();
    unsigned idx = (g * 2654435761u + p0) & IN_MASK, s = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const unsigned v = in[idx];
        s = s * 31 + v;
        idx = (v ^ (idx * 7)) & IN_MASK;
    }
    unsigned u = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j)
        u = u * 33 + in[(g + j * 40503u + p0) & IN_MASK];
    out[4 * g] = s;
    out[4 * g + 1] = u;
    out[4 * g + 2] = idx;
}

// STG: each store's data register is overwritten right after the store; the stores are read back.
extern "C" __global__ void __launch_bounds__(1024, 2) res_stg(PARAMS)
{
    const unsigned g = gtid(), T = gridDim.x * blockDim.x;
    unsigned v = in[g & IN_MASK] ^ p0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        v = v * 1664525u + 1013904223u;
        scratch[j * T + g] = v;
    }
    unsigned s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        unsigned r;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(r) : "l"(scratch + j * T + g) : "memory");
        s = s * 33 + r;
    }
    out[4 * g] = s;
    out[4 * g + 1] = v;
}

// LDS, STS and BAR: stores whose data registers are overwritten right away, bar.sync, neighbours'
// values read back and combined, a second round.
extern "C" __global__ void __launch_bounds__(1024, 2) res_smem(PARAMS)
{
    __shared__ unsigned sm[4][1024];
    const unsigned g = gtid(), t = threadIdx.x, m = blockDim.x - 1;
    unsigned v = in[g & IN_MASK] + p0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        v = v * 1664525u + 1013904223u;
        sm[j][t] = v;
    }
    __syncthreads();
    unsigned s = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j)
        s = s * 33 + sm[j][(t * 5 + j + 1) & m];
    __syncthreads();
    sm[0][t] = s;
    sm[1][t] = s ^ v;
    __syncthreads();
    s ^= sm[0][(t + 7) & m] + sm[1][(t + 100) & m];
    out[4 * g] = s;
    out[4 * g + 1] = v;
}

// LDGSTS, DEPBAR and BAR: a 4-stage cp.async pipeline; each stage is waited for with wait_group,
// then bar.sync, then a neighbour's word is read.
extern "C" __global__ void __launch_bounds__(1024, 2) res_cpasync(PARAMS)
{
    __shared__ unsigned buf[4][1024];
    const unsigned g = gtid(), t = threadIdx.x, m = blockDim.x - 1;
#pragma unroll
    for (int st = 0; st < 4; ++st) {
        const unsigned* src = in + ((g * 3 + st * 12345u + p0) & IN_MASK);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n\tcp.async.commit_group;" ::"r"(
                         smem_addr(&buf[st][t])),
                     "l"(src)
                     : "memory");
    }
    unsigned s = 0;
    asm volatile("cp.async.wait_group 3;" ::: "memory");
    __syncthreads();
    s = s * 33 + buf[0][(t + 1) & m];
    asm volatile("cp.async.wait_group 2;" ::: "memory");
    __syncthreads();
    s = s * 33 + buf[1][(t + 3) & m];
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncthreads();
    s = s * 33 + buf[2][(t + 5) & m];
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    s = s * 33 + buf[3][(t + 7) & m];
    out[4 * g] = s;
}

// LDSM and HMMA: per warp a 16x16 A tile and a 16x8 B tile in shared memory, ldmatrix .x4 / .x2, a
// chain of three mma.sync (accumulator dependences), the accumulators consumed by FADD.
extern "C" __global__ void __launch_bounds__(1024, 2) res_mma(PARAMS)
{
    __shared__ __align__(16) unsigned sa[32][128]; // per warp: A 16 rows x 16 halves = 128 words
    __shared__ __align__(16) unsigned sb[32][64];  // per warp: B^T 8 rows x 16 halves = 64 words
    const unsigned g = gtid(), lane = threadIdx.x & 31, wp = threadIdx.x >> 5;
    const unsigned* src = in + ((g * 8 + p0) & (IN_MASK - 7));
#pragma unroll
    for (int i = 0; i < 4; ++i)
        sa[wp][lane * 4 + i] = half2_bits(small_half(src[i]), small_half(src[i] >> 8));
#pragma unroll
    for (int i = 0; i < 2; ++i)
        sb[wp][lane * 2 + i] = half2_bits(small_half(src[4 + i] >> 16), small_half(src[4 + i] >> 24));
    __syncwarp();
    // A: matrix q = lane / 8 is (rows 0-7 | 8-15) x (k 0-7 | 8-15); row address = 16 halves per row.
    const unsigned q = lane >> 3, r = lane & 7;
    const unsigned arow = r + 8 * (q & 1), acol = 8 * (q >> 1);
    unsigned a0, a1, a2, a3, b0, b1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(smem_addr(&sa[wp][0]) + 2 * (arow * 16 + acol)));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b0), "=r"(b1)
                 : "r"(smem_addr(&sb[wp][0]) + 2 * (r * 16 + 8 * (q & 1))));
    float d0 = 0.5f, d1 = -0.25f, d2 = 1.0f, d3 = lane * 0.125f;
    mma16816(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1);
    mma16816(d0, d1, d2, d3, a1, a2, a3, a0, b1, b0);
    mma16816(d0, d1, d2, d3, a3, a0, a1, a2, b0, b0);
    out[4 * g] = __float_as_uint(d0 + d1);
    out[4 * g + 1] = __float_as_uint(d2 - d3);
    out[4 * g + 2] = __float_as_uint(d0 * d3);
    out[4 * g + 3] = a0 ^ b1;
}

// S2R: %laneid, %tid.x, %lanemask_lt, %nwarpid feed arithmetic right away.
extern "C" __global__ void __launch_bounds__(1024, 2) res_s2r(PARAMS)
{
    const unsigned g = gtid();
    unsigned l, tx, lt, nw;
    unsigned s = in[g & IN_MASK];
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    s = s * 33 + l;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tx));
    s = (s ^ tx) * 5;
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    s += __popc(lt) + (lt >> 3);
    asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(nw));
    s = s * 7 + nw;
    out[4 * g] = s;
    out[4 * g + 1] = l + (tx << 8);
}

// CS2R: clock reads around a load, consumed as ordering flags (deterministic), plus 64-bit zeroed
// accumulators (ptxas zeroes register pairs with CS2R Rx, SRZ).
extern "C" __global__ void __launch_bounds__(1024, 2) res_cs2r(PARAMS)
{
    const unsigned g = gtid();
    const long long c0 = clock64();
    const unsigned w = in[g & IN_MASK];
    const long long c1 = clock64();
    unsigned long long a = 0, b = 0;
    for (int i = 0; i < (int)(p0 & 7) + 2; ++i) {
        a += (unsigned long long)(w + i) * 2654435761u;
        b ^= a >> 7;
    }
    const long long c2 = clock64();
    out[4 * g] = (c1 > c0) + 2 * (c2 > c1) + 4 * (c2 - c0 > 0);
    out[4 * g + 1] = (unsigned)a;
    out[4 * g + 2] = (unsigned)(b >> 32) ^ (unsigned)b;
}

// SHFL: butterfly reduction, then idx / up / down shuffles of the results.
extern "C" __global__ void __launch_bounds__(1024, 2) res_shfl(PARAMS)
{
    const unsigned g = gtid(), lane = threadIdx.x & 31;
    unsigned v = in[g & IN_MASK] ^ p0;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = v * 3 + __shfl_xor_sync(0xffffffffu, v, o);
    unsigned x = __shfl_sync(0xffffffffu, v ^ lane, (lane * 7) & 31);
    x += __shfl_up_sync(0xffffffffu, x, 3);
    x ^= __shfl_down_sync(0xffffffffu, x, 5);
    out[4 * g] = v;
    out[4 * g + 1] = x;
}

// MEMBAR: a store, a GPU-scope fence, a neighbour lane's store read back; the same through shared
// memory with a CTA-scope fence.
extern "C" __global__ void __launch_bounds__(1024, 2) res_membar(PARAMS)
{
    __shared__ unsigned sm[1024];
    const unsigned g = gtid(), t = threadIdx.x;
    const unsigned v = in[g & IN_MASK] * 3 + p0;
    scratch[g] = v;
    __threadfence();
    __syncwarp();
    unsigned w;
    asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(w) : "l"(scratch + (g ^ 1)) : "memory");
    sm[t] = w + v;
    __threadfence_block();
    __syncwarp();
    unsigned u;
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(u) : "r"(smem_addr(&sm[t ^ 2])) : "memory");
    asm volatile("membar.cta;" ::: "memory");
    scratch[g] = u ^ w;
    out[4 * g] = w;
    out[4 * g + 1] = u;
}
