// Operand-reuse flags under a cleared yield bit (b45 = 0, "Y0") on sm_90: the probe kernels
// (bench/yield/reuse/README.md). Built once per class by make_variants.py:
//   nvcc -cubin -O3 -arch=sm_90a -DRP_ONLY_<CLASS> reuse_probe.cu      (one kernel per cubin)
//
// Method. One kernel per instruction class, reuse_<class>(out, clocks, in, p0, iters):
//  - every thread derives its own values from 8 input words mixed with p0, its global thread index and
//    its warp index, so no two warps hold the same value in the same register: an operand served from
//    another warp's reuse cache (or from a stale entry) changes that thread's outputs;
//  - a loop of `iters` iterations between two clock64() reads (CS2R SR_CLOCKLO); make_variants.py edits
//    only instructions strictly between the two reads ("the body");
//  - the body holds long runs of the class in which consecutive instructions read the same register in
//    the same operand slot, which is where ptxas sets reuse flags: (1) interleaved chains x_j = OP(x_j,
//    S, T) that share the loop-carried operands S, T (ptxas' own flags, usually on two slots) and (2)
//    groups of distinct forms of OP on the same three (two) registers, d_k = OP_k(S, U, T) (rounding
//    modes, negations, LUTs, comparisons, ...), so that every slot mask a, b, c, ab, ac, bc, abc has
//    instruction pairs where it is valid; the group results are folded into the chains;
//  - every value computed in the body reaches the 8 output words of the thread (ptxas removes what
//    does not), stored after the second clock read; S, T, U change every iteration (else ptxas hoists
//    the groups out of the loop);
//  - __launch_bounds__(1024, 2): at most 32 registers, so 2 blocks of 1024 threads (64 warps, 16 per
//    scheduler) are resident on every SM; make_variants.py checks ptxas' register count and spills.
// One warp timed (clocks[warp] = t1 - t0, cycles of the loop) gives the issue cost of the body; the
// runner takes the slope between two iteration counts.
//
// Parameters (the same for every kernel, so the runner launches any of them the same way):
//   out     8 words per thread (poisoned before each launch), clocks  1 word per warp,
//   in      1 << 20 random words (read only), p0  an input-set constant, iters  loop iterations.
// extern "C" keeps the names stable for make_variants.py and run_reuse.py.
#include <cstdint>

#define IN_MASK ((1u << 20) - 1)
#define PARAMS                                                                                               \
    unsigned *__restrict__ out, long long *__restrict__ clocks, const unsigned *__restrict__ in, unsigned p0, \
        int iters

// RP_ALL builds every kernel; RP_ONLY_<CLASS> one.

namespace {

// Input word j of thread g: distinct per thread and per warp even where in[] indices wrap.
__device__ __forceinline__ __attribute__((unused)) unsigned word(const unsigned* in, unsigned g, unsigned p0, unsigned j)
{
    return in[(8u * g + j) & IN_MASK] ^ p0 ^ ((g >> 5) * 0x9E3779B9u) ^ (g * 0x85EBCA6Bu) ^ (j * 0xC2B2AE35u);
}

// A float in [1, 2) with 23 random mantissa bits.
__device__ __forceinline__ __attribute__((unused)) float f12(unsigned w)
{
    return __uint_as_float((w & 0x007fffffu) | 0x3f800000u);
}

// A float in [1, 1 + 2^-k) (k >= 9): multipliers close to one keep the chains bounded.
__device__ __forceinline__ __attribute__((unused)) float near1(unsigned w, int k)
{
    return 1.0f + (w & 0x3fffu) * __uint_as_float((127u - 14u - k) << 23);
}

// Two halves in [1, 2) with random 10-bit mantissas (f16x2), or [1, 2) with 7-bit mantissas (bf16x2).
__device__ __forceinline__ __attribute__((unused)) unsigned h12(unsigned w)
{
    return (w & 0x03ff03ffu) | 0x3c003c00u;
}
__device__ __forceinline__ __attribute__((unused)) unsigned b12(unsigned w)
{
    return (w & 0x007f007fu) | 0x3f803f80u;
}
// Two halves close to one: 1 + k/1024, k in 0..15.
__device__ __forceinline__ __attribute__((unused)) unsigned hnear1(unsigned w)
{
    return (w & 0x000f000fu) | 0x3c003c00u;
}

__device__ __forceinline__ __attribute__((unused)) unsigned fu(float x)
{
    return __float_as_uint(x);
}

} // namespace

#define PROLOGUE                                                                                             \
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;                                                \
    const unsigned w0 = word(in, g, p0, 0), w1 = word(in, g, p0, 1), w2 = word(in, g, p0, 2),                \
                   w3 = word(in, g, p0, 3), w4 = word(in, g, p0, 4), w5 = word(in, g, p0, 5),                \
                   w6 = word(in, g, p0, 6), w7 = word(in, g, p0, 7);
#define LOOP                                                                                                 \
    const long long t0 = clock64();                                                                          \
    _Pragma("unroll 1") for (int it = 0; it < iters; ++it)
#define EPILOGUE(a0, a1, a2, a3, a4, a5, a6, a7)                                                             \
    const long long t1 = clock64();                                                                          \
    if ((threadIdx.x & 31) == 0)                                                                             \
        clocks[g >> 5] = t1 - t0;                                                                            \
    out[8 * g + 0] = (a0);                                                                                   \
    out[8 * g + 1] = (a1);                                                                                   \
    out[8 * g + 2] = (a2);                                                                                   \
    out[8 * g + 3] = (a3);                                                                                   \
    out[8 * g + 4] = (a4);                                                                                   \
    out[8 * g + 5] = (a5);                                                                                   \
    out[8 * g + 6] = (a6);                                                                                   \
    out[8 * g + 7] = (a7);
#define KERNEL(name) extern "C" __global__ void __launch_bounds__(1024, 2) reuse_##name(PARAMS)

// X8(M) expands M(0) ... M(7).
#define X8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define X6(M) M(0) M(1) M(2) M(3) M(4) M(5)
#define X4(M) M(0) M(1) M(2) M(3)

// Chain state: x0..x7 of one type, declared from the input words.
#define STATE8(T, F)                                                                                         \
    T x0 = F(w0), x1 = F(w1), x2 = F(w2), x3 = F(w3), x4 = F(w4), x5 = F(w5), x6 = F(w6), x7 = F(w7);
#define XJ(j) x##j

// =====================================================================================================
// FP32
// =====================================================================================================

#define FMA_(m, d, a, b, c) asm volatile("fma." m ".f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
#define MUL_(m, d, a, b) asm volatile("mul." m ".f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
#define ADD_(m, d, a, b) asm volatile("add." m ".f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));

