// test_line_table: two kernels in one cubin (two sequences per line table) with nested inlining
// (red → __shfl_xor_sync), so .debug_line carries NVIDIA's inlining opcode. Compiled by the test with
// nvcc -cubin -O3 -lineinfo -arch=sm_90.
__device__ __forceinline__ float red(float x)
{
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

extern "C" __global__ void k1(float* a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = red(a[i]) + 1.0f;
}

extern "C" __global__ void k2(float* a, const float* b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = red(b[i]) * a[i];
    if (i + 1 < n) a[i + 1] += red(b[i] * 2.0f);
}
