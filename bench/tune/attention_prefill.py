#!/usr/bin/env python3
"""Long-context prefill through a stack of attention layers: the showcase whose step time can show a
kernel gain (docs/tune.md, "A program whose step time moves").

    python3 bench/tune/attention_prefill.py                    # causal flash attention written in Triton
    python3 bench/tune/attention_prefill.py --attn flex        # torch.compile'd flex_attention instead
    python3 bench/tune/attention_prefill.py --attn sdpa        # PyTorch's SDPA, FlashAttention backend only
    python3 -m sassx_capture -o /tmp/cap -- python3 bench/tune/attention_prefill.py --steps 3

Each layer: a QKV projection (cuBLAS), causal attention (a Triton kernel), an output projection (cuBLAS)
and a residual, fp16.  At a long sequence the attention's work grows with S^2 and the projections' with S,
so at the default shape (B2 H16 S8192 D64, 4 layers) the attention kernel holds most of the GPU time: a
gain in it moves the step.  The step is GPU-bound and synchronised once, so fresh runs agree closely.
Each timed step prints `step_ms=...`.

The Triton kernel is a causal flash-attention forward of the usual two-stage form (blocks left of the
diagonal without a mask, the diagonal block with one), online softmax in fp32 with exp2.
"""
import argparse
import sys

from step_timer import summary, time_steps


def triton_attention():
    import triton
    import triton.language as tl

    @triton.jit
    def _attend(acc, l_i, m_i, q, k_base, v_base, start_m, qk_scale, offs_m, offs_n, offs_d,
                DIAGONAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
        if DIAGONAL:
            lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        else:
            lo, hi = 0, start_m * BLOCK_M
        for start_n in range(lo, hi, BLOCK_N):
            keys = start_n + offs_n
            kt = tl.load(k_base + keys[None, :] * HEAD_DIM + offs_d[:, None])
            qk = tl.dot(q, kt)
            if DIAGONAL:
                qk = qk * qk_scale + tl.where(offs_m[:, None] >= keys[None, :], 0.0, -1.0e6)
                m_new = tl.maximum(m_i, tl.max(qk, 1))
                qk -= m_new[:, None]
            else:
                m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
                qk = qk * qk_scale - m_new[:, None]
            p = tl.math.exp2(qk)
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(v_base + keys[:, None] * HEAD_DIM + offs_d[None, :])
            acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
            m_i = m_new
        return acc, l_i, m_i

    @triton.jit
    def causal_attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale,
                             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        start_m = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * seq_len * HEAD_DIM
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_DIM)
        q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
        l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
        acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
        qk_scale = sm_scale * 1.4426950408889634
        acc, l_i, m_i = _attend(acc, l_i, m_i, q, k_ptr + base, v_ptr + base, start_m, qk_scale, offs_m, offs_n,
                                offs_d, False, BLOCK_M, BLOCK_N, HEAD_DIM)
        acc, l_i, m_i = _attend(acc, l_i, m_i, q, k_ptr + base, v_ptr + base, start_m, qk_scale, offs_m, offs_n,
                                offs_d, True, BLOCK_M, BLOCK_N, HEAD_DIM)
        out = acc / l_i[:, None]
        tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out.to(tl.float16))

    def attend(q, k, v, sm_scale):
        """q, k, v: [B, H, S, D] contiguous fp16."""
        b, h, s, d = q.shape
        o = q.new_empty(q.shape)
        block_m, block_n = 128, 64
        if s % block_m:
            raise SystemExit(f"attention_prefill: --seq must be a multiple of {block_m}")
        causal_attention_fwd[(s // block_m, b * h, 1)](q, k, v, o, s, sm_scale, HEAD_DIM=d, BLOCK_M=block_m,
                                                      BLOCK_N=block_n, num_warps=4, num_stages=3)
        return o

    return attend


def flex_attention_fn(torch, seq):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    mask = create_block_mask(lambda b, h, q, kv: q >= kv, None, None, seq, seq, device="cuda")
    compiled = torch.compile(flex_attention)
    return lambda q, k, v, sm_scale: compiled(q, k, v, block_mask=mask, scale=sm_scale)


def sdpa_flash_fn(torch):
    """PyTorch's own flash attention (no Triton): SDPA with only the FlashAttention backend allowed, so
    that the kernel is PyTorch's flash_fwd from libtorch_cuda.so and a fallback cannot hide."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def attend(q, k, v, sm_scale):
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=sm_scale)
    return attend


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attn", choices=("triton", "flex", "sdpa"), default="triton")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first (the first one compiles)")
    ap.add_argument("--steps", type=int, default=20, help="timed steps, one step_ms line each")
    ap.add_argument("--check", action="store_true", help="compare one layer's attention with SDPA first")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("attention_prefill: no CUDA GPU", file=sys.stderr)
        return 1
    torch.manual_seed(args.seed)
    b, s, h, d = args.batch, args.seq, args.heads, args.head_dim
    dim = h * d
    dtype = torch.float16
    attend = (triton_attention() if args.attn == "triton" else flex_attention_fn(torch, s) if args.attn == "flex"
              else sdpa_flash_fn(torch))
    sm_scale = d ** -0.5
    w_qkv = [torch.randn(3 * dim, dim, device="cuda", dtype=dtype) * dim ** -0.5 for _ in range(args.layers)]
    w_out = [torch.randn(dim, dim, device="cuda", dtype=dtype) * dim ** -0.5 for _ in range(args.layers)]
    x0 = torch.randn(b, s, dim, device="cuda", dtype=dtype)

    if args.check:
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype) for _ in range(3))
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=sm_scale)
        err = (attend(q, k, v, sm_scale).float() - ref.float()).abs().max().item()
        print(f"check: max |attention - SDPA| = {err:.3e}")
        if not err < 2e-2:
            return 1

    @torch.no_grad()
    def step():
        x = x0
        for wq, wo in zip(w_qkv, w_out):
            q, k, v = (x @ wq.t()).view(b, s, 3, h, d).permute(2, 0, 3, 1, 4).contiguous().unbind(0)
            o = attend(q, k, v, sm_scale)
            x = x + o.transpose(1, 2).reshape(b, s, dim) @ wo.t()
        return x

    times, out = time_steps(torch, step, args.warmup, args.steps)
    if times:
        import hashlib
        digest = hashlib.sha256(out.cpu().numpy().tobytes()).hexdigest()[:16]
        print(summary(times, f"attention {args.attn}, B{b} H{h} S{s} D{d} x{args.layers} layers, "
                             f"out {float(out.float().abs().mean()):.5f} sha256:{digest}, "
                             f"{torch.cuda.get_device_name()}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
