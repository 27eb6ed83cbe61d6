#!/usr/bin/env python3
"""The table of run_table.sh: per sample and seed, random's and PPO's best (the final figure of each
search report; on the estimate backend an ESTIMATE, not a measurement), PPO's policy entropy at its
first and last update, and the evaluations each spent. usage: make_table.py REPORTS_DIR"""
import collections, glob, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from compact_results import load_report  # noqa: E402  (ppo.learning kept as a CSV beside the report)


def best(r):
    return r["best"]["final"]["speedup"] if r["improved"] else 1.0


def main(d):
    runs = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        kernel, algo, seed = os.path.basename(path).removesuffix(".json").rsplit(".", 2)
        runs[(kernel, seed)][algo] = load_report(path)
    env = open(os.path.join(d, "env.txt")).read().strip() if os.path.exists(os.path.join(d, "env.txt")) else ""
    print("All speed-ups are ESTIMATES of the static model (estimate backend, sm_90), not measurements;"
          " >1 = faster, \"none\" = nothing clearly above the original.\n")
    if env:
        print("```\n" + env + "\n```\n")
    print("| sample | seed | random best | PPO best | PPO − random | PPO entropy first → last update (updates) "
          "| evaluations random / PPO | evals/s random / PPO |")
    print("|---|---|---|---|---|---|---|---|")
    wins = ties = losses = falls = 0
    for (kernel, seed), a in sorted(runs.items()):
        if "random" not in a or "ppo" not in a:
            continue
        r, p = a["random"], a["ppo"]
        rb, pb = best(r), best(p)
        learning = p["ppo"].get("learning", [])
        ent = (f"{learning[0]['entropy']:.2f} → {learning[-1]['entropy']:.2f} ({len(learning)})"
               if learning else "–")
        if learning and learning[-1]["entropy"] < learning[0]["entropy"] - 0.05:
            falls += 1
        diff = pb - rb
        if abs(diff) < 1e-6:
            ties += 1
        elif diff > 0:
            wins += 1
        else:
            losses += 1
        cell = lambda x: f"{x:.4f}×" if x > 1.0 else "none"
        print(f"| {kernel} | {seed.lstrip('s')} | {cell(rb)} | {cell(pb)} | {diff * 100:+.2f} pts | {ent} "
              f"| {r['evaluations']} / {p['evaluations']} "
              f"| {r['evaluations_per_second']:.0f} / {p['evaluations_per_second']:.1f} |")
    n = wins + ties + losses
    print(f"\nPPO beats random on {wins} of {n} (sample, seed) pairs, ties on {ties}, loses on {losses}; "
          f"its entropy fell (by more than 0.05 nats) in {falls} of {n}.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
