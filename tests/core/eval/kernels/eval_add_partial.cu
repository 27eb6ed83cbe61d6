// Never writes the last element: only the poisoned output catches it.
extern "C" __global__ void eval_add(const float* x, const float* y, float* out, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) out[i] = a * x[i] + y[i];
}