#if defined(RP_ALL) || defined(RP_ONLY_FFMA)
// FFMA: chains x = x*S + T (ptxas: Ra = S, Rc = T), x = U*T + x (Ra, Rb), two groups of 8 forms of
// S*U + T (rounding modes x sign of the addend) and of U*T + S (x sign of the product).
KERNEL(ffma)
{
    PROLOGUE
    STATE8(float, f12)
    float S = near1(w0 >> 9, 10), T = (w1 >> 20) * (1.0f / (1 << 16)), U = near1(w2 >> 9, 9);
    LOOP
    {
#define C1(j) FMA_("rn", XJ(j), XJ(j), S, T)
#define C2(j) FMA_("rz", XJ(j), U, T, XJ(j))
        X8(C1) X8(C2)
        float d0, d1, d2, d3, d4, d5, d6, d7;
        FMA_("rn", d0, S, U, T) FMA_("rz", d1, S, U, T) FMA_("rm", d2, S, U, T) FMA_("rp", d3, S, U, T)
        FMA_("rn", d4, S, U, -T) FMA_("rz", d5, S, U, -T) FMA_("rm", d6, S, U, -T) FMA_("rp", d7, S, U, -T)
#define F1(j) FMA_("rn", XJ(j), d##j, T, XJ(j))
        X8(F1)
        FMA_("rn", d0, U, T, S) FMA_("rz", d1, U, T, S) FMA_("rm", d2, U, T, S) FMA_("rp", d3, U, T, S)
        FMA_("rn", d4, -U, T, S) FMA_("rz", d5, -U, T, S) FMA_("rm", d6, -U, T, S) FMA_("rp", d7, -U, T, S)
#define F2(j) FMA_("rm", XJ(j), d##j, S, XJ(j))
        X8(F2)
#undef C1
#undef C2
#undef F1
#undef F2
        FMA_("rn", U, x3, 0.0009765625f, 0.5f)
        FMA_("rn", T, x5, 0.0001220703125f, 0.0f)
        FMA_("rn", S, x6, 0.00006103515625f, 0.999f)
    }
    EPILOGUE(fu(x0), fu(x1), fu(x2), fu(x3), fu(x4), fu(x5), fu(x6), fu(x7))
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_FMUL)
// FMUL: chains x = x*S and x = U*x (one shared slot each), a group of 8 forms of S*U (rounding modes
// x sign), folded into the chains.
KERNEL(fmul)
{
    PROLOGUE
    STATE8(float, f12)
    float S = near1(w0 >> 9, 10), U = near1(w1 >> 9, 11);
    LOOP
    {
#define C1(j) MUL_("rn", XJ(j), XJ(j), S)
#define C2(j) MUL_("rz", XJ(j), U, XJ(j))
        X8(C1) X8(C2)
        float d0, d1, d2, d3, d4, d5, d6, d7;
        MUL_("rn", d0, S, U) MUL_("rz", d1, S, U) MUL_("rm", d2, S, U) MUL_("rp", d3, S, U)
        MUL_("rn", d4, S, -U) MUL_("rz", d5, S, -U) MUL_("rm", d6, S, -U) MUL_("rp", d7, S, -U)
#define F1(j) MUL_("rn", XJ(j), XJ(j), d##j)
        X8(F1)
#undef C1
#undef C2
#undef F1
        FMA_("rn", S, x2, 0.00006103515625f, 0.9999f)
        FMA_("rn", U, x5, 0.00003051757812f, 0.9999f)
    }
    EPILOGUE(fu(x0), fu(x1), fu(x2), fu(x3), fu(x4), fu(x5), fu(x6), fu(x7))
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_FADD)
// FADD: chains x = x + S and x = U + x, a group of 8 forms of S + U (rounding modes x sign of U).
KERNEL(fadd)
{
    PROLOGUE
    STATE8(float, f12)
    float S = f12(w0 >> 3) * 0.125f, U = f12(w1 >> 3) * 0.0625f;
    LOOP
    {
#define C1(j) ADD_("rn", XJ(j), XJ(j), S)
#define C2(j) ADD_("rz", XJ(j), U, XJ(j))
        X8(C1) X8(C2)
        float d0, d1, d2, d3, d4, d5, d6, d7;
        ADD_("rn", d0, S, U) ADD_("rz", d1, S, U) ADD_("rm", d2, S, U) ADD_("rp", d3, S, U)
        ADD_("rn", d4, S, -U) ADD_("rz", d5, S, -U) ADD_("rm", d6, S, -U) ADD_("rp", d7, S, -U)
#define F1(j) ADD_("rn", XJ(j), XJ(j), d##j)
        X8(F1)
#undef C1
#undef C2
#undef F1
        FMA_("rn", S, x2, 0.0009765625f, 0.125f)
        FMA_("rn", U, x5, 0.0001220703125f, 0.0625f)
    }
    EPILOGUE(fu(x0), fu(x1), fu(x2), fu(x3), fu(x4), fu(x5), fu(x6), fu(x7))
}
#endif

// =====================================================================================================
// Integer multiply-add pipe
// =====================================================================================================

#define MAD_(m, d, a, b, c) asm volatile("mad." m " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));

