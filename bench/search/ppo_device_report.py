#!/usr/bin/env python3
"""Tables for the PPO device write-up (docs/ppo.md) from run_ppo_device.sh's merged JSONs: per kernel and
algorithm one column per labelled run (the best's final re-measure with its 95% interval and noise floor,
the two fresh-instance benches where the best improved), then the warm starts beside PPO's cold start.
usage: bench/search/ppo_device_report.py LABEL=grid.json[,grid2.json] [LABEL=...] > tables.md"""
import json, sys

import result_cell

runs = {}  # label -> name -> merged entry
labels = []
for arg in sys.argv[1:]:
    label, paths = arg.split("=", 1)
    labels.append(label)
    runs[label] = {}
    for p in paths.split(","):
        runs[label].update(json.load(open(p)))


cell = result_cell.cell


def rate(v):
    return "–" if v is None else f"{v['report']['evaluations']} ({v['report']['evaluations_per_second']:.1f}/s)"


names = sorted({n for label in labels for n in runs[label] if "warm-from" not in n})
print("| kernel | algorithm | " + " | ".join(f"{l}: best [95% CI]" for l in labels) + " | evaluations |")
print("|---|---|" + "---|" * len(labels) + "---|")
for n in names:
    kernel, algo = n.split(".")[0], n.split(".")[1]
    vals = [runs[l].get(n) for l in labels]
    evals = ", ".join(rate(v) for v in vals if v is not None)
    print(f"| {kernel} | {algo} | " + " | ".join(cell(v) for v in vals) + f" | {evals} |")

print()
print("| warm start | PPO warm: best [95% CI] | PPO cold on the same kernel: " + ", ".join(labels) + " |")
print("|---|---|---|")
for label in labels:
    for n, v in sorted(runs[label].items()):
        if "warm-from" not in n:
            continue
        kernel, algo, space = n.split(".")
        source = algo.split("warm-from-")[1]
        cold = [runs[l].get(f"{kernel}.ppo.{space}") for l in labels]
        cold_s = "; ".join(cell(c) for c in cold if c is not None)
        print(f"| {source} → {kernel} | {cell(v)} | {cold_s} |")
