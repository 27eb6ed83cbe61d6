// Never finishes: x holds values in [-1, 1), never 12345.
extern "C" __global__ void eval_add(const float* x, const float* y, float* out, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (*reinterpret_cast<const volatile float*>(x) != 12345.0f) {
    }
    if (i < n) out[i] = a * x[i] + y[i];
}