#if defined(RP_ALL) || defined(RP_ONLY_IMAD)
// IMAD: chains x = x*S + T (S odd: a bijection), x = U*T + x, two groups of forms on (S, U, T) and
// (U, T, S) (lo, hi.u32, hi.s32, addend negated), folded into the chains.
KERNEL(imad)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = (w0 * 0x2545F491u) | 1u, T = w1 * 0x9E3779B1u, U = w2 ^ 0x5bd1e995u;
    LOOP
    {
#define C1(j) MAD_("lo.u32", XJ(j), XJ(j), S, T)
#define C2(j) MAD_("lo.u32", XJ(j), U, T, XJ(j))
        X8(C1) X8(C2)
        unsigned d0, d1, d2, d3, d4, d5;
        MAD_("lo.u32", d0, S, U, T) MAD_("hi.u32", d1, S, U, T) MAD_("hi.s32", d2, S, U, T)
        MAD_("lo.u32", d3, S, U, 0u - T) MAD_("hi.u32", d4, S, U, 0u - T) MAD_("hi.s32", d5, S, U, 0u - T)
#define F1(j) MAD_("lo.u32", XJ(j), d##j, T, XJ(j))
        X6(F1)
        MAD_("lo.u32", d0, U, T, S) MAD_("hi.u32", d1, U, T, S) MAD_("hi.s32", d2, U, T, S)
        MAD_("lo.u32", d3, U, T, 0u - S) MAD_("hi.u32", d4, U, T, 0u - S) MAD_("hi.s32", d5, U, T, 0u - S)
#define F2(j) MAD_("lo.u32", XJ(j), d##j, S, XJ(j))
        X6(F2)
#undef C1
#undef C2
#undef F1
#undef F2
        S = (S ^ x3) | 1u;
        T = T + x6;
        U = U ^ x7;
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, x7)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_IMAD_WIDE)
// IMAD.WIDE: 64-bit products of the chains with a shared S (IMAD.WIDE.U32 Rd, x, S, RZ: Rb shared)
// and the .u32 / .s32 forms of S*U; the products are folded into the chains.
#define MULW_(m, d, a, b) asm volatile("mul.wide." m " %0, %1, %2;" : "=l"(d) : "r"(a), "r"(b));
KERNEL(imad_wide)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, U = w2 ^ 0x5bd1e995u;
    LOOP
    {
        unsigned long long p0, p1, p2, p3;
        MULW_("u32", p0, x0, S) MULW_("u32", p1, x1, S) MULW_("s32", p2, x2, S) MULW_("s32", p3, x3, S)
        x0 += (unsigned)(p0 >> 32); x1 += (unsigned)(p1 >> 32); x2 += (unsigned)(p2 >> 32); x3 += (unsigned)(p3 >> 32);
        x4 ^= (unsigned)p0; x5 ^= (unsigned)p1; x6 ^= (unsigned)p2; x7 ^= (unsigned)p3;
        MULW_("u32", p0, S, U) MULW_("s32", p1, S, U) MULW_("u32", p2, U, S) MULW_("s32", p3, U, S)
        x0 ^= (unsigned)(p0 >> 32); x1 ^= (unsigned)(p1 >> 32); x2 ^= (unsigned)(p2 >> 32); x3 ^= (unsigned)(p3 >> 32);
        x4 += (unsigned)p0; x5 += (unsigned)p1; x6 += (unsigned)p2; x7 += (unsigned)p3;
        MULW_("u32", p0, x4, U) MULW_("u32", p1, x5, U) MULW_("s32", p2, x6, U) MULW_("s32", p3, x7, U)
        x4 += (unsigned)(p0 >> 32); x5 += (unsigned)(p1 >> 32); x6 += (unsigned)(p2 >> 32); x7 += (unsigned)(p3 >> 32);
        x0 ^= (unsigned)p0; x1 ^= (unsigned)p1; x2 ^= (unsigned)p2; x3 ^= (unsigned)p3;
        S = S + x3;
        U = U ^ x6;
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, x7)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_IDP)
// IDP (dp4a / dp2a): chains x = dp4a(S, T, x) and the signed/unsigned forms on (S, U, T).
#define DP_(m, d, a, b, c) asm volatile(m " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
KERNEL(idp)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, T = w1 * 0x9E3779B1u, U = w2 ^ 0x5bd1e995u;
    LOOP
    {
#define C1(j) DP_("dp4a.u32.u32", XJ(j), S, T, XJ(j))
        X8(C1)
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
        DP_("dp4a.u32.u32", d0, S, U, T) DP_("dp4a.s32.s32", d1, S, U, T) DP_("dp4a.s32.u32", d2, S, U, T)
        DP_("dp4a.u32.s32", d3, S, U, T) DP_("dp2a.lo.u32.u32", d4, S, U, T) DP_("dp2a.hi.u32.u32", d5, S, U, T)
        DP_("dp2a.lo.s32.s32", d6, S, U, T) DP_("dp2a.hi.s32.s32", d7, S, U, T)
#define F1(j) XJ(j) = (XJ(j) ^ d##j) * 0x9E3779B1u;
        X8(F1)
#undef C1
#undef F1
        S = S + x3;
        T = T ^ x6;
        U = U + x7;
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, x7)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_LEA)
// LEA: shift-adds x = (x << k) + S (Rb = S shared) and x = (S << k) + x (Ra = S shared), and 64-bit
// addresses B + (x << 2) (LEA Rd, P, x, B.lo, 2 / LEA.HI.X Rd, x, B.hi, RZ, 2, P: the pattern of
// Triton's address arithmetic). The integer multiplies of the folds keep the FMA pipe busy, so that
// ptxas puts the shift-adds on the ALU pipe as LEA rather than IMAD.
KERNEL(lea)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, U = w2 ^ 0x5bd1e995u;
    unsigned long long B = w3 * 0x9E3779B97F4A7C15ull;
    LOOP
    {
        x0 = (x0 << 1) + S; x1 = (x1 << 2) + S; x2 = (x2 << 3) + S; x3 = (x3 << 4) + S;
        x4 = (x4 << 5) + S; x5 = (x5 << 6) + S; x6 = (x6 << 7) + S; x7 = (x7 << 9) + S;
#define F1(j) XJ(j) = XJ(j) * 0x9E3779B1u + U;
        X8(F1)
        x0 = (U << 1) + x0; x1 = (U << 2) + x1; x2 = (U << 3) + x2; x3 = (U << 4) + x3;
        x4 = (U << 5) + x4; x5 = (U << 6) + x5; x6 = (U << 7) + x6; x7 = (U << 9) + x7;
#define F2(j) XJ(j) = XJ(j) * 0x2545F491u + S;
        X8(F2)
#define A1(j) const unsigned long long a##j = B + ((unsigned long long)XJ(j) << 2);
        X4(A1)
        x4 = x4 * 0x9E3779B1u + (unsigned)(a0 >> 32); x5 = x5 * 0x9E3779B1u + (unsigned)(a1 >> 32);
        x6 = x6 * 0x9E3779B1u + (unsigned)(a2 >> 32); x7 = x7 * 0x9E3779B1u + (unsigned)(a3 >> 32);
        x0 = x0 * 0x2545F491u + (unsigned)a1; x1 = x1 * 0x2545F491u + (unsigned)a2;
        x2 = x2 * 0x2545F491u + (unsigned)a3; x3 = x3 * 0x2545F491u + (unsigned)a0;
#undef A1
#undef F1
#undef F2
        S = S ^ x3;
        U = U + x7;
        B = B + x5;
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, x7)
}
#endif

// =====================================================================================================
// ALU pipe. ptxas alternates ALU and FMA-pipe instructions where it can; these kernels give it no
// FMA-pipe work inside the loop (folds are 3-input LOP3 / IADD3, which have no IMAD form), so that the
// class's instructions follow each other.
// =====================================================================================================

