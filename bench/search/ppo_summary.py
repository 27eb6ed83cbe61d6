#!/usr/bin/env python3
"""Summarises ppo_estimate_experiment.sh (or run_ppo_device.sh) run directories: per run the best
speed-up as re-measured, evaluations/s, and for PPO whether its policy improved (mean speed-up at the
end of an episode over the first and last quarter of its episodes; the entropy of the first and last
update, ln(actions) being uniform)."""
import csv, glob, json, os, statistics, sys

out = sys.argv[1]
print("| run | best speed-up (final figure) | evals/s | episodes | episode-end mean, first → last quarter | entropy first → last update |")
print("|---|---|---|---|---|---|")
for d in sorted(glob.glob(os.path.join(out, "runs", "*"))):
    rep = os.path.join(d, "report.json")
    if not os.path.isdir(d) or not os.path.exists(rep):
        continue
    r = json.load(open(rep))
    f = r["best"]["final"]
    best = f"{f['speedup']:.4f}×" + (f" [{f['low']:.4f}, {f['high']:.4f}]" if f.get("rounds") else "")
    if not r["improved"]:
        best = "none (1.0000×)"
    eps_col = ent_col = episodes = "–"
    if "ppo" in r:
        rows = list(csv.DictReader(open(os.path.join(d, "history.csv"))))
        ends, cur = [], None
        for row in rows:
            if row["base"] == "-1" and cur is not None:
                ends.append(cur)
            cur = float(row["speedup"])
        if cur is not None:
            ends.append(cur)
        q = max(1, len(ends) // 4)
        episodes = str(len(ends))
        eps_col = f"{statistics.mean(ends[:q]):.4f} → {statistics.mean(ends[-q:]):.4f}"
        learning = r["ppo"].get("learning", [])
        if learning:
            ent_col = f"{learning[0]['entropy']:.2f} → {learning[-1]['entropy']:.2f} ({len(learning)} updates)"
    print(f"| {os.path.basename(d)} | {best} | {r['evaluations_per_second']:.1f} | {episodes} | {eps_col} | {ent_col} |")
