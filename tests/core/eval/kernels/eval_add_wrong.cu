// Wrong in one element only: the comparator must find it.
extern "C" __global__ void eval_add(const float* x, const float* y, float* out, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i] + (i == n / 2 ? 1e-3f : 0.0f);
}
