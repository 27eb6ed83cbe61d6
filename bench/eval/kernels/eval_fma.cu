// A compute-bound kernel of adjustable length (~200 us at iters=4096 on an H100 for n = 1M) with a
// small output, for the evaluator's throughput benchmark when no sample fits.
extern "C" __global__ void eval_fma(const float* x, float* out, int iters, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = 0.5f, c = 1.0f - x[i], d = 0.25f;
    for (int k = 0; k < iters; ++k) {
        a = fmaf(a, 0.9999f, 0.0001f);
        b = fmaf(b, 0.9998f, 0.0002f);
        c = fmaf(c, 0.9997f, 0.0003f);
        d = fmaf(d, 0.9996f, 0.0004f);
    }
    out[i] = a + b + c + d;
}
