#!/usr/bin/env python3
"""How well *any* model could rank the measured variants: the measured ratios mix the variants' true
differences with measurement noise (each variant's 95% interval) and module placement (~0.1% sd).
Reliability = true variance / observed variance; the Spearman ceiling is about its square root.
Usage: noise_ceiling.py MEASURED.json [PLACEMENT_SD]"""
import json
import math
import statistics
import sys


def main():
    measured = json.load(open(sys.argv[1]))
    placement = float(sys.argv[2]) if len(sys.argv) > 2 else 0.001
    print("| sample | variants | measured ratio sd | noise sd (interval + placement) | reliability | rank-correlation ceiling |")
    print("|---|---|---|---|---|---|")
    for sample, v in sorted(measured.items()):
        vs = [x for x in v["variants"] if x.get("ratio") and x.get("high") and x.get("low")]
        if len(vs) < 3:
            continue
        observed = statistics.pvariance([x["ratio"] for x in vs])
        noise = statistics.mean(((x["high"] - x["low"]) / 3.92) ** 2 for x in vs) + placement ** 2
        reliability = max(observed - noise, 0.0) / observed if observed > 0 else 0.0
        print(f"| {sample} | {len(vs)} | {math.sqrt(observed):.4f} | {math.sqrt(noise):.4f} | {reliability:.2f} | "
              f"{math.sqrt(reliability):.2f} |")


if __name__ == "__main__":
    main()
