#!/usr/bin/env python3
"""A small torch.compile'd transformer block: the real PyTorch program of the capture -> tune -> write-back
loop (docs/capture.md).  Each timed training step (forward, backward, AdamW) prints `step_ms=...`.

    python3 bench/tune/transformer_block.py                       # Inductor, matmuls as Triton templates
    python3 -m sassx_capture -o /tmp/cap -- python3 bench/tune/transformer_block.py --steps 3
    python3 -m sassx_capture time --runs 5 --pattern 'step_ms=([0-9.]+)' -- python3 bench/tune/transformer_block.py

The block: LayerNorm, causal self-attention (rotary embedding, QK^T, masked softmax, PV: matmuls and a
softmax Inductor writes in Triton, unlike SDPA's library kernels), a residual, RMSNorm, a SwiGLU MLP and
a second residual, in bf16.  Under Inductor the forward and backward give well over ten distinct Triton
kernels (norms, rotary, softmax and their gradients, SiLU*up, residuals); `--gemm triton` (the default)
also makes the matmuls Triton templates (max-autotune restricted to the Triton backend), so the heavy
kernels are Triton too; `--gemm cublas` leaves them to cuBLAS and compiles faster.  Autotuning runs on
the first step of a cold Inductor cache: run once before capturing so that the capture sees the chosen
kernels only.  No CUDA graphs (Triton's launch hooks do not see graph replays).
"""
import argparse
import math
import sys

from step_timer import summary, time_steps


def build(args, torch):
    nn = torch.nn
    F = torch.nn.functional

    class RMSNorm(nn.Module):
        def __init__(self, d, eps=1e-6):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(torch.ones(d))

        def forward(self, x):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight

    class Block(nn.Module):
        def __init__(self, d, heads, ffn, seq):
            super().__init__()
            self.heads = heads
            self.norm1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d, bias=False)
            self.proj = nn.Linear(d, d, bias=False)
            self.norm2 = RMSNorm(d)
            self.gate_up = nn.Linear(d, 2 * ffn, bias=False)
            self.down = nn.Linear(ffn, d, bias=False)
            hd = d // heads
            inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
            ang = torch.outer(torch.arange(seq).float(), inv)
            self.register_buffer("cos", ang.cos(), persistent=False)
            self.register_buffer("sin", ang.sin(), persistent=False)
            self.register_buffer("causal", torch.ones(seq, seq, dtype=torch.bool).tril(), persistent=False)

        def rotary(self, x):
            x1, x2 = x.float().chunk(2, dim=-1)
            cos, sin = self.cos[: x.shape[-2]], self.sin[: x.shape[-2]]
            return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)

        def forward(self, x):
            b, s, d = x.shape
            h = self.norm1(x)
            q, k, v = self.qkv(h).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
            q, k = self.rotary(q), self.rotary(k)
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
            scores = scores.masked_fill(~self.causal[:s, :s], float("-inf"))
            attn = torch.softmax(scores.float(), dim=-1).to(x.dtype) @ v
            x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
            gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
            return x + self.down(F.silu(gate) * up)

    return Block(args.dim, args.heads, args.ffn, args.seq)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--ffn", type=int, default=2816)
    ap.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    ap.add_argument("--gemm", choices=("triton", "cublas"), default="triton",
                    help="matmuls as Inductor's Triton templates (default) or cuBLAS")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first (the first one compiles)")
    ap.add_argument("--steps", type=int, default=20, help="timed steps, one step_ms line each")
    ap.add_argument("--eager", action="store_true", help="no torch.compile (for comparison)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.dim % args.heads or (args.dim // args.heads) % 2:
        ap.error("--dim must be a multiple of --heads with an even head size")

    import torch
    if not torch.cuda.is_available():
        print("transformer_block: no CUDA GPU", file=sys.stderr)
        return 1
    if args.gemm == "triton":
        import torch._inductor.config as inductor_config
        inductor_config.max_autotune_gemm = True
        inductor_config.max_autotune_gemm_backends = "TRITON"
    torch.manual_seed(args.seed)
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    model = build(args, torch).to("cuda", dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    fwd = model if args.eager else torch.compile(model)
    x = torch.randn(args.batch, args.seq, args.dim, device="cuda", dtype=dtype)

    def step():
        out = fwd(x)
        loss = out.float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    times, loss = time_steps(torch, step, args.warmup, args.steps)
    if times:
        print(summary(times, f"loss {loss.item():.5f}, {'eager' if args.eager else 'compiled'}, gemm {args.gemm}, "
                             f"{torch.cuda.get_device_name()}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
