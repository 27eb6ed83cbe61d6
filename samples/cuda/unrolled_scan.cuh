// sassx sample body shared by big_unrolled.cu and huge_unrolled.cu.
//
// A fully unrolled 8-state linear recurrence (the shape of a diagonal state-space / IIR filter
// bank scan): every thread owns one channel and walks up to `steps` time steps:
//
//   h_k = a_k * h_k + b_{t mod 16, k} * x[t, ch]        k = 0..7
//   y[t, ch] = sum_k c_k * h_k
//
// x, y: [steps, channels] fp32 (row t contiguous over channels); coef: 144 fp32 =
// a[8], c[8], b[16][8] (copied to shared memory; ptxas keeps most of it in registers).
// Each step is one LDG, ~24 FP32 ops, address arithmetic and one STG.  The code is unrolled
// with the preprocessor (nvcc declines to fully unroll thousands of iterations, and template
// pack expansion made cicc far slower) in chunks of 64 steps, as one straight-line block
// (a per-chunk early exit tripled cicc's time).
//
// Launch: grid (channels/256), block 256, no dynamic shared memory; channels % 256 == 0;
// steps must equal the kernel's compiled step count (checked: the kernel returns otherwise).
#pragma once

#ifndef SASSX_UNROLL_STEPS
#error "define SASSX_UNROLL_STEPS (a multiple of 64) before including unrolled_scan.cuh"
#endif

#define SASSX_SCAN_STEP(T)                                   \
    {                                                        \
        const float xt = __ldg(xp + (size_t)(T) * channels); \
        const float4 b0 = s_b[((T) & 15) * 2];               \
        const float4 b1 = s_b[((T) & 15) * 2 + 1];           \
        h0 = fmaf(a0, h0, b0.x * xt);                        \
        h1 = fmaf(a1, h1, b0.y * xt);                        \
        h2 = fmaf(a2, h2, b0.z * xt);                        \
        h3 = fmaf(a3, h3, b0.w * xt);                        \
        h4 = fmaf(a4, h4, b1.x * xt);                        \
        h5 = fmaf(a5, h5, b1.y * xt);                        \
        h6 = fmaf(a6, h6, b1.z * xt);                        \
        h7 = fmaf(a7, h7, b1.w * xt);                        \
        float acc = c0 * h0;                                 \
        acc = fmaf(c1, h1, acc);                             \
        acc = fmaf(c2, h2, acc);                             \
        acc = fmaf(c3, h3, acc);                             \
        acc = fmaf(c4, h4, acc);                             \
        acc = fmaf(c5, h5, acc);                             \
        acc = fmaf(c6, h6, acc);                             \
        acc = fmaf(c7, h7, acc);                             \
        yp[(size_t)(T) * channels] = acc;                    \
    }
#define SASSX_SCAN_STEP4(T) \
    SASSX_SCAN_STEP(T) SASSX_SCAN_STEP((T) + 1) SASSX_SCAN_STEP((T) + 2) SASSX_SCAN_STEP((T) + 3)
#define SASSX_SCAN_STEP16(T) \
    SASSX_SCAN_STEP4(T) SASSX_SCAN_STEP4((T) + 4) SASSX_SCAN_STEP4((T) + 8) SASSX_SCAN_STEP4((T) + 12)
#define SASSX_SCAN_CHUNK(T)                                                      \
    SASSX_SCAN_STEP16(T) SASSX_SCAN_STEP16((T) + 16) SASSX_SCAN_STEP16((T) + 32) \
        SASSX_SCAN_STEP16((T) + 48)
#define SASSX_SCAN_CHUNK4(T) \
    SASSX_SCAN_CHUNK(T) SASSX_SCAN_CHUNK((T) + 64) SASSX_SCAN_CHUNK((T) + 128) SASSX_SCAN_CHUNK((T) + 192)

// Kernel prologue: defines the names the step macro uses.
#define SASSX_SCAN_PROLOGUE                                                        \
    __shared__ __align__(16) float s_coef[144];                                    \
    if (threadIdx.x < 144) s_coef[threadIdx.x] = coef[threadIdx.x];                \
    __syncthreads();                                                               \
    const int ch = blockIdx.x * blockDim.x + threadIdx.x;                          \
    const float a0 = s_coef[0], a1 = s_coef[1], a2 = s_coef[2], a3 = s_coef[3];    \
    const float a4 = s_coef[4], a5 = s_coef[5], a6 = s_coef[6], a7 = s_coef[7];    \
    const float c0 = s_coef[8], c1 = s_coef[9], c2 = s_coef[10], c3 = s_coef[11];  \
    const float c4 = s_coef[12], c5 = s_coef[13], c6 = s_coef[14], c7 = s_coef[15]; \
    float h0 = 0.f, h1 = 0.f, h2 = 0.f, h3 = 0.f, h4 = 0.f, h5 = 0.f, h6 = 0.f, h7 = 0.f; \
    const float4* s_b = reinterpret_cast<const float4*>(s_coef + 16);             \
    const float* xp = x + ch;                                                      \
    float* yp = y + ch;                                                            \
    if (steps != SASSX_UNROLL_STEPS) return;
#define SASSX_SCAN_CHUNK16(T) \
    SASSX_SCAN_CHUNK4(T) SASSX_SCAN_CHUNK4((T) + 256) SASSX_SCAN_CHUNK4((T) + 512) SASSX_SCAN_CHUNK4((T) + 768)