#define LOP3_(d, a, b, c, lut) asm volatile("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "n"(lut));
#define XOR3_(d, a, b, c) LOP3_(d, a, b, c, 0x96)
#define ADD3_(d, a, b, c) asm volatile("{ .reg .u32 t; add.u32 t, %1, %2; add.u32 %0, t, %3; }" : "=r"(d) : "r"(a), "r"(b), "r"(c));
// acc ^= d0 ^ ... ^ d7 (d: a name, d0..d7 unsigned)
#define ACC8(acc, d) XOR3_(acc, acc, d##0, d##1) XOR3_(acc, acc, d##2, d##3) XOR3_(acc, acc, d##4, d##5) XOR3_(acc, acc, d##6, d##7)
#define ACC8F(acc, d)                                                                                        \
    XOR3_(acc, acc, fu(d##0), fu(d##1)) XOR3_(acc, acc, fu(d##2), fu(d##3)) XOR3_(acc, acc, fu(d##4), fu(d##5)) \
        XOR3_(acc, acc, fu(d##6), fu(d##7))
// Float x in [1, 2) stays in [1, 2): its mantissa is xor-ed with e's.
#define MANT_(x, e)                                                                                          \
    {                                                                                                        \
        unsigned t_;                                                                                         \
        LOP3_(t_, fu(x), 0x007fffffu, fu(e), 0x78)                                                           \
        x = __uint_as_float(t_);                                                                             \
    }
#define MANTU_(x, e)                                                                                         \
    {                                                                                                        \
        unsigned t_;                                                                                         \
        LOP3_(t_, fu(x), 0x007fffffu, e, 0x78)                                                               \
        x = __uint_as_float(t_);                                                                             \
    }

#if defined(RP_ALL) || defined(RP_ONLY_IADD3)
// IADD3: chains x = x + S + T and x = U - T + x, a group of sign forms of S + U + T; xor folds.
#define IADD3F_(d, e) asm volatile("{ .reg .u32 t; " e " }" : "=r"(d) : "r"(S), "r"(U), "r"(T));
KERNEL(iadd3)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, T = w1 * 0x9E3779B1u, U = w2 ^ 0x5bd1e995u, acc = w3;
    LOOP
    {
#define C1(j) ADD3_(XJ(j), XJ(j), S, T)
#define C2(j) asm volatile("{ .reg .u32 t; sub.u32 t, %1, %2; add.u32 %0, t, %3; }" : "=r"(XJ(j)) : "r"(U), "r"(T), "r"(XJ(j)));
        X8(C1) X8(C2)
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
        IADD3F_(d0, "add.u32 t, %1, %2; add.u32 %0, t, %3;")
        IADD3F_(d1, "sub.u32 t, %1, %2; add.u32 %0, t, %3;")
        IADD3F_(d2, "add.u32 t, %1, %2; sub.u32 %0, t, %3;")
        IADD3F_(d3, "sub.u32 t, %2, %1; add.u32 %0, t, %3;")
        IADD3F_(d4, "sub.u32 t, %1, %2; sub.u32 %0, t, %3;")
        IADD3F_(d5, "sub.u32 t, %3, %1; sub.u32 %0, t, %2;")
        IADD3F_(d6, "sub.u32 t, %2, %1; sub.u32 %0, t, %3;")
        IADD3F_(d7, "neg.s32 t, %1; sub.u32 t, t, %2; sub.u32 %0, t, %3;")
        ACC8(acc, d)
#define F1(j) XOR3_(XJ(j), XJ(j), d##j, acc)
        X8(F1)
#undef C1
#undef C2
#undef F1
        XOR3_(S, S, x3, x4)
        XOR3_(T, T, x6, acc)
        XOR3_(U, U, x7, x1)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_LOP3)
// LOP3: chains x = x ^ S ^ T and x = lut(U, T, x), a group of 8 LUTs on (S, U, T); add folds.
KERNEL(lop3)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, T = w1 * 0x9E3779B1u, U = w2 ^ 0x5bd1e995u;
    LOOP
    {
#define C1(j) LOP3_(XJ(j), XJ(j), S, T, 0x96)
#define C2(j) LOP3_(XJ(j), U, T, XJ(j), 0x69)
        X8(C1) X8(C2)
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
        LOP3_(d0, S, U, T, 0xe8) LOP3_(d1, S, U, T, 0x1e) LOP3_(d2, S, U, T, 0xca) LOP3_(d3, S, U, T, 0x6a)
        LOP3_(d4, S, U, T, 0xb4) LOP3_(d5, S, U, T, 0x2d) LOP3_(d6, S, U, T, 0xd2) LOP3_(d7, S, U, T, 0x78)
#define F1(j) ADD3_(XJ(j), XJ(j), d##j, XJ(j))
        X8(F1)
#undef C1
#undef C2
#undef F1
        ADD3_(S, S, x3, x4)
        ADD3_(T, T, x6, x0)
        ADD3_(U, U, x7, x1)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, x7)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_SHF)
// SHF: rotations x = rot(x, T) (funnel shift of x:x by a shared amount), the four funnel forms
// l/r x wrap/clamp on (S, U, T) and (U, S, T), and right shifts of S by immediates
// (SHF.R.U32.HI Rd, RZ, k, S: Rc shared); xor folds.
#define SHF_(m, d, a, b, c) asm volatile("shf." m ".b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
KERNEL(shf)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, T = w1 * 0x9E3779B1u, U = w2 ^ 0x5bd1e995u, acc = w3;
    LOOP
    {
#define C1(j) SHF_("l.wrap", XJ(j), XJ(j), XJ(j), T)
        X8(C1)
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
        SHF_("l.wrap", d0, S, U, T) SHF_("r.wrap", d1, S, U, T) SHF_("l.clamp", d2, S, U, T)
        SHF_("r.clamp", d3, S, U, T) SHF_("l.wrap", d4, U, S, T) SHF_("r.wrap", d5, U, S, T)
        SHF_("l.clamp", d6, U, S, T) SHF_("r.clamp", d7, U, S, T)
        ACC8(acc, d)
#define F1(j) XOR3_(XJ(j), XJ(j), d##j, acc)
        X8(F1)
        d0 = S >> 3; d1 = S >> 5; d2 = S >> 7; d3 = S >> 11; d4 = S >> 13; d5 = S >> 17; d6 = S >> 19; d7 = S >> 23;
        X8(F1)
#undef C1
#undef F1
        XOR3_(S, S, x3, x4)
        XOR3_(T, T, x6, acc)
        XOR3_(U, U, x7, x1)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_VIADD)
// VIADD: S + k for 8 immediates k (Ra = S shared); xor folds.
KERNEL(viadd)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, U = w1, acc = w3;
    LOOP
    {
        const unsigned d0 = S + 0x11u, d1 = S + 0x2345u, d2 = S + 0x3u, d3 = S + 0x9999u, d4 = S + 0x77u,
                       d5 = S + 0x5u, d6 = S + 0x123u, d7 = S + 0x4567u;
        ACC8(acc, d)
        const unsigned e0 = U + 0x13u, e1 = U + 0x2347u, e2 = U + 0x7u, e3 = U + 0x999bu, e4 = U + 0x79u,
                       e5 = U + 0x9u, e6 = U + 0x125u, e7 = U + 0x4569u;
#define F1(j) XOR3_(XJ(j), XJ(j), d##j, e##j)
        X8(F1)
#undef F1
        XOR3_(S, S, x3, acc)
        XOR3_(U, U, x5, x6)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_ISETP)
// ISETP: comparisons of the chains with S and of S with U (signed, unsigned; lt .. ne), each predicate
// consumed by a select (SEL); xor folds.
#define SETPI_(c, d, a, b, x, y)                                                                             \
    asm volatile("{ .reg .pred p; setp." c " p, %1, %2; selp.b32 %0, %3, %4, p; }"                          \
                 : "=r"(d)                                                                                   \
                 : "r"(a), "r"(b), "r"(x), "r"(y));
KERNEL(isetp)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, U = w2 ^ 0x5bd1e995u, V = w3 * 0x9E3779B1u, W = w4 * 0x2545F491u, acc = w5;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) SETPI_("lt.u32", d##j, XJ(j), S, V, W)
        X8(C1)
        ACC8(acc, d)
        SETPI_("lt.u32", d0, S, U, V, W) SETPI_("le.s32", d1, S, U, W, V) SETPI_("gt.u32", d2, S, U, V, W)
        SETPI_("ge.s32", d3, S, U, W, V) SETPI_("eq.u32", d4, S, U, V, W) SETPI_("ne.u32", d5, S, U, W, V)
        SETPI_("lt.s32", d6, S, U, V, W) SETPI_("gt.s32", d7, S, U, W, V)
        ACC8(acc, d)
#define C2(j) SETPI_("gt.s32", d##j, U, XJ(j), W, V)
        X8(C2)
#define F1(j) XOR3_(XJ(j), XJ(j), d##j, acc)
        X8(F1)
#undef C1
#undef C2
#undef F1
        XOR3_(S, S, x3, acc)
        XOR3_(U, U, x5, x1)
        XOR3_(V, V, x6, x2)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_FSETP)
// FSETP: comparisons of the chains with S and of S with U (lt, le, gt, ge, eq, ne, ltu, geu), each
// predicate consumed by a select (SEL); xor folds keep the floats in [1, 2).
#define SETPF_(c, d, a, b, x, y)                                                                             \
    asm volatile("{ .reg .pred p; setp." c ".f32 p, %1, %2; selp.b32 %0, %3, %4, p; }"                      \
                 : "=r"(d)                                                                                   \
                 : "f"(a), "f"(b), "r"(x), "r"(y));
KERNEL(fsetp)
{
    PROLOGUE
    STATE8(float, f12)
    float S = f12(w0 >> 4), U = f12(w1 >> 4);
    unsigned V = w2, W = w3, acc = w4;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) SETPF_("lt", d##j, XJ(j), S, V, W)
        X8(C1)
        ACC8(acc, d)
        SETPF_("lt", d0, S, U, V, W) SETPF_("le", d1, S, U, W, V) SETPF_("gt", d2, S, U, V, W)
        SETPF_("ge", d3, S, U, W, V) SETPF_("eq", d4, S, U, V, W) SETPF_("ne", d5, S, U, W, V)
        SETPF_("ltu", d6, S, U, V, W) SETPF_("geu", d7, S, U, W, V)
        ACC8(acc, d)
#define C2(j) SETPF_("gt", d##j, U, XJ(j), W, V)
        X8(C2)
#define F1(j) MANTU_(XJ(j), d##j)
        X8(F1)
#undef C1
#undef C2
#undef F1
        MANTU_(S, acc)
        MANTU_(U, fu(x1) ^ V)
        XOR3_(V, V, fu(x6), acc)
    }
    EPILOGUE(fu(x0), fu(x1), fu(x2), fu(x3), fu(x4), fu(x5), fu(x6), acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_FSEL)
// FSEL: selects between S and U and between a chain and S under predicates from bits of m; xor folds.
#define SELF_P(d, a, b, pr)                                                                                  \
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; selp.f32 %0, %1, %2, p; }"                          \
                 : "=f"(d)                                                                                   \
                 : "f"(a), "f"(b), "r"(pr));
KERNEL(fsel)
{
    PROLOGUE
    STATE8(float, f12)
    float S = f12(w0 >> 4), U = f12(w1 >> 4);
    unsigned m = w2, acc = w3;
    LOOP
    {
        float d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) SELF_P(d##j, S, U, m & (1u << (j)))
        X8(C1)
        ACC8F(acc, d)
#define C2(j) SELF_P(d##j, XJ(j), S, m & (1u << (8 + (j))))
        X8(C2)
#define F1(j) MANT_(XJ(j), d##j)
        X8(F1)
#define C3(j) SELF_P(d##j, U, XJ(j), m & (1u << (16 + (j))))
        X8(C3)
        ACC8F(acc, d)
#undef C1
#undef C2
#undef C3
#undef F1
        MANTU_(S, acc)
        MANTU_(U, fu(x2))
        XOR3_(m, m, fu(x7), acc)
    }
    EPILOGUE(fu(x0), fu(x1), fu(x2), fu(x3), fu(x4), fu(x5), fu(x6), acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_SEL)
// SEL: selects between S and U and between a chain and S under predicates from bits of m; xor folds.
#define SELI_P(d, a, b, pr)                                                                                  \
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %3, 0; selp.b32 %0, %1, %2, p; }"                          \
                 : "=r"(d)                                                                                   \
                 : "r"(a), "r"(b), "r"(pr));
KERNEL(sel)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, U = w2 ^ 0x5bd1e995u, m = w3, acc = w4;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) SELI_P(d##j, S, U, m & (1u << (j)))
        X8(C1)
        ACC8(acc, d)
#define C2(j) SELI_P(d##j, XJ(j), S, m & (1u << (8 + (j))))
        X8(C2)
#define F1(j) XOR3_(XJ(j), XJ(j), d##j, acc)
        X8(F1)
#define C3(j) SELI_P(d##j, U, XJ(j), m & (1u << (16 + (j))))
        X8(C3)
        ACC8(acc, d)
#undef C1
#undef C2
#undef C3
#undef F1
        XOR3_(S, S, x3, acc)
        XOR3_(U, U, x5, x1)
        XOR3_(m, m, x7, acc)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_FMNMX)
