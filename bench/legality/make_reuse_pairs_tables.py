#!/usr/bin/env python3
"""The reuse-pattern table and the annealing table of docs/results/reuse-pairs-h100-2026-11-23.md from
its committed data (reuse_patterns.py's reuse-patterns.json; run_device.sh's search/search-all.json).
The correctness table: make_correctness_table.py; the move counts: bench/latency/make_move_counts_table.py.

usage: make_reuse_pairs_tables.py docs/results/reuse-pairs-h100-2026-11-23
"""
import json
import os
import sys


def patterns(d):
    print("| kernel (sm_90) | reuse flags | stale reads if entries persist (entry block) | if entries serve the next read only |")
    print("|---|---|---|---|")
    for r in json.load(open(os.path.join(d, "reuse-patterns.json"))):
        if ".sm_90." not in r["file"]:
            continue
        p, n = r["persist"], r["next-reader"]
        persist = f"{p['stale_reads']} ({p['in_entry_block']})" if p["stale_reads"] else "0"
        print(f"| {r['kernel']} | {r['flags']} | {persist} | {n['stale_reads']} |")


def cell(r, first):
    f = r["best"]["final"]
    floor = r["baseline"]["noise_floor"] * 100
    if not r["improved"]:
        return f"nothing beyond the noise floor ({floor:.2f}%)"
    return f"{f['speedup']:.4f}× [{f['low']:.4f}, {f['high']:.4f}], " + (f"noise floor {floor:.2f}%" if first else f"{floor:.2f}%")


def annealing(d):
    runs = json.load(open(os.path.join(d, "search", "search-all.json")))
    kernels = sorted({n.split(".")[0] for n in runs})
    print("| sample | rescheduled | all+control | baseline (rescheduled / all+control) |")
    print("|---|---|---|---|")
    for i, k in enumerate(kernels):
        r, a = runs[f"{k}.anneal.rescheduled"]["report"], runs[f"{k}.anneal.all_control"]["report"]
        # The better of the two is bold only when both improved or only one did.
        sr = r["best"]["final"]["speedup"] if r["improved"] else 0
        sa = a["best"]["final"]["speedup"] if a["improved"] else 0
        cr, ca = cell(r, i == 0), cell(a, False)
        if sr > sa:
            cr = cr.replace(f"{sr:.4f}×", f"**{sr:.4f}×**", 1)
        elif sa > sr:
            ca = ca.replace(f"{sa:.4f}×", f"**{sa:.4f}×**", 1)
        print(f"| {k} | {cr} | {ca} | {r['baseline']['median_us']:.1f} / {a['baseline']['median_us']:.1f} µs |")
    ev = [v["report"]["evaluations"] for v in runs.values()]
    print()
    print(f"Evaluations per search: {min(ev)}–{max(ev)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    patterns(sys.argv[1])
    print()
    annealing(sys.argv[1])
