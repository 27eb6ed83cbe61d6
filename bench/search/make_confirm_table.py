#!/usr/bin/env python3
"""The "Confirmation on fresh instances" table of bench/results/search-h200x4-2026-11-22.md from its
committed data: confirm.json (run_device.sh CONFIRM=1, merged), the two fresh benches of the repeated
attention_fwd anneal × all+control best (attention_fwd.anneal.all_control.bench{1,2}.json) and
repeat-log.txt, which holds that repeat's summary line and the accidental random × yield repeats.

usage: make_confirm_table.py bench/results/search-h200x4-2026-11-22
"""
import glob
import json
import os
import re
import sys

LABEL = {"gemm_leakyrelu": "gemm_leakyrelu (Triton)", "attention_fwd": "attention_fwd (Triton)"}
SUMMARY = re.compile(r"best ([0-9.]+)x \[([0-9.]+), ([0-9.]+)\]")


def interval(s, lo, hi):
    return f"{s:.4f}× [{lo:.4f}, {hi:.4f}]"


def bench_cell(b):
    s = b["speedup"]
    return interval(s["median"], s["low"], s["high"])


def main(d):
    runs = json.load(open(os.path.join(d, "confirm.json")))
    print("| kernel | search's final re-measure | fresh bench 1 | fresh bench 2 | fresh inputs |")
    print("|---|---|---|---|---|")

    def key(item):
        r = item[1]["report"]
        return (not r["improved"], -r["best"]["final"]["speedup"])

    for name, v in sorted(runs.items(), key=key):
        r = v["report"]
        kernel = name.split(".")[0]
        if not r["improved"]:
            print(f"| {LABEL.get(kernel, kernel)} | none (floor {r['baseline']['noise_floor'] * 100:.2f}%) | – | – | – |")
            continue
        f = r["best"]["final"]
        benches = [bench_cell(b) for b in v.get("fresh_instance_benches", [])] + ["–", "–"]
        correct = {True: "correct", False: "wrong"}.get(r["verification"].get("correct"), "–")
        print(f"| {LABEL.get(kernel, kernel)} | {interval(f['speedup'], f['low'], f['high'])} | {benches[0]} | "
              f"{benches[1]} | {correct} |")

    # The repeat's report.json was not kept, only its summary line (the search's final re-measure) and the
    # two benches, so "fresh inputs" here is the benches' own correctness check.
    log = open(os.path.join(d, "repeat-log.txt")).read().splitlines()
    line = next(l for l in log if "attention_fwd anneal:all+control" in l)
    m = SUMMARY.search(line)
    benches = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(d, "attention_fwd.anneal.all_control.bench*.json")))]
    correct = "correct" if all(b["result"]["correct"] for b in benches) else "wrong"
    print(f"| attention_fwd (Triton), anneal all+control (repeat run) | "
          f"{interval(*(float(x) for x in m.groups()))} | {bench_cell(benches[0])} | {bench_cell(benches[1])} | {correct} |")

    rep = [float(SUMMARY.search(l).group(1)) for l in log if "attention_fwd random:yield" in l and SUMMARY.search(l)]
    print()
    print(f"random × yield repeats on attention_fwd: {len(rep)} verified bests, {min(rep):.4f}× to {max(rep):.4f}×")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
