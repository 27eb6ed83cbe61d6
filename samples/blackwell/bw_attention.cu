// sassx Blackwell sample: attention-like decode step, one query row per warp, head dim 64, fp32.
//
//   o[r, :] = softmax(q[r, :] · K[0:S, :]ᵀ * scale) · V[0:S, :]      q, o: [rows, 64], K, V: [S, 64]
//
// Four warps a block share 32-key tiles of K and V staged in shared memory (LDG.128 → STS.128, one
// BAR.SYNC a tile). Each lane owns two of the 64 dimensions: the q·k dot product is reduced across
// the warp with shuffles, the running max and sum are the online softmax (MUFU.EX2), and the
// accumulator is rescaled each key. Enough of every class (LDG/STS/LDS, FFMA chains, SHFL, MUFU,
// BAR) to show a Blackwell schedule's dependencies and walls.
//
// Launch: grid (rows / 4), block 128, no dynamic shared memory; S a multiple of 32.

#include <cstdint>

namespace {
constexpr int HEAD = 64;
constexpr int WARPS = 4;
constexpr int TILE = 32;
} // namespace

extern "C" __global__ void __launch_bounds__(WARPS * 32)
    bw_attention_decode(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                        float* __restrict__ o, int seq, float scale)
{
    __shared__ __align__(16) float ks[TILE][HEAD];
    __shared__ __align__(16) float vs[TILE][HEAD];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row = blockIdx.x * WARPS + warp;
    const float2 qv = reinterpret_cast<const float2*>(q + (size_t)row * HEAD)[lane];

    float m = -INFINITY, l = 0.f;
    float2 acc = make_float2(0.f, 0.f);
    for (int t = 0; t < seq; t += TILE) {
        // 32 keys × 64 floats = 512 float4 per matrix, four per thread.
#pragma unroll
        for (int c = 0; c < TILE * HEAD / 4 / (WARPS * 32); ++c) {
            const int idx = threadIdx.x + c * WARPS * 32;
            reinterpret_cast<float4*>(&ks[0][0])[idx] =
                reinterpret_cast<const float4*>(k + (size_t)t * HEAD)[idx];
            reinterpret_cast<float4*>(&vs[0][0])[idx] =
                reinterpret_cast<const float4*>(v + (size_t)t * HEAD)[idx];
        }
        __syncthreads();
#pragma unroll 4
        for (int j = 0; j < TILE; ++j) {
            const float2 kk = reinterpret_cast<const float2*>(ks[j])[lane];
            float s = qv.x * kk.x + qv.y * kk.y;
#pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                s += __shfl_xor_sync(0xffffffffu, s, off);
            s *= scale;
            const float mNew = fmaxf(m, s);
            const float corr = exp2f((m - mNew) * 1.4426950409f);
            const float p = exp2f((s - mNew) * 1.4426950409f);
            const float2 vv = reinterpret_cast<const float2*>(vs[j])[lane];
            acc.x = acc.x * corr + p * vv.x;
            acc.y = acc.y * corr + p * vv.y;
            l = l * corr + p;
            m = mNew;
        }
        __syncthreads();
    }
    const float inv = 1.f / l;
    reinterpret_cast<float2*>(o + (size_t)row * HEAD)[lane] = make_float2(acc.x * inv, acc.y * inv);
}
