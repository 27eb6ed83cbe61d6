// sassx Blackwell sample: fp16 GEMM tile with fp32 accumulation in tensor memory (tcgen05), LeakyReLU
// epilogue.
//
//   C[M, N] = leaky_relu(A[M, K] · B[N, K]ᵀ)       A, B K-contiguous fp16, C fp16 row-major
//
// One block of 128 threads owns a 128×64 tile of C. Per 64-wide k-tile every thread stages A and B
// into shared memory in the unswizzled K-major core-matrix layout (8 rows × 16 bytes a core matrix),
// a proxy fence makes the stores visible to the tensor core, and thread 0 issues four
// tcgen05.mma (M=128, N=64, K=16) into 64 columns of tensor memory and commits them to an mbarrier
// that every thread waits on before the tile is overwritten. The epilogue reads the accumulator back
// with tcgen05.ld (a warp reads its 32 lanes = 32 rows), applies LeakyReLU and stores fp16.
//
// sm_100a/sm_103a compile the tcgen05 path (UTCHMMA, UTCBAR, LDTM in SASS). sm_120 has no tensor
// memory and no tcgen05, so its build takes the mma.sync path (wmma, HMMA in SASS) of the same tile.
// This kernel is a schedule sample: it has not been run on a Blackwell GPU, and sassx ships no launch
// spec for it until one has checked its output.
//
// Launch: grid (N / 64, M / 128), block 128, no dynamic shared memory; M, N, K tile-divisible.

#include <cstdint>
#include <cuda_fp16.h>
#if !(defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL))
#include <mma.h>
#endif

namespace {
constexpr int BM = 128, BN = 64, BK = 64, MMA_K = 16;
constexpr int THREADS = 128;
constexpr float SLOPE = 0.01f;

__device__ __forceinline__ half leaky(float v)
{
    return __float2half_rn(v > 0.f ? v : v * SLOPE);
}

#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)
// Shared-memory matrix descriptor: start, leading (K-direction) and stride (M/N-direction) byte
// offsets in 16-byte units, the fixed version bits (0b001 at bit 46), no swizzle.
__device__ __forceinline__ uint64_t smemDesc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr >> 4) & 0x3fff) | ((uint64_t)((lbo >> 4) & 0x3fff) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3fff) << 32) | (1ull << 46);
}

// Instruction descriptor of kind::f16: D fp32, A and B fp16, both K-major, N >> 3 and M >> 4.
constexpr uint32_t kIdesc = (1u << 4) | ((uint32_t)(BN >> 3) << 17) | ((uint32_t)(BM >> 4) << 24);

// Byte offset of element (row, k) of a rows×BK tile in the core-matrix layout.
__device__ __forceinline__ uint32_t coreOffset(int row, int k)
{
    return ((row >> 3) * (BK / 8) + (k >> 3)) * 128 + (row & 7) * 16 + (k & 7) * 2;
}
#endif
} // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
    bw_gemm_tcgen05(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M,
                    int N, int K)
{
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, tid = threadIdx.x;
#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)
    __shared__ __align__(1024) uint8_t as[BM * BK * 2];
    __shared__ __align__(1024) uint8_t bs[BN * BK * 2];
    __shared__ __align__(8) uint64_t mbar;
    __shared__ uint32_t tmemBase;
    const uint32_t asAddr = (uint32_t)__cvta_generic_to_shared(as);
    const uint32_t bsAddr = (uint32_t)__cvta_generic_to_shared(bs);
    const uint32_t mbarAddr = (uint32_t)__cvta_generic_to_shared(&mbar);

    if (tid < 32) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                         (uint32_t)__cvta_generic_to_shared(&tmemBase)),
                     "r"(BN));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
    }
    if (tid == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mbarAddr));
    asm volatile("tcgen05.fence::before_thread_sync;");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;");
    const uint32_t tmem = tmemBase;

    uint32_t phase = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        // A: 128 rows × 8 chunks of 16 bytes, eight chunks a thread; B: 64 rows, four a thread.
#pragma unroll
        for (int c = 0; c < BM * BK / 8 / THREADS; ++c) {
            const int chunk = tid + c * THREADS, row = chunk / (BK / 8), k = (chunk % (BK / 8)) * 8;
            *reinterpret_cast<uint4*>(as + coreOffset(row, k)) =
                *reinterpret_cast<const uint4*>(A + (size_t)(m0 + row) * K + k0 + k);
        }
