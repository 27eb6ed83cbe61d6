#!/usr/bin/env python3
"""The two tables of bench/results/headroom-h200x2-2026-11-23.md from its committed data: random search
in all+control and rescheduled (search-all.json) beside the mem and all `random` rows of the earlier
H200 grid (bench/results/search-h200x4-2026-11-22/grid-{a,b}.json), and annealing in both spaces
(anneal/search-all.json).

usage: make_headroom_h200x2_tables.py bench/results/headroom-h200x2-2026-11-23 bench/results/search-h200x4-2026-11-22
"""
import json
import os
import sys

KERNELS = ["attention_fwd", "flash_attn_fwd", "gemm_leakyrelu", "hgemm_leakyrelu", "rmsnorm", "sgemm_leakyrelu"]


def floor(r):
    return r["baseline"]["noise_floor"] * 100


def fresh(v):
    return [b["speedup"]["median"] for b in v.get("fresh_instance_benches", []) if "speedup" in b]


def grid_cell(v):
    """The earlier grid's cell, as short as that write-up's reading of it: the final figure or why none."""
    if v is None:
        return "—"
    r = v["report"]
    if r["improved"]:
        return f"{r['best']['final']['speedup']:.4f}×"
    if r["legal_edits_at_start"] == 0:
        return "no legal edit"
    if r["best"]["step"] >= 0:
        return f"none ({r['best']['final']['speedup']:.4f}×, in the noise)"
    return "none"


def random_cell(v):
    r = v["report"]
    f = r["best"]["final"]
    if r["improved"]:
        s = f"**{f['speedup']:.4f}×** [{f['low']:.4f}, {f['high']:.4f}]"
        if fresh(v):
            s += "; fresh " + ", ".join(f"{x:.4f}×" for x in fresh(v))
        return s
    if r["best"]["step"] >= 0 and "low" in f:
        if f["low"] > 1.0:
            return f"none ({f['speedup']:.4f}× [{f['low']:.4f}, {f['high']:.4f}], inside the {floor(r):.2f}% floor)"
        return f"none ({f['speedup']:.4f}×, inside the {floor(r):.2f}% floor)"
    return f"none (floor {floor(r):.2f}%)"


def anneal_cell(v, bold):
    r = v["report"]
    f = r["best"]["final"]
    if not r["improved"]:
        if r["best"]["step"] >= 0:
            return f"none ({f['speedup']:.4f}×, inside the {floor(r):.2f}% floor)"
        return f"none (inside the {floor(r):.2f}% floor)"
    s = f"{f['speedup']:.4f}×"
    s = f"**{s}**" if bold else s
    s += f" [{f['low']:.4f}, {f['high']:.4f}]; " + ", ".join(f"{x:.4f}×" for x in fresh(v))
    b = r["best"]
    return s + f" ({r['evaluations']} evals; {b['moved']} moves, {b['control_changed']} control changes)"


def main(root, grid_root):
    runs = json.load(open(os.path.join(root, "search-all.json")))
    grid = {}
    for g in ("grid-a.json", "grid-b.json"):
        grid.update(json.load(open(os.path.join(grid_root, g))))
    print("| sample | mem ¹ | all ¹ | all+control | rescheduled |")
    print("|---|---|---|---|---|")
    for k in KERNELS:
        cells = [grid_cell(grid.get(f"{k}.random:{s}")) for s in ("mem", "all")]
        cells += [random_cell(runs[f"{k}.random.{s}"]) for s in ("all_control", "rescheduled")]
        print(f"| {k} | " + " | ".join(cells) + " |")

    ann = json.load(open(os.path.join(root, "anneal", "search-all.json")))
    kernels = sorted({n.split(".")[0] for n in ann},
                     key=lambda k: (not ann[f"{k}.anneal.rescheduled"]["report"]["improved"],
                                    -ann[f"{k}.anneal.rescheduled"]["report"]["best"]["final"]["speedup"]))
    print()
    print("| sample | all+control: best [95% CI]; fresh instances | rescheduled: best [95% CI]; fresh instances |")
    print("|---|---|---|")
    for k in kernels:
        a, r = ann[f"{k}.anneal.all_control"], ann[f"{k}.anneal.rescheduled"]
        sa = a["report"]["best"]["final"]["speedup"] if a["report"]["improved"] else 0
        sr = r["report"]["best"]["final"]["speedup"] if r["report"]["improved"] else 0
        print(f"| {k} | {anneal_cell(a, sa > sr)} | {anneal_cell(r, sr > sa)} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
