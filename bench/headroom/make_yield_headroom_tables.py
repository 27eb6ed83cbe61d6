#!/usr/bin/env python3
"""The two tables of bench/results/yield-headroom-h100-2026-11-22.md from the committed data in its
folder: correctness.json (run_device.sh STEPS=correct, merged) and headroom-run{1,2}.json
(sassx-headroom --json of the two runs).

usage: make_yield_headroom_tables.py bench/results/yield-headroom-h100-2026-11-22
"""
import json
import os
import sys

# The write-up lists the Triton samples first; the data does not say which is which.
SAMPLES = [("attention_fwd", "Triton"), ("gemm_leakyrelu", "Triton"), ("flash_attn_fwd", "CUDA"),
           ("hgemm_leakyrelu", "CUDA"), ("rmsnorm", "CUDA"), ("sgemm_leakyrelu", "CUDA")]
HEADROOM_ORDER = ["attention_fwd", "gemm_leakyrelu", "hgemm_leakyrelu", "flash_attn_fwd", "rmsnorm", "sgemm_leakyrelu"]


def correctness(root):
    d = json.load(open(os.path.join(root, "correctness.json")))
    print("| sample (sm_90) | origin | yield variants | match | mismatch | fault | hang |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for s, origin in SAMPLES:
        c = d[f"{s}.yield"]["samples"][s]["yield"]["counts"]
        print(f"| {s} | {origin} | {c['variants']} | {c['match']} | {c['mismatch']} | {c['fault']} | {c['hang']} |")
    moves = [(k.split(".")[0], v["samples"][k.split(".")[0]]["moves"]["counts"]) for k, v in sorted(d.items())
             if k.endswith(".moves")]
    print()
    print("Line-table rewriter (moves): " + ", ".join(f"{s} {c['match']}/{c['variants']}" for s, c in moves))


def headroom(root):
    runs = [json.load(open(os.path.join(root, f"headroom-run{i}.json"))) for i in (1, 2)]
    origin = dict(SAMPLES)
    print("| sample | control (original vs itself) run 1 / run 2 | noise floor run 1 / run 2 | best re-measured, run 1 "
          "| best re-measured, run 2 | \"faster\" of top 5 (run 1 / run 2) |")
    print("|---|---|---|---|---|---|")
    for s in HEADROOM_ORDER:
        vs = [r[s] for r in runs]
        bests = [max(v["best"], key=lambda b: b["speedup"]) for v in vs]
        # Bold marks a gain that held in both runs; one "faster" verdict alone is not a claim.
        bold = all(b["verdict"] == "faster" for b in bests)
        cells = []
        for i, b in enumerate(bests):
            x = f"{b['speedup']:.4f}"
            c = (f"**{x}**" if bold else x) + f" [{b['speedup_low']:.4f}, {b['speedup_high']:.4f}]"
            if i == 1 and b["name"] == bests[0]["name"]:
                c += " (same variant)"
            cells.append(c)
        ctl = " / ".join(f"{v['control_original']['speedup']:.4f}" for v in vs)
        floor = " / ".join(f"{v['noise_floor'] * 100:.2f}%" for v in vs)
        faster = " / ".join(f"{sum(b['verdict'] == 'faster' for b in v['best'])}/{len(v['best'])}" for v in vs)
        print(f"| {s} ({origin[s]}) | {ctl} | {floor} | {cells[0]} | {cells[1]} | {faster} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    correctness(sys.argv[1])
    print()
    headroom(sys.argv[1])
