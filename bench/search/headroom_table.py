#!/usr/bin/env python3
"""The headroom table (docs/legality.md): per sample and search space, the best of N random legal variants as
the search re-measured it (100 fresh interleaved rounds, 95% interval, noise floor) and the two
fresh-instance benches of CONFIRM=1, from run_device.sh's merged JSONs of `random:SPACE` runs.
usage: bench/search/headroom_table.py grid.json [grid2.json ...] > table.md"""
import json, sys

import result_cell

runs = {}
for p in sys.argv[1:]:
    runs.update(json.load(open(p)))
spaces = ["mem", "all", "all+control", "rescheduled"]
kernels = sorted({n.split(".")[0] for n in runs})


cell = lambda v: result_cell.cell(v, in_noise="in the noise", no_edit_note=True)


print("| sample | " + " | ".join(spaces) + " |")
print("|---|" + "---|" * len(spaces))
for k in kernels:
    row = [cell(runs.get(f"{k}.random.{s.replace('+', '_')}")) for s in spaces]
    print(f"| {k} | " + " | ".join(row) + " |")
base = {k: runs[n]["report"]["baseline"]["median_us"] for n in runs for k in [n.split(".")[0]]}
print()
print("Baselines (µs, median): " + ", ".join(f"{k} {base[k]:.1f}" for k in kernels))
