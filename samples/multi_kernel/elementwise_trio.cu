// sassx sample: three small fp32 kernels in one cubin, so that opening it asks which kernel (the
// explorer's kernel picker and `--kernel` on the CLI are exercised by a real multi-kernel file).
//
//   trio_axpy:        y[i] = a * x[i] + y[i]
//   trio_scale:       y[i] = a * x[i]
//   trio_square_add:  y[i] = x[i] * x[i] + b[i]       (the one the launch spec runs)
//
// Each thread handles four consecutive floats through one 128-bit load per input (LDG.128) and one
// 128-bit store (STG.128); n4 counts float4s.
//
// Launch (trio_square_add): grid (n4 / 256), block 256, no dynamic shared memory.

extern "C" __global__ void __launch_bounds__(256)
    trio_axpy(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    const float4 xv = x[i];
    float4 yv = y[i];
    yv.x = fmaf(a, xv.x, yv.x);
    yv.y = fmaf(a, xv.y, yv.y);
    yv.z = fmaf(a, xv.z, yv.z);
    yv.w = fmaf(a, xv.w, yv.w);
    y[i] = yv;
}

extern "C" __global__ void __launch_bounds__(256)
    trio_scale(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    const float4 xv = x[i];
    y[i] = make_float4(a * xv.x, a * xv.y, a * xv.z, a * xv.w);
}

extern "C" __global__ void __launch_bounds__(256)
    trio_square_add(const float4* __restrict__ x, const float4* __restrict__ b, float4* __restrict__ y,
                    int n4)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    const float4 xv = x[i];
    const float4 bv = b[i];
    y[i] = make_float4(fmaf(xv.x, xv.x, bv.x), fmaf(xv.y, xv.y, bv.y), fmaf(xv.z, xv.z, bv.z),
                       fmaf(xv.w, xv.w, bv.w));
}