// FMNMX: min of the chains with S, the forms min/max x NaN/ftz/xorsign.abs of (S, U), max of U with
// the chains; xor folds keep the floats in [1, 2).
#define MNMX_(m, d, a, b) asm volatile(m ".f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
KERNEL(fmnmx)
{
    PROLOGUE
    STATE8(float, f12)
    float S = f12(w0 >> 4), U = f12(w1 >> 4);
    unsigned acc0 = w2, acc1 = w3;
    LOOP
    {
        float d0, d1, d2, d3, d4, d5, d6, d7, e0, e1, e2, e3, e4, e5, e6, e7;
#define C1(j) MNMX_("min", d##j, XJ(j), S)
        X8(C1)
        MNMX_("min", e0, S, U) MNMX_("max", e1, S, U) MNMX_("min.NaN", e2, S, U) MNMX_("max.NaN", e3, S, U)
        MNMX_("min.ftz", e4, S, U) MNMX_("max.ftz", e5, S, U) MNMX_("min.xorsign.abs", e6, S, U)
        MNMX_("max.xorsign.abs", e7, S, U)
        ACC8F(acc0, d) ACC8F(acc1, e)
#define M1(j) MANT_(XJ(j), d##j)
        X8(M1)
#define C2(j) MNMX_("max", d##j, U, XJ(j))
        X8(C2)
        ACC8F(acc1, d)
#undef C1
#undef C2
#undef M1
        MANTU_(S, acc0)
        MANTU_(U, acc1)
    }
    EPILOGUE(fu(x0), fu(x1), fu(x2), fu(x3), fu(x4), fu(x5), acc0, acc1)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_VIMNMX)
