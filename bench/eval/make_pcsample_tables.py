#!/usr/bin/env python3
"""The per-run agreement table and the bad-cases table of docs/results/pcsample-h100-2026-11-23.md from
the committed pcsample_crosscheck.py outputs (runN-crosscheck.json).

usage: make_pcsample_tables.py docs/results/pcsample-h100-2026-11-23/run1-crosscheck.json [RUN2.json]
  With a second run, also prints its table and each kernel's change of TVD against the first run.
"""
import json
import sys

LABEL = {"gemm_leakyrelu": "gemm_leakyrelu (Triton)", "attention_fwd": "attention_fwd (Triton)"}


def table(d):
    print("| kernel | period | samples | TVD vs ncu | r | top-10 | TVD run-to-run | pass |")
    print("|---|---|---|---|---|---|---|---|")
    for k in d["kernels"]:
        v, rr = k["vs_ncu"], k["run_to_run"]
        ok = "yes" if k["pass"] else f"**no** (TVD {v['tvd']:.3f} > 0.100)" if v["tvd"] > 0.10 else "**no**"
        print(f"| {LABEL.get(k['kernel'], k['kernel'])} | 2^{k['period_exponent']} | {k['kernel_samples']:,} | "
              f"{v['tvd']:.3f} | {v['pearson_r']:.3f} | {v['top10_overlap']} | {rr['tvd']:.3f} | {ok} |")
    print()
    print("kernel: samples sassx / ncu, launch µs unsampled / sampled / ncu, dropped samples")
    for k in d["kernels"]:
        print(f"- {k['kernel']}: {k['kernel_samples']:,} / {k['ncu_samples']:,.0f}, {k['duration_us']:.1f} / "
              f"{k['sampled_launch_us']:.1f} / {k['ncu_duration_us']:.1f}, {k['dropped']:,}")


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    for i, d in enumerate(runs, 1):
        print(f"Run {i}:\n")
        table(d)
        print()
    if len(runs) == 2:
        a = {k["kernel"]: k for k in runs[0]["kernels"]}
        print("TVD vs ncu, run 2 − run 1: " + ", ".join(
            f"{k['kernel']} {k['vs_ncu']['tvd'] - a[k['kernel']]['vs_ncu']['tvd']:+.3f}" for k in runs[1]["kernels"]))
        print()
        print("| case | status, exit | error |")
        print("|---|---|---|")
        for name, c in runs[1].get("bad_cases", {}).items():
            print(f"| {name} | {c['status']}, {c.get('exit')} | {c.get('error', '')} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
