"""sassx Triton sample: fp16 GEMM + LeakyReLU (C = leaky_relu(A @ B), fp32 accumulate).

A: [M, K], B: [K, N], C: [M, N], all fp16 row-major.  Blocked like the Triton matmul tutorial
(grouped program order for L2 reuse); no masks, so M, N % BLOCK_M/N == 0 and K % BLOCK_K == 0.
On sm_90 Triton lowers tl.dot to wgmma (HGMMA) fed by a cp.async (LDGSTS) multi-stage pipeline.
"""
import triton
import triton.language as tl

CONFIG = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3)


@triton.jit
def gemm_leakyrelu(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, alpha,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    first_m = group * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % rows_in_group
    pid_n = (pid % per_group) // rows_in_group

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_tile = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a_tile), tl.load(b_tile), acc)
        a_tile += BLOCK_K
        b_tile += BLOCK_K * stride_bk

    acc = tl.where(acc >= 0.0, acc, acc * alpha)
    c_tile = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_tile, acc.to(tl.float16))


def run(M=2048, N=2048, K=2048, alpha=0.01, seed=0):
    """Compile and run once; returns (compiled kernel, grid, args dict, output, reference)."""
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = (torch.rand((M, K), device="cuda", generator=g) * 2 - 1).half()
    b = (torch.rand((K, N), device="cuda", generator=g) * 2 - 1).half()
    c = torch.zeros((M, N), device="cuda", dtype=torch.float16)
    cfg = CONFIG
    grid = (triton.cdiv(M, cfg["BLOCK_M"]) * triton.cdiv(N, cfg["BLOCK_N"]), 1, 1)
    ck = gemm_leakyrelu[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), alpha, **cfg)
    torch.cuda.synchronize()
    ref = torch.nn.functional.leaky_relu(a.float() @ b.float(), alpha)
    return ck, grid, c.float(), ref


def spec_params(M=2048, N=2048, K=2048, alpha=0.01):
    """Launch-spec entries of the kernel's runtime (non-constexpr) parameters, in order."""
    U = {"kind": "uniform", "low": -1.0, "high": 1.0}
    return [
        {"name": "a_ptr", "kind": "buffer", "dtype": "f16", "count": M * K, "init": U, "role": "input"},
        {"name": "b_ptr", "kind": "buffer", "dtype": "f16", "count": K * N, "init": U, "role": "input"},
        {"name": "c_ptr", "kind": "buffer", "dtype": "f16", "count": M * N, "init": {"kind": "zeros"},
         "role": "output"},
        {"name": "M", "kind": "scalar", "dtype": "i32", "value": M},
        {"name": "N", "kind": "scalar", "dtype": "i32", "value": N},
        {"name": "K", "kind": "scalar", "dtype": "i32", "value": K},
        {"name": "stride_am", "kind": "scalar", "dtype": "i32", "value": K},
        {"name": "stride_bk", "kind": "scalar", "dtype": "i32", "value": N},
        {"name": "stride_cm", "kind": "scalar", "dtype": "i32", "value": N},
        {"name": "alpha", "kind": "scalar", "dtype": "f32", "value": alpha},
    ], {"flops": 2 * M * N * K, "bytes": (M * K + K * N + M * N) * 2}
