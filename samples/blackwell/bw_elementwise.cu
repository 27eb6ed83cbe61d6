// sassx Blackwell sample: bias + GELU (tanh form) over fp16 rows, vectorised (memory bound).
//
//   y[i] = gelu(x[i] + b[i % cols])        x, y: [rows, cols] fp16, b: [cols] fp16
//
// Each thread handles eight halves through one 128-bit load and one 128-bit store; the bias load is
// independent of x's, so ptxas may order them either way. On sm_100a/sm_120 the kernel parameters
// are read with LDCU (a scoreboarded uniform constant load) where Hopper uses ULDC.
//
// Launch: grid (rows * cols / 8 / 256), block 256, no dynamic shared memory; cols a multiple of 8.

#include <cstdint>
#include <cuda_fp16.h>

namespace {
constexpr int THREADS = 256;
constexpr int VEC = 8;

__device__ __forceinline__ float gelu(float v)
{
    const float k0 = 0.7978845608f, k1 = 0.044715f;
    return 0.5f * v * (1.f + tanhf(k0 * (v + k1 * v * v * v)));
}
} // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
    bw_bias_gelu(const half* __restrict__ x, const half* __restrict__ b, half* __restrict__ y, int cols,
                 long long n)
{
    const long long i = ((long long)blockIdx.x * THREADS + threadIdx.x) * VEC;
    if (i >= n) return;
    const uint4 xv = *reinterpret_cast<const uint4*>(x + i);
    const uint4 bv = *reinterpret_cast<const uint4*>(b + (int)(i % cols));
    uint4 out;
    const half2* xh = reinterpret_cast<const half2*>(&xv);
    const half2* bh = reinterpret_cast<const half2*>(&bv);
    half2* oh = reinterpret_cast<half2*>(&out);
#pragma unroll
    for (int k = 0; k < VEC / 2; ++k) {
        const float2 s = __half22float2(__hadd2(xh[k], bh[k]));
        oh[k] = __floats2half2_rn(gelu(s.x), gelu(s.y));
    }
    *reinterpret_cast<uint4*>(y + i) = out;
}
