// A store moved far out of bounds: illegal address, the context dies.
extern "C" __global__ void eval_add(const float* x, const float* y, float* out, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) *reinterpret_cast<float*>(reinterpret_cast<char*>(out + i) + (1ull << 44)) = a * x[i] + y[i];
}