// VIMNMX (IMNMX): min of the chains with S, the forms min/max x s32/u32/relu of (S, U), max of U with
// the chains; xor folds.
#define IMNMX_(m, d, a, b) asm volatile(m " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
KERNEL(vimnmx)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, U = w2 ^ 0x5bd1e995u, acc0 = w3, acc1 = w4;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7, e0, e1, e2, e3, e4, e5, e6, e7;
#define C1(j) IMNMX_("min.u32", d##j, XJ(j), S)
        X8(C1)
        IMNMX_("min.u32", e0, S, U) IMNMX_("max.u32", e1, S, U) IMNMX_("min.s32", e2, S, U)
        IMNMX_("max.s32", e3, S, U) IMNMX_("min.relu.s32", e4, S, U) IMNMX_("max.relu.s32", e5, S, U)
        IMNMX_("min.u32", e6, U, S) IMNMX_("max.s32", e7, U, S)
        ACC8(acc0, d) ACC8(acc1, e)
#define F1(j) XOR3_(XJ(j), XJ(j), d##j, acc1)
        X8(F1)
#define C2(j) IMNMX_("max.s32", d##j, U, XJ(j))
        X8(C2)
        ACC8(acc1, d)
#undef C1
#undef C2
#undef F1
        XOR3_(S, S, x3, acc0)
        XOR3_(U, U, x5, acc1)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, acc0, acc1)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_PRMT)
// PRMT: byte permutes of (x, S) by a shared selector T, and the modes of prmt on (S, U, T); xor folds.
#define PRMT_(m, d, a, b, c) asm volatile("prmt.b32" m " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
KERNEL(prmt)
{
    PROLOGUE
    unsigned x0 = w0, x1 = w1, x2 = w2, x3 = w3, x4 = w4, x5 = w5, x6 = w6, x7 = w7;
    unsigned S = w0 * 0x2545F491u, T = w1 * 0x9E3779B1u, U = w2 ^ 0x5bd1e995u, acc = w3;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) PRMT_("", d##j, XJ(j), S, T)
        X8(C1)
        ACC8(acc, d)
        PRMT_("", d0, S, U, T) PRMT_(".f4e", d1, S, U, T) PRMT_(".b4e", d2, S, U, T) PRMT_(".rc8", d3, S, U, T)
        PRMT_(".ecl", d4, S, U, T) PRMT_(".ecr", d5, S, U, T) PRMT_(".rc16", d6, S, U, T) PRMT_("", d7, U, S, T)
#define F1(j) XOR3_(XJ(j), XJ(j), d##j, acc)
        X8(F1)
#undef C1
#undef F1
        XOR3_(S, S, x3, acc)
        XOR3_(T, T, x6, x2)
        XOR3_(U, U, x7, x1)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_F2FP)
// F2FP: packing conversions of (x, S) and of (S, U): f16x2 / bf16x2 x rn / rz x relu / satfinite;
// xor folds keep the floats in [1, 2).
#define CVTP_(m, d, a, b) asm volatile("cvt." m ".f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b));
KERNEL(f2fp)
{
    PROLOGUE
    STATE8(float, f12)
    float S = f12(w0 >> 4), U = f12(w1 >> 4) * 0.5f;
    unsigned acc0 = w2, acc1 = w3;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) CVTP_("rn.f16x2", d##j, XJ(j), S)
        X8(C1)
        ACC8(acc0, d)
#define F1(j) MANTU_(XJ(j), d##j << 7)
        X8(F1)
        CVTP_("rn.f16x2", d0, S, U) CVTP_("rz.f16x2", d1, S, U) CVTP_("rn.relu.f16x2", d2, S, U)
        CVTP_("rn.bf16x2", d3, S, U) CVTP_("rz.bf16x2", d4, S, U) CVTP_("rn.relu.bf16x2", d5, S, U)
        CVTP_("rn.satfinite.f16x2", d6, S, U) CVTP_("rz.relu.f16x2", d7, S, U)
        ACC8(acc1, d)
#undef C1
#undef F1
        MANTU_(S, acc0)
        MANTU_(U, acc1)
    }
    EPILOGUE(fu(x0), fu(x1), fu(x2), fu(x3), fu(x4), fu(x5), acc0, acc1)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_I2FP)
// I2FP: conversions of S to f32 in the rounding modes x s32/u32 (one source slot); xor folds.
#define CVTI_(m, d, a) asm volatile("cvt." m " %0, %1;" : "=f"(d) : "r"(a));
KERNEL(i2fp)
{
    PROLOGUE
    unsigned S = w0 * 0x2545F491u, U = w1, acc0 = w2, acc1 = w3;
    LOOP
    {
        float d0, d1, d2, d3, d4, d5, d6, d7;
        CVTI_("rn.f32.s32", d0, S) CVTI_("rz.f32.s32", d1, S) CVTI_("rm.f32.s32", d2, S) CVTI_("rp.f32.s32", d3, S)
        CVTI_("rn.f32.u32", d4, S) CVTI_("rz.f32.u32", d5, S) CVTI_("rm.f32.u32", d6, S) CVTI_("rp.f32.u32", d7, S)
        ACC8F(acc0, d)
        CVTI_("rn.f32.s32", d0, U) CVTI_("rz.f32.s32", d1, U) CVTI_("rm.f32.s32", d2, U) CVTI_("rp.f32.s32", d3, U)
        CVTI_("rn.f32.u32", d4, U) CVTI_("rz.f32.u32", d5, U) CVTI_("rm.f32.u32", d6, U) CVTI_("rp.f32.u32", d7, U)
        ACC8F(acc1, d)
        XOR3_(S, S, acc0, acc1)
        XOR3_(U, U, acc1, S)
    }
    EPILOGUE(S, U, acc0, acc1, w4, w5, w6, w7)
}
#endif

// =====================================================================================================
// Packed half precision
// =====================================================================================================

#define H3_(m, d, a, b, c) asm volatile(m " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
#define H2_(m, d, a, b) asm volatile(m " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
// Two halves back in [1, 2) after an xor of low mantissa bits.
#define HFOLD_(x, d) LOP3_(x, x, 0x00070007u, d, 0x78)

