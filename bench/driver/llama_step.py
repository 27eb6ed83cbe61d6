#!/usr/bin/env python3
"""A Llama training step from HF transformers under torch.compile, nothing of it written by sassx: the program
whose GPU time the driver capture is asked to reach (docs/driver-capture.md).  4 layers, hidden 2048,
bf16, batch 4 x 2048 tokens, forward + backward + fused AdamW; prints `step_ms=` per timed step.

    python3 -m sassx_capture -o /tmp/cap -- python3 bench/driver/llama_step.py --steps 3
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tune"))
from step_timer import summary, time_steps  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args()
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=a.hidden, intermediate_size=a.hidden * 11 // 4, num_hidden_layers=a.layers,
                      num_attention_heads=a.hidden // 128, num_key_value_heads=a.hidden // 128,
                      vocab_size=32000, max_position_embeddings=a.seq, attn_implementation="sdpa")
    model = LlamaForCausalLM(cfg).to("cuda", torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    fwd = model if a.no_compile else torch.compile(model)
    ids = torch.randint(0, cfg.vocab_size, (a.batch, a.seq), device="cuda")

    def step():
        loss = fwd(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    times, _ = time_steps(torch, step, a.warmup, a.steps)
    print(summary(times, f"Llama {a.layers} layers, hidden {a.hidden}, batch {a.batch} x {a.seq}"))


if __name__ == "__main__":
    main()
