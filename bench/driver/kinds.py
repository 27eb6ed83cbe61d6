#!/usr/bin/env python3
"""Small programs whose kernels no Triton hook sees, one per kind the driver hook must reach
(docs/driver-capture.md): a torch.utils.cpp_extension.load_inline kernel, a CuPy RawKernel (NVRTC) and a
jax.jit program (XLA's kernels).  Each prints `step_ms=` per timed step and `out_sha256=` of its result,
so that a run with the tuned kernels can be checked equal to the untuned run's.

    python3 bench/driver/kinds.py cpp_ext|cupy|jax [--steps 20]
"""
import argparse
import hashlib
import sys
import time

# A tiled matrix product with a bias and a ReLU, enough work per launch for a schedule to matter.
CUDA_SOURCE = r"""
extern "C" __global__ void tiled_gemm_bias_relu(const float* a, const float* b, const float* bias, float* c,
                                                 int n)
{
    __shared__ float ta[32][33], tb[32][33];
    int row = blockIdx.y * 32 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 32) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; ++k)
            acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = fmaxf(acc + bias[col], 0.0f);
}
"""
N = 2048


def timed(step, sync, steps):
    for _ in range(3):
        out = step()
    sync()
    for _ in range(steps):
        t0 = time.perf_counter()
        out = step()
        sync()
        print(f"step_ms={(time.perf_counter() - t0) * 1000:.4f}", flush=True)
    return out


def cpp_ext(steps):
    import torch
    from torch.utils.cpp_extension import load_inline
    cpp = "torch::Tensor gemm(torch::Tensor a, torch::Tensor b, torch::Tensor bias);"
    cu = CUDA_SOURCE + r"""
#include <torch/extension.h>
torch::Tensor gemm(torch::Tensor a, torch::Tensor b, torch::Tensor bias) {
    auto c = torch::empty_like(a);
    int n = a.size(0);
    tiled_gemm_bias_relu<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(a.data_ptr<float>(), b.data_ptr<float>(),
        bias.data_ptr<float>(), c.data_ptr<float>(), n);
    return c;
}
"""
    mod = load_inline("sassx_kinds_gemm", cpp, cuda_sources=cu, functions=["gemm"], verbose=False,
                      extra_cuda_cflags=["-O3", "-arch=sm_90"])
    g = torch.Generator(device="cuda").manual_seed(0)
    a, b = (torch.randn(N, N, device="cuda", generator=g) for _ in range(2))
    bias = torch.randn(N, device="cuda", generator=g)
    out = timed(lambda: mod.gemm(a, b, bias), torch.cuda.synchronize, steps)
    return out.cpu().numpy().tobytes()


def cupy(steps):
    import cupy as cp
    kernel = cp.RawKernel(CUDA_SOURCE, "tiled_gemm_bias_relu", options=("-arch=sm_90",))
    rs = cp.random.RandomState(0)
    a, b = (rs.standard_normal((N, N), dtype=cp.float32) for _ in range(2))
    bias = rs.standard_normal(N, dtype=cp.float32)
    c = cp.empty_like(a)

    def step():
        kernel((N // 32, N // 32), (32, 32), (a, b, bias, c, cp.int32(N)))
        return c
    out = timed(step, cp.cuda.Device().synchronize, steps)
    return cp.asnumpy(out).tobytes()


def jax_prog(steps):
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x, w):
        for _ in range(4):
            x = jax.nn.softmax(x @ w, axis=-1) * 2.0 + x
        return x
    k1, k2 = jax.random.split(jax.random.PRNGKey(0))
    x = jax.random.normal(k1, (4096, 1024), dtype=jnp.float32)
    w = jax.random.normal(k2, (1024, 1024), dtype=jnp.float32) * 0.03
    out = timed(lambda: f(x, w).block_until_ready(), lambda: None, steps)
    return jax.device_get(out).tobytes()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=("cpp_ext", "cupy", "jax"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=0, help="accepted for the bench scripts; the programs warm up 3")
    a = ap.parse_args()
    blob = {"cpp_ext": cpp_ext, "cupy": cupy, "jax": jax_prog}[a.kind](a.steps)
    print(f"out_sha256={hashlib.sha256(blob).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
