#!/usr/bin/env python3
"""The headroom table (issue 12): per sample and search space, the best of N random legal variants as
the search re-measured it (100 fresh interleaved rounds, 95% interval, noise floor) and the two
fresh-instance benches of CONFIRM=1, from run_device.sh's merged JSONs of `random:SPACE` runs.
usage: bench/search/headroom_table.py grid.json [grid2.json ...] > table.md"""
import json, sys

runs = {}
for p in sys.argv[1:]:
    runs.update(json.load(open(p)))
spaces = ["mem", "all", "all+control", "rescheduled"]
kernels = sorted({n.split(".")[0] for n in runs})


def cell(v):
    if v is None:
        return "–"
    r = v["report"]
    f = r["best"]["final"]
    floor = f"floor {r['baseline']['noise_floor'] * 100:.2f}%"
    if r["legal_edits_at_start"] == 0:
        return "no legal edit"
    if not r["improved"]:
        if r["best"]["step"] >= 0 and "low" in f:
            return f"none ({f['speedup']:.4f}×, in the noise; {floor})"
        return f"none ({floor})"
    s = f"**{f['speedup']:.4f}×** [{f['low']:.4f}, {f['high']:.4f}], {floor}"
    fresh = [b["speedup"]["median"] for b in v.get("fresh_instance_benches", []) if "speedup" in b]
    if fresh:
        s += "; fresh " + ", ".join(f"{x:.4f}×" for x in fresh)
    return s + (" ✓" if r["verification"].get("correct") is True else "")


print("| sample | " + " | ".join(spaces) + " |")
print("|---|" + "---|" * len(spaces))
for k in kernels:
    row = [cell(runs.get(f"{k}.random.{s.replace('+', '_')}")) for s in spaces]
    print(f"| {k} | " + " | ".join(row) + " |")
base = {k: runs[n]["report"]["baseline"]["median_us"] for n in runs for k in [n.split(".")[0]]}
print()
print("Baselines (µs, median): " + ", ".join(f"{k} {base[k]:.1f}" for k in kernels))
