// sassx sample: fp32 SIMT GEMM with a LeakyReLU epilogue.
//
//   C[M,N] = leaky_relu(A[M,K] * B[K,N], alpha)      (all row-major fp32)
//
// Block tile 128x128x8, 256 threads, 8x8 outputs per thread (two 4x4 quadrants 64 apart so
// the LDS.128 reads are conflict-free), shared-memory double buffering fed through registers
// (LDG.128 -> STS, A transposed into shared as As[k][m]), one __syncthreads per k-tile.
//
// Requirements: M % 128 == 0, N % 128 == 0, K % 8 == 0, 16-byte aligned pointers.
// Launch: grid (N/128, M/128), block 256, no dynamic shared memory.

namespace {
constexpr int BM = 128, BN = 128, BK = 8;
constexpr int THREADS = 256;
}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS, 2)
sgemm_leakyrelu(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K, float alpha) {
    __shared__ __align__(16) float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid & 15;  // column group
    const int ty = tid >> 4;  // row group

    const int block_m = blockIdx.y * BM;
    const int block_n = blockIdx.x * BN;

    // Global -> shared mapping: A tile 128x8 (one float4 along k per thread),
    // B tile 8x128 (one float4 along n per thread).
    const int a_row = tid >> 1, a_col = (tid & 1) * 4;
    const int b_row = tid >> 5, b_col = (tid & 31) * 4;
    const float* gA = A + (size_t)(block_m + a_row) * K + a_col;
    const float* gB = B + (size_t)b_row * N + block_n + b_col;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

    float4 ra = *reinterpret_cast<const float4*>(gA);
    float4 rb = *reinterpret_cast<const float4*>(gB);
    As[0][a_col + 0][a_row] = ra.x;
    As[0][a_col + 1][a_row] = ra.y;
    As[0][a_col + 2][a_row] = ra.z;
    As[0][a_col + 3][a_row] = ra.w;
    *reinterpret_cast<float4*>(&Bs[0][b_row][b_col]) = rb;
    __syncthreads();

    const int ktiles = K / BK;
    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < ktiles;
        if (more) {  // prefetch the next tile into registers while this one is consumed
            ra = *reinterpret_cast<const float4*>(gA + (kt + 1) * BK);
            rb = *reinterpret_cast<const float4*>(gB + (size_t)(kt + 1) * BK * N);
        }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[cur][k][ty * 4]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[cur][k][ty * 4 + 64]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[cur][k][tx * 4]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[cur][k][tx * 4 + 64]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (more) {
            const int nxt = cur ^ 1;
            As[nxt][a_col + 0][a_row] = ra.x;
            As[nxt][a_col + 1][a_row] = ra.y;
            As[nxt][a_col + 2][a_row] = ra.z;
            As[nxt][a_col + 3][a_row] = ra.w;
            *reinterpret_cast<float4*>(&Bs[nxt][b_row][b_col]) = rb;
        }
        __syncthreads();
    }

    // Epilogue: LeakyReLU and float4 stores.
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = block_m + ty * 4 + (i & 3) + (i >> 2) * 64;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = block_n + tx * 4 + h * 64;
            float4 v;
            v.x = acc[i][h * 4 + 0];
            v.y = acc[i][h * 4 + 1];
            v.z = acc[i][h * 4 + 2];
            v.w = acc[i][h * 4 + 3];
            v.x = v.x > 0.f ? v.x : v.x * alpha;
            v.y = v.y > 0.f ? v.y : v.y * alpha;
            v.z = v.z > 0.f ? v.z : v.z * alpha;
            v.w = v.w > 0.f ? v.w : v.w * alpha;
            *reinterpret_cast<float4*>(C + (size_t)row * N + col) = v;
        }
    }
}
