#!/usr/bin/env python3
"""Speed-up tables of derived control codes from committed `sassx-cli bench` JSONs (two fresh-process
benches per cubin, 50 rounds each) and derived_partition.py's parts.json.

usage:
  make_derived_bench_tables.py rescheduled docs/results/rescheduled-h100-2026-11-23
      ptxas' order with minimal derived codes ({sample}.derived-bench-{1,2}.json)
  make_derived_bench_tables.py in-place docs/results/scoreboard-cover-h100-2026-11-23
      minimal derived (controls/) against stalls lowered in place (in-place/)
  make_derived_bench_tables.py partition docs/results/scoreboard-cover-h100-2026-11-23
      the minimal derivation's lowered stalls split by class (partition/)
"""
import glob
import json
import os
import sys

SAMPLES = ["attention_fwd", "flash_attn_fwd", "gemm_leakyrelu", "hgemm_leakyrelu", "rmsnorm", "sgemm_leakyrelu"]
PART_LABEL = {"raises-only": "none (raises only)", "memory": "memory instructions", "fixed": "fixed latency",
              "fixed-before-fixed": "fixed latency before fixed latency",
              "fixed-before-other": "fixed latency before other", "other-variable": "other variable latency",
              "tensor": "tensor", "all": "all"}


def bench(path):
    return json.load(open(path))


def cell(b):
    s = b["speedup"]
    return f"{s['median']:.4f}× [{s['low']:.4f}, {s['high']:.4f}]"


def rescheduled(d):
    print("| sample | run 1 (speed-up, 95% CI) | run 2 | noise floor | baseline |")
    print("|---|---|---|---|---|")
    for s in SAMPLES:
        b1, b2 = (bench(os.path.join(d, f"{s}.derived-bench-{i}.json")) for i in (1, 2))
        # Floor and baseline are run 2's: the write-up quotes one of the two, and run 2's is the one it used.
        print(f"| {s} | {cell(b1)} | {cell(b2)} | {b2['baseline']['noise_floor'] * 100:.2f}% | "
              f"{b2['result']['timing']['baseline_median_us']:.1f} µs |")


def in_place(d):
    print("| sample | minimal derived, run 1 | run 2 | in place, run 1 | run 2 | stalls lowered in place |")
    print("|---|---|---|---|---|---|")
    floors = []
    for s in SAMPLES:
        m = [bench(os.path.join(d, "controls", f"{s}.derived-bench-{i}.json")) for i in (1, 2)]
        p = [bench(os.path.join(d, "in-place", f"{s}.part-in-place.bench-{i}.json")) for i in (1, 2)]
        lowered = json.load(open(os.path.join(d, "in-place", f"{s}.parts.json")))["parts"]["in-place"]["lowered"]
        floors += [b["baseline"]["noise_floor"] * 100 for b in m + p]
        print(f"| {s} | {cell(m[0])} | {cell(m[1])} | {cell(p[0])} | {cell(p[1])} | {lowered} |")
    print()
    print(f"Noise floors of these benches: {min(floors):.2f}–{max(floors):.2f}%")


def partition(d):
    print("| sample | lowered part | stalls | run 1 | run 2 |")
    print("|---|---|---|---|---|")
    for parts_path in sorted(glob.glob(os.path.join(d, "partition", "*.parts.json"))):
        p = json.load(open(parts_path))
        s = p["sample"]
        order = sorted(p["parts"], key=lambda k: (k != "raises-only", k == "all", list(PART_LABEL).index(k)))
        for part in order:
            files = [os.path.join(d, "partition", f"{s}.part-{part}.bench-{i}.json") for i in (1, 2)]
            if not all(os.path.exists(f) for f in files):
                continue
            b = [bench(f) for f in files]
            print(f"| {s} | {PART_LABEL[part]} | {p['parts'][part]['lowered']} | {cell(b[0])} | {cell(b[1])} |")
        print(f"<!-- {s}: {p['raises']} raises kept in every part -->")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    {"rescheduled": rescheduled, "in-place": in_place, "partition": partition}[sys.argv[1]](sys.argv[2])
