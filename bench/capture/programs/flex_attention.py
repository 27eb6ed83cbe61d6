"""torch.compile'd flex_attention, causal, forward and backward (B4 H16 S4096 D64, bf16).
Set BENCH_STATIC_LAUNCHER=1 to turn Inductor's static CUDA launcher on from inside the program."""
import os

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

B, H, S, D = 4, 16, 4096, 64


def causal(b, h, q, kv):
    return q >= kv


def main():
    if os.environ.get("BENCH_STATIC_LAUNCHER") == "1":
        import torch._inductor.config as cfg
        cfg.use_static_cuda_launcher = True
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    mask = create_block_mask(causal, None, None, S, S, device="cuda")
    attn = torch.compile(flex_attention)
    for _ in range(3):
        out = attn(q, k, v, block_mask=mask)
        out.sum().backward()
    torch.cuda.synchronize()
    print("flex_attention ok", tuple(out.shape), float(q.grad.float().norm()))


if __name__ == "__main__":
    main()
