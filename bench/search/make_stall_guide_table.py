#!/usr/bin/env python3
"""The table of bench/results/stall-guide-h100-2026-11-23.md from the committed guide-experiment JSONs
that bench/search/stall_guide_experiment.sh wrote (one per device call).

usage: make_stall_guide_table.py bench/results/stall-guide-h100-2026-11-23/seeds-1-2.json \\
                                 bench/results/stall-guide-h100-2026-11-23/seeds-3-5.json
"""
import collections
import json
import statistics
import sys

ORIGIN = {"attention_fwd": "Triton", "gemm_leakyrelu": "Triton"}


def main(paths):
    runs = [r for p in paths for r in json.load(open(p))]
    seeds = sorted({r["seed"] for r in runs}, key=lambda s: int(s.removeprefix("seed")))
    by = collections.defaultdict(dict)
    for r in runs:
        by[(r["kernel"], r["guide"])][r["seed"]] = r
    print("| kernel | guide | " + " | ".join(f"seed {s.removeprefix('seed')}" for s in seeds) +
          " | improved | mean best | evaluations per run |")
    print("|---|---|" + "---|" * len(seeds) + "---|---|---|")
    for kernel in sorted({k for k, _ in by}):
        for guide in ("uniform", "stalls"):
            rs = by[(kernel, guide)]
            cells, bests = [], []
            for s in seeds:
                r = rs[s]
                f = r["best"]["final"]
                if r["improved"]:
                    cells.append(f"{f['speedup']:.4f}× [{f['low']:.4f}, {f['high']:.4f}]")
                    bests.append(f["speedup"])
                else:
                    cells.append("—")
                    bests.append(1.0)  # the search returns the original when nothing cleared the floor
            improved = sum(1 for s in seeds if rs[s]["improved"])
            evals = statistics.mean(rs[s]["evaluations"] for s in seeds)
            print(f"| {kernel} ({ORIGIN.get(kernel, '?')}) | {guide} | " + " | ".join(cells) +
                  f" | {improved}/{len(seeds)} | {statistics.mean(bests):.4f} | {evals:.0f} |")
    floors = [r["noise_floor"] * 100 for r in runs]
    print()
    print(f"Noise floors: {min(floors):.2f}–{max(floors):.2f}%.")
    for kernel in sorted({k for k, _ in by}):
        meds = {g: statistics.median(r["best"]["final"]["speedup"] if r["improved"] else 1.0
                                     for r in (by[(kernel, g)][s] for s in seeds))
                for g in ("uniform", "stalls")}
        print(f"{kernel}: median best uniform {meds['uniform']:.4f}, stalls {meds['stalls']:.4f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
