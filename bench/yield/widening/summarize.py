#!/usr/bin/env python3
"""Tables of bench/results/yield-widening-*: correctness of the widened control space and greedy searches
over the yield space before (old: SASSX_YIELD_RULE=ptxas-habits) and after (new) the widening.

  summarize.py RESULT_DIR      prints the markdown tables (the result file quotes them)
"""
import glob
import json
import os
import sys


def main(root):
    print("| sample | variants | match | mismatch | fault | hang |")
    print("|---|---|---|---|---|---|")
    for f in sorted(glob.glob(os.path.join(root, "correctness", "*.control.json"))):
        d = json.load(open(f))
        for sample, rules in d["samples"].items():
            s = rules["control"]["counts"]
            print(f"| {sample} | {s['variants']} | {s['match']} | {s['mismatch']} | {s['fault']} | {s['hang']} |")
    print()
    print("| kernel | run | space | legal edits | evaluations | noise floor | search's best | fresh bench 1 | fresh bench 2 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in sorted(glob.glob(os.path.join(root, "*.run*.*"))):
        kernel, run, space = os.path.basename(d).split(".")
        r = json.load(open(os.path.join(d, "report.json")))
        floor = r["baseline"]["noise_floor"] * 100
        best = "none" if not r["improved"] else r["summary"].split(" (")[0].replace("best ", "")
        benches = []
        for b in sorted(glob.glob(os.path.join(d, "bench*.json"))):
            s = json.load(open(b))["speedup"]
            benches.append(f"{s['median']:.4f}× [{s['low']:.4f}, {s['high']:.4f}]")
        benches += ["–"] * (2 - len(benches))
        print(f"| {kernel} | {run[3:]} | {space} | {r['legal_edits_at_start']} | {r['evaluations']} | {floor:.2f}% "
              f"| {best} | {benches[0]} | {benches[1]} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/yield-widening-h200-2026-11-26")
