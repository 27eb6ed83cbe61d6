// sassx sample: fp16 tensor-core GEMM with a LeakyReLU epilogue.
//
//   C[M,N] = leaky_relu(A[M,K] * B[N,K]^T, alpha)      (A, B, C fp16, fp32 accumulate)
//
// B is stored N-major with K contiguous (the layout of an nn.Linear weight), so both operands
// are read with non-transposed ldmatrix.  Block tile 128x128x64, 8 warps (2 x 4, warp tile
// 64x32), mma.sync.m16n8k16, cp.async double buffering (2 stages x 32 KiB = 64 KiB of
// dynamic shared memory, so the launch needs the >48 KiB opt-in), XOR-swizzled 16-byte
// chunks so ldmatrix and cp.async are free of bank conflicts.
//
// Requirements: M % 128 == 0, N % 128 == 0, K % 64 == 0, 16-byte aligned pointers.
// Launch: grid (N/128, M/128), block 256, dynamic shared 65536.

#include <cuda_fp16.h>
#include <cstdint>

namespace {

constexpr int BM = 128, BN = 128, BK = 64;
constexpr int THREADS = 256;
constexpr int STAGES = 2;
constexpr int TILE_A_HALFS = BM * BK;  // 8192 halfs = 16 KiB
constexpr int TILE_B_HALFS = BN * BK;
constexpr int STAGE_HALFS = TILE_A_HALFS + TILE_B_HALFS;

// A row holds BK = 64 halfs = 8 chunks of 16 bytes; chunk c of row r lives at chunk c ^ (r & 7).
__device__ __forceinline__ int swz(int row, int chunk) {
    return row * BK + ((chunk ^ (row & 7)) << 3);
}

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldmatrix_x4(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                            uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
}

__device__ __forceinline__ void mma_16816(float* c, const uint32_t* a, const uint32_t* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Each of the 256 threads copies 4 chunks of A and 4 of B per stage (128 rows x 8 chunks each).
__device__ __forceinline__ void load_stage(half* sA, half* sB, const half* __restrict__ A,
                                           const half* __restrict__ B, int K, int k0, int tid) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int idx = tid + i * THREADS;  // 0..1023
        int row = idx >> 3, chunk = idx & 7;
        cp_async16(smem_u32(sA + swz(row, chunk)), A + (size_t)row * K + k0 + chunk * 8);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int idx = tid + i * THREADS;
        int row = idx >> 3, chunk = idx & 7;
        cp_async16(smem_u32(sB + swz(row, chunk)), B + (size_t)row * K + k0 + chunk * 8);
    }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
hgemm_leakyrelu(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
                int M, int N, int K, float alpha) {
    extern __shared__ __align__(128) half smem[];

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int warp_m = warp >> 2;  // 0..1 -> 64 rows each
    const int warp_n = warp & 3;   // 0..3 -> 32 cols each

    const int block_m = blockIdx.y * BM;
    const int block_n = blockIdx.x * BN;
    const half* gA = A + (size_t)block_m * K;
    const half* gB = B + (size_t)block_n * K;

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

    const int ktiles = K / BK;

    load_stage(smem, smem + TILE_A_HALFS, gA, gB, K, 0, tid);
    cp_async_commit();

    // ldmatrix lane roles (see docs/samples.md): A: row = lane % 16, chunk = lane / 16;
    // B (two n8 tiles per x4): row = (lane & 7) + ((lane >> 4) << 3), chunk = (lane >> 3) & 1.
    const int a_row = warp_m * 64 + (lane & 15);
    const int a_chk = lane >> 4;
    const int b_row = warp_n * 32 + (lane & 7) + ((lane >> 4) << 3);
    const int b_chk = (lane >> 3) & 1;

    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt & 1;
        if (kt + 1 < ktiles) {
            half* nxt = smem + (cur ^ 1) * STAGE_HALFS;
            load_stage(nxt, nxt + TILE_A_HALFS, gA, gB, K, (kt + 1) * BK, tid);
        }
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();

        const half* sA = smem + cur * STAGE_HALFS;
        const half* sB = sA + TILE_A_HALFS;
#pragma unroll
        for (int ks = 0; ks < BK / 16; ++ks) {
            uint32_t af[4][4];
            uint32_t bf[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
                ldmatrix_x4(af[mi][0], af[mi][1], af[mi][2], af[mi][3],
                            smem_u32(sA + swz(a_row + mi * 16, ks * 2 + a_chk)));
#pragma unroll
            for (int nj = 0; nj < 2; ++nj)
                ldmatrix_x4(bf[2 * nj][0], bf[2 * nj][1], bf[2 * nj + 1][0], bf[2 * nj + 1][1],
                            smem_u32(sB + swz(b_row + nj * 16, ks * 2 + b_chk)));
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < 4; ++ni) mma_16816(acc[mi][ni], af[mi], bf[ni]);
        }
        __syncthreads();  // the next iteration overwrites this stage
    }

    // Epilogue: LeakyReLU, fp16, half2 stores.
    const int g = lane >> 2, q = lane & 3;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
            const int row = block_m + warp_m * 64 + mi * 16 + g;
            const int col = block_n + warp_n * 32 + ni * 8 + q * 2;
            float v0 = acc[mi][ni][0], v1 = acc[mi][ni][1];
            float v2 = acc[mi][ni][2], v3 = acc[mi][ni][3];
            v0 = v0 > 0.f ? v0 : v0 * alpha;
            v1 = v1 > 0.f ? v1 : v1 * alpha;
            v2 = v2 > 0.f ? v2 : v2 * alpha;
            v3 = v3 > 0.f ? v3 : v3 * alpha;
            *reinterpret_cast<half2*>(C + (size_t)row * N + col) = __floats2half2_rn(v0, v1);
            *reinterpret_cast<half2*>(C + (size_t)(row + 8) * N + col) = __floats2half2_rn(v2, v3);
        }
    }
}
