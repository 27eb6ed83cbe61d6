"""sassx Triton sample: fused attention forward (non-causal), online softmax, head dim 64.

Q, K, V, O: [BH, S, D] fp16 contiguous.  One program computes BLOCK_M query rows of one head,
streaming BLOCK_N keys per step; scores and the running max/sum are fp32, exp2 based.
"""
import triton
import triton.language as tl

CONFIG = dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=3)


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * seq_len * HEAD_DIM
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)

    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634

    for start in range(0, seq_len, BLOCK_N):
        keys = start + offs_n
        kt = tl.load(k_ptr + base + keys[None, :] * HEAD_DIM + offs_d[:, None])  # [D, BLOCK_N]
        s = tl.dot(q, kt) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        corr = tl.math.exp2(m_i - m_new)
        l_i = l_i * corr + tl.sum(p, 1)
        v = tl.load(v_ptr + base + keys[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * corr[:, None])
        m_i = m_new

    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out.to(tl.float16))


def run(BH=32, S=2048, sm_scale=0.125, seed=0):
    import torch
    D = CONFIG["HEAD_DIM"]
    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (torch.randn((BH, S, D), device="cuda", generator=g).half() for _ in range(3))
    o = torch.zeros_like(q)
    grid = (triton.cdiv(S, CONFIG["BLOCK_M"]), BH, 1)
    ck = attention_fwd[grid](q, k, v, o, S, sm_scale, **CONFIG)
    torch.cuda.synchronize()
    p = torch.softmax((q.float() @ k.float().transpose(1, 2)) * sm_scale, dim=-1)
    ref = p @ v.float()
    return ck, grid, o.float(), ref


def spec_params(BH=32, S=2048, sm_scale=0.125):
    D = CONFIG["HEAD_DIM"]
    n = BH * S * D
    N01 = {"kind": "normal", "mean": 0.0, "std": 1.0}
    return [
        {"name": "q_ptr", "kind": "buffer", "dtype": "f16", "count": n, "init": N01, "role": "input"},
        {"name": "k_ptr", "kind": "buffer", "dtype": "f16", "count": n, "init": N01, "role": "input"},
        {"name": "v_ptr", "kind": "buffer", "dtype": "f16", "count": n, "init": N01, "role": "input"},
        {"name": "o_ptr", "kind": "buffer", "dtype": "f16", "count": n, "init": {"kind": "zeros"},
         "role": "output"},
        {"name": "seq_len", "kind": "scalar", "dtype": "i32", "value": S},
        {"name": "sm_scale", "kind": "scalar", "dtype": "f32", "value": sm_scale},
    ], {"flops": 4 * BH * S * S * D, "bytes": 4 * n * 2}