#if defined(RP_ALL) || defined(RP_ONLY_HFMA2)
// HFMA2: chains x = x*S + T (f16x2), x = U*T + x, forms of S*U + T (rn, sat, relu, ftz, bf16, ...).
KERNEL(hfma2)
{
    PROLOGUE
    unsigned x0 = h12(w0), x1 = h12(w1), x2 = h12(w2), x3 = h12(w3), x4 = h12(w4), x5 = h12(w5), x6 = h12(w6),
             x7 = h12(w7);
    unsigned S = hnear1(w0 >> 4), T = (w1 & 0x00ff00ffu) | 0x20002000u, U = hnear1(w2 >> 4);
    LOOP
    {
#define C1(j) H3_("fma.rn.f16x2", XJ(j), XJ(j), S, T)
#define C2(j) H3_("fma.rn.f16x2", XJ(j), U, T, XJ(j))
        X8(C1) X8(C2)
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
        H3_("fma.rn.f16x2", d0, S, U, T) H3_("fma.rn.sat.f16x2", d1, S, U, T) H3_("fma.rn.relu.f16x2", d2, S, U, T)
        H3_("fma.rn.ftz.f16x2", d3, S, U, T) H3_("fma.rn.bf16x2", d4, S, U, T) H3_("fma.rn.relu.bf16x2", d5, S, U, T)
        H3_("fma.rn.ftz.sat.f16x2", d6, S, U, T) H3_("fma.rn.ftz.relu.f16x2", d7, S, U, T)
#define F1(j) HFOLD_(XJ(j), d##j)
        X8(F1)
#undef C1
#undef C2
#undef F1
        S = hnear1(S ^ x3);
        T = (T ^ x6) & 0x27ff27ffu;
        U = hnear1(U + x7);
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, x7)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_HADD2)
// HADD2: chains x = x + S, x = U + x (ftz), x = x - U (ftz) (f16x2), forms of S + U (rn, sat, ftz, sub,
// bf16), and f16 -> f32 conversions of both halves of two chains (HADD2.F32 Rd, -RZ, x.H0_H0 /
// x.H1_H1). ptxas moves about half of the adds to HFMA2.MMA (x*1 + S) and alternates the two.
KERNEL(hadd2)
{
    PROLOGUE
    unsigned x0 = h12(w0), x1 = h12(w1), x2 = h12(w2), x3 = h12(w3), x4 = h12(w4), x5 = h12(w5), x6 = h12(w6),
             x7 = h12(w7);
    unsigned S = (w0 & 0x00ff00ffu) | 0x20002000u, U = (w1 & 0x00ff00ffu) | 0x24002400u, acc = w2;
    LOOP
    {
#define C1(j) H2_("add.rn.f16x2", XJ(j), XJ(j), S)
#define C2(j) H2_("add.rn.ftz.f16x2", XJ(j), U, XJ(j))
#define C3(j) H2_("sub.rn.ftz.f16x2", XJ(j), XJ(j), U)
        X8(C1) X8(C2) X8(C3)
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
        H2_("add.rn.f16x2", d0, S, U) H2_("add.rn.sat.f16x2", d1, S, U) H2_("add.rn.ftz.f16x2", d2, S, U)
        H2_("sub.rn.f16x2", d3, S, U) H2_("sub.rn.sat.f16x2", d4, S, U) H2_("add.rn.ftz.sat.f16x2", d5, S, U)
        H2_("sub.rn.ftz.f16x2", d6, S, U) H2_("add.rn.bf16x2", d7, S, U)
#define F1(j) HFOLD_(XJ(j), d##j)
        X8(F1)
        float h0, h1, h2, h3;
        asm volatile("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %4; cvt.f32.f16 %0, lo; cvt.f32.f16 %1, hi;"
                     " mov.b32 {lo, hi}, %5; cvt.f32.f16 %2, lo; cvt.f32.f16 %3, hi; }"
                     : "=f"(h0), "=f"(h1), "=f"(h2), "=f"(h3)
                     : "r"(x0), "r"(x1));
        XOR3_(acc, acc, fu(h0), fu(h1))
        XOR3_(acc, acc, fu(h2), fu(h3))
#undef C1
#undef C2
#undef C3
#undef F1
        S = ((S ^ x3) & 0x00ff00ffu) | 0x20002000u;
        U = ((U + x7) & 0x00ff00ffu) | 0x24002400u;
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_HMUL2)
// HMUL2: chains x = x*S, x = U*x, x = x*U (ftz), x = S*x (f16x2), forms of S*U (rn, sat, ftz, bf16).
// No saturating form in the chains (a chain clamped to 1.0 would forget every earlier operand). ptxas
// moves about half of them to HFMA2.MMA (x*S + -0) and alternates the two: consecutive HMUL2 are few.
KERNEL(hmul2)
{
    PROLOGUE
    unsigned x0 = h12(w0), x1 = h12(w1), x2 = h12(w2), x3 = h12(w3), x4 = h12(w4), x5 = h12(w5), x6 = h12(w6),
             x7 = h12(w7);
    unsigned S = hnear1(w0 >> 4), U = hnear1(w1 >> 4);
    LOOP
    {
#define C1(j) H2_("mul.rn.f16x2", XJ(j), XJ(j), S)
#define C2(j) H2_("mul.rn.f16x2", XJ(j), U, XJ(j))
#define C3(j) H2_("mul.rn.ftz.f16x2", XJ(j), XJ(j), U)
#define C4(j) H2_("mul.rn.f16x2", XJ(j), S, XJ(j))
        X8(C1) X8(C2) X8(C3) X8(C4)
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
        H2_("mul.rn.f16x2", d0, S, U) H2_("mul.rn.sat.f16x2", d1, S, U) H2_("mul.rn.ftz.f16x2", d2, S, U)
        H2_("mul.rn.ftz.sat.f16x2", d3, S, U) H2_("mul.rn.bf16x2", d4, S, U) H2_("mul.rn.f16x2", d5, U, S)
        H2_("mul.rn.sat.f16x2", d6, U, S) H2_("mul.rn.bf16x2", d7, U, S)
#define F1(j) HFOLD_(XJ(j), d##j)
        X8(F1)
#undef C1
#undef C2
#undef C3
#undef C4
#undef F1
        S = hnear1(S ^ x3);
        U = hnear1(U + x7);
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, x7)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_HMNMX2)
// HMNMX2: min of the chains with S and the forms min/max x f16x2/bf16x2/NaN/ftz on (S, U); xor folds.
KERNEL(hmnmx2)
{
    PROLOGUE
    unsigned x0 = h12(w0), x1 = h12(w1), x2 = h12(w2), x3 = h12(w3), x4 = h12(w4), x5 = h12(w5), x6 = h12(w6),
             x7 = h12(w7);
    unsigned S = h12(w0 >> 3), U = h12(w1 >> 3), acc = w2;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) H2_("min.f16x2", d##j, XJ(j), S)
        X8(C1)
        ACC8(acc, d)
#define F1(j) HFOLD_(XJ(j), d##j)
        X8(F1)
        H2_("min.f16x2", d0, S, U) H2_("max.f16x2", d1, S, U) H2_("min.NaN.f16x2", d2, S, U)
        H2_("max.NaN.f16x2", d3, S, U) H2_("min.bf16x2", d4, S, U) H2_("max.bf16x2", d5, S, U)
        H2_("min.ftz.f16x2", d6, S, U) H2_("max.ftz.f16x2", d7, S, U)
        ACC8(acc, d)
#undef C1
#undef F1
        HFOLD_(S, acc)
        HFOLD_(U, x5)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

#if defined(RP_ALL) || defined(RP_ONLY_HSETP2)
// HSETP2: f16x2 comparisons of the chains with S and of S with U (both halves' predicates consumed by
// selects); xor folds.
#define SETPH_(c, d, a, b, x, y)                                                                             \
    asm volatile("{ .reg .pred p, q; setp." c ".f16x2 p|q, %1, %2; selp.b32 %0, %3, %4, p; @q xor.b32 %0, %0, 1; }" \
                 : "=r"(d)                                                                                   \
                 : "r"(a), "r"(b), "r"(x), "r"(y));
KERNEL(hsetp2)
{
    PROLOGUE
    unsigned x0 = h12(w0), x1 = h12(w1), x2 = h12(w2), x3 = h12(w3), x4 = h12(w4), x5 = h12(w5), x6 = h12(w6),
             x7 = h12(w7);
    unsigned S = h12(w0 >> 3), U = h12(w1 >> 3), V = w2, W = w3, acc = w4;
    LOOP
    {
        unsigned d0, d1, d2, d3, d4, d5, d6, d7;
#define C1(j) SETPH_("lt", d##j, XJ(j), S, V, W)
        X8(C1)
        ACC8(acc, d)
#define F1(j) HFOLD_(XJ(j), d##j)
        X8(F1)
        SETPH_("lt", d0, S, U, V, W) SETPH_("le", d1, S, U, W, V) SETPH_("gt", d2, S, U, V, W)
        SETPH_("ge", d3, S, U, W, V) SETPH_("eq", d4, S, U, V, W) SETPH_("ne", d5, S, U, W, V)
        SETPH_("ltu", d6, S, U, V, W) SETPH_("geu", d7, S, U, W, V)
        ACC8(acc, d)
#undef C1
#undef F1
        HFOLD_(S, acc)
        HFOLD_(U, x5)
        XOR3_(V, V, x6, acc)
    }
    EPILOGUE(x0, x1, x2, x3, x4, x5, x6, acc)
}
#endif

// =====================================================================================================
// FP64
// =====================================================================================================

#if defined(RP_ALL) || defined(RP_ONLY_DFMA)
// DFMA: chains x = x*S + T (f64), x = U*T + x, forms of S*U + T (rounding modes x sign).
#define DFMA_(m, d, a, b, c) asm volatile("fma." m ".f64 %0, %1, %2, %3;" : "=d"(d) : "d"(a), "d"(b), "d"(c));
KERNEL(dfma)
{
    PROLOGUE
    double x0 = f12(w0) + w4 * 0x1p-55, x1 = f12(w1) + w5 * 0x1p-55, x2 = f12(w2) + w6 * 0x1p-55,
           x3 = f12(w3) + w7 * 0x1p-55;
    double S = 1.0 + (w4 >> 8) * 0x1p-34, T = (w5 >> 8) * 0x1p-30, U = 1.0 + (w6 >> 8) * 0x1p-33;
    LOOP
    {
#define C1(j) DFMA_("rn", x##j, x##j, S, T)
#define C2(j) DFMA_("rz", x##j, U, T, x##j)
        X4(C1) X4(C2)
        double d0, d1, d2, d3;
        DFMA_("rn", d0, S, U, T) DFMA_("rz", d1, S, U, T) DFMA_("rm", d2, S, U, -T) DFMA_("rp", d3, S, U, -T)
#define F1(j) DFMA_("rn", x##j, d##j, T, x##j)
        X4(F1)
#undef C1
#undef C2
#undef F1
        DFMA_("rn", S, x2, 0x1p-30, 0.9999)
        DFMA_("rn", T, x3, 0x1p-33, 0.0)
    }
    unsigned long long b0 = __double_as_longlong(x0), b1 = __double_as_longlong(x1),
                       b2 = __double_as_longlong(x2), b3 = __double_as_longlong(x3);
    EPILOGUE((unsigned)b0, (unsigned)(b0 >> 32), (unsigned)b1, (unsigned)(b1 >> 32), (unsigned)b2,
             (unsigned)(b2 >> 32), (unsigned)b3, (unsigned)(b3 >> 32))
}
#endif

// =====================================================================================================
// HMMA (mma.sync m16n8k8, f16 -> f32): four accumulators, each updated by one A fragment and then by
// another (runs of four HMMAs with Ra shared), B fragment per accumulator (Rb shared across the runs).
// =====================================================================================================

#if defined(RP_ALL) || defined(RP_ONLY_HMMA)
#define MMA_(d, a, b)                                                                                        \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "          \
                 "{%0,%1,%2,%3};"                                                                            \
                 : "+f"(d##0), "+f"(d##1), "+f"(d##2), "+f"(d##3)                                            \
                 : "r"(a##0), "r"(a##1), "r"(b));
KERNEL(hmma)
{
    PROLOGUE
    unsigned a0 = hnear1(w0), a1 = hnear1(w1), e0 = hnear1(w2), e1 = hnear1(w3);
    unsigned b0 = hnear1(w4), b1 = hnear1(w5), b2 = hnear1(w6), b3 = hnear1(w7);
    float c0 = 0, c1 = 0, c2 = 0, c3 = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0, f0 = 0, f1 = 0, f2 = 0, f3 = 0,
          g0 = 0, g1 = 0, g2 = 0, g3 = 0;
    LOOP
    {
        MMA_(c, a, b0) MMA_(d, a, b1) MMA_(f, a, b2) MMA_(g, a, b3)
        MMA_(c, e, b0) MMA_(d, e, b1) MMA_(f, e, b2) MMA_(g, e, b3)
        a0 ^= fu(g0) & 0x00070007u;
        e1 ^= fu(f1) & 0x00070007u;
        b1 ^= fu(c2) & 0x00070007u;
        b2 ^= fu(d3) & 0x00070007u;
    }
    EPILOGUE(fu(c0) ^ fu(c1), fu(c2) ^ fu(c3), fu(d0) ^ fu(d1), fu(d2) ^ fu(d3), fu(f0) ^ fu(f1),
             fu(f2) ^ fu(f3), fu(g0) ^ fu(g1), fu(g2) ^ fu(g3))
}
#endif
