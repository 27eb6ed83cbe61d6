// Sample kernels with known facts for test_cubin: parameter layout, exits, shared memory, launch
// bounds, and (with -rdc) relocations in the text.
__global__ void params_kernel(float a, double* p, int n, char c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    p[i] = a * p[i] + c;
}

__device__ int g_counter;

__global__ void __launch_bounds__(256) shared_kernel(const float* __restrict__ in, float* out, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0;
        for (int k = 0; k < 256; ++k)
            s += tile[k];
        out[blockIdx.x] = s;
        atomicAdd(&g_counter, 1);
    }
}
