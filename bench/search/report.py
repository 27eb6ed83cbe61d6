#!/usr/bin/env python3
"""Tables for bench/results/search-*.md from run_device.sh's merged JSONs: per kernel, each algorithm ×
space with the best verified speed-up (the final re-measure: 100 fresh rounds), its interval, the noise
floor, evaluations/s, time to best, outcomes and failures, and SIP's method beside them.
usage: bench/search/report.py grid-a.json [grid-b.json ...] > table.md"""
import json, sys

runs = {}
for path in sys.argv[1:]:
    runs.update(json.load(open(path)))

def row(name, v):
    kernel, rest = name.split(".", 1)
    algo, space = rest.replace(":", ".").split(".", 1)
    space = space.replace("_", "+")
    if "sip" in v:
        s = v["sip"]
        f = s["best_final"]
        best = f"{f['speedup']:.4f}× [{f['low']:.4f}, {f['high']:.4f}]" if "low" in f else "none"
        fails = ", ".join(f"{k} {n}" for k, n in sorted(s["failures"].items())) or "0"
        rate = s["evaluations"] / s["seconds"] if s["seconds"] else 0
        return kernel, f"| {kernel} | SIP's method (unchecked) | {space} | {best} | {s['noise_floor']*100:.2f}% | {rate:.1f} | – | {s['evaluations']} | **{s['failed']} failed** ({fails}) |"
    r = v["report"]
    f = r["best"]["final"]
    if r["improved"]:
        best = f"**{f['speedup']:.4f}×** [{f['low']:.4f}, {f['high']:.4f}]"
        if r["verification"].get("correct") is True:
            best += " ✓"
    elif r["best"]["step"] >= 0:
        best = f"none ({f['speedup']:.4f}× on re-measure, in the noise)"
    elif r["legal_edits_at_start"] == 0:
        best = "no legal edit"
    else:
        best = "none"
    fails = ", ".join(f"{k} {n}" for k, n in sorted(v.get("failures", {}).items())) or "0"
    label = {"sip-preset": "anneal (sip preset)"}.get(algo, algo)
    ttb = f"{r['time_to_best_s']:.1f} s" if r["improved"] else "–"
    return kernel, (f"| {kernel} | {label} | {space} | {best} | {r['baseline']['noise_floor']*100:.2f}% | "
                    f"{r['evaluations_per_second']:.1f} | {ttb} | {r['evaluations']} | {fails} |")

print("| kernel | algorithm | space | best speed-up, 95% interval (✓ re-verified on fresh inputs) | noise floor | evals/s | time to best | evaluations | failed |")
print("|---|---|---|---|---|---|---|---|---|")
for name in sorted(runs, key=lambda n: (n.split(".")[0], n)):
    print(row(name, runs[name])[1])