#pragma unroll
        for (int c = 0; c < BN * BK / 8 / THREADS; ++c) {
            const int chunk = tid + c * THREADS, row = chunk / (BK / 8), k = (chunk % (BK / 8)) * 8;
            *reinterpret_cast<uint4*>(bs + coreOffset(row, k)) =
                *reinterpret_cast<const uint4*>(B + (size_t)(n0 + row) * K + k0 + k);
        }
        asm volatile("fence.proxy.async.shared::cta;");
        __syncthreads();
        if (tid == 0) {
            asm volatile("tcgen05.fence::after_thread_sync;");
#pragma unroll
            for (int kk = 0; kk < BK / MMA_K; ++kk) {
                const uint64_t ad = smemDesc(asAddr + kk * 256, 128, 1024);
                const uint64_t bd = smemDesc(bsAddr + kk * 256, 128, 1024);
                const uint32_t accumulate = (k0 > 0 || kk > 0) ? 1u : 0u;
                asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                             "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
                             "l"(ad), "l"(bd), "r"(kIdesc), "r"(accumulate));
            }
            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                mbarAddr));
        }
        asm volatile("{\n\t.reg .pred done;\n\tWAIT_%=:\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                     "@!done bra WAIT_%=;\n\t}" ::"r"(mbarAddr),
                     "r"(phase));
        phase ^= 1;
    }
    asm volatile("tcgen05.fence::after_thread_sync;");

    // Warp w reads lanes 32w..32w+31 (rows) of the 64 accumulator columns, 16 at a time.
    const int warp = tid >> 5, row = m0 + warp * 32 + (tid & 31);
#pragma unroll
    for (int c0 = 0; c0 < BN; c0 += 16) {
        uint32_t r[16];
        asm volatile(
            "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%"
            "15}, [%16];"
            : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
              "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
              "=r"(r[15])
            : "r"(tmem + ((uint32_t)(warp * 32) << 16) + c0));
        asm volatile("tcgen05.wait::ld.sync.aligned;");
        __align__(16) half out[16];
#pragma unroll
        for (int i = 0; i < 16; ++i)
            out[i] = leaky(__uint_as_float(r[i]));
        uint4* dst = reinterpret_cast<uint4*>(C + (size_t)row * N + n0 + c0);
        dst[0] = reinterpret_cast<const uint4*>(out)[0];
        dst[1] = reinterpret_cast<const uint4*>(out)[1];
    }
    asm volatile("tcgen05.fence::before_thread_sync;");
    __syncthreads();
    if (tid < 32) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem), "r"(BN));
#else
    // mma.sync path: four warps as 4×1, each a 32×64 slab as 2×4 wmma 16×16×16 tiles.
    using namespace nvcuda;
    __shared__ __align__(32) half as[BM][BK + 8];
    __shared__ __align__(32) half bs[BN][BK + 8];
    __shared__ __align__(32) float cs[THREADS / 32][16][16];
    const int warp = tid >> 5;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            wmma::fill_fragment(acc[i][j], 0.f);
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int c = 0; c < BM * BK / 8 / THREADS; ++c) {
            const int chunk = tid + c * THREADS, row = chunk / (BK / 8), k = (chunk % (BK / 8)) * 8;
            *reinterpret_cast<uint4*>(&as[row][k]) =
                *reinterpret_cast<const uint4*>(A + (size_t)(m0 + row) * K + k0 + k);
        }
#pragma unroll
        for (int c = 0; c < BN * BK / 8 / THREADS; ++c) {
            const int chunk = tid + c * THREADS, row = chunk / (BK / 8), k = (chunk % (BK / 8)) * 8;
            *reinterpret_cast<uint4*>(&bs[row][k]) =
                *reinterpret_cast<const uint4*>(B + (size_t)(n0 + row) * K + k0 + k);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += MMA_K) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b[4];
#pragma unroll
            for (int i = 0; i < 2; ++i)
                wmma::load_matrix_sync(a[i], &as[warp * 32 + i * 16][kk], BK + 8);
#pragma unroll
            for (int j = 0; j < 4; ++j)
                wmma::load_matrix_sync(b[j], &bs[j * 16][kk], BK + 8);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            wmma::store_matrix_sync(&cs[warp][0][0], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int lane = tid & 31;
#pragma unroll
            for (int e = lane; e < 256; e += 32)
                C[(size_t)(m0 + warp * 32 + i * 16 + e / 16) * N + n0 + j * 16 + e % 16] =
                    leaky(cs[warp][e / 16][e % 16]);
            __syncwarp();
        }
#endif
}
