#!/usr/bin/env python3
"""Summarises ppo_estimate_experiment.sh (or run_ppo_device.sh) run directories: per run the best
speed-up as re-measured, evaluations/s, and for PPO whether its policy improved (mean speed-up at the
end of an episode over the first and last quarter of its episodes; the entropy of the first and last
update, ln(actions) being uniform).

usage:
  ppo_summary.py OUT                      OUT/runs/*/report.json and history.csv of a run
  ppo_summary.py --reports [--ppo-only] [LABEL=]FILE...
                                          committed files: a search report.json, or a merged JSON of
                                          run_device.sh / run_ppo_device.sh (name -> {"report": ...});
                                          LABEL names a report's row, or prefixes a merged file's rows

Only run directories hold history.csv, so --reports prints no episode-end column, and counts the
episodes the report says were completed (the history count also includes an unfinished last one)."""
import csv, glob, json, os, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compact_results import load_report  # noqa: E402  (ppo.learning kept as a CSV beside the report)


def best_cell(r):
    f = r["best"]["final"]
    if not r["improved"]:
        return "none (1.0000×)"
    return f"{f['speedup']:.4f}×" + (f" [{f['low']:.4f}, {f['high']:.4f}]" if f.get("rounds") else "")


def entropy_cell(r):
    learning = r["ppo"].get("learning", [])
    if not learning:
        return "–"
    return f"{learning[0]['entropy']:.2f} → {learning[-1]['entropy']:.2f} ({len(learning)} updates)"


def from_run_dirs(out):
    print("| run | best speed-up (final figure) | evals/s | episodes | episode-end mean, first → last quarter | entropy first → last update |")
    print("|---|---|---|---|---|---|")
    for d in sorted(glob.glob(os.path.join(out, "runs", "*"))):
        rep = os.path.join(d, "report.json")
        if not os.path.isdir(d) or not os.path.exists(rep):
            continue
        r = load_report(rep)
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
            ent_col = entropy_cell(r)
        print(f"| {os.path.basename(d)} | {best_cell(r)} | {r['evaluations_per_second']:.1f} | {episodes} | {eps_col} | {ent_col} |")


def from_reports(args):
    ppo_only = "--ppo-only" in args
    runs = []
    for a in (x for x in args if x != "--ppo-only"):
        label, path = a.split("=", 1) if "=" in a else (None, a)
        j = load_report(path)
        if "tool" in j:  # one search report
            runs.append((label or os.path.basename(path).removesuffix(".json"), j))
        else:
            for name, v in sorted(j.items()):
                if "report" in v:
                    runs.append((f"{label}: {name}" if label else name, v["report"]))
    print("| run | best speed-up (final figure) | evals/s | episodes (completed) | entropy first → last update |")
    print("|---|---|---|---|---|")
    for name, r in runs:
        if ppo_only and "ppo" not in r:
            continue
        episodes = str(r["ppo"]["episodes"]) if "ppo" in r else "–"
        ent = entropy_cell(r) if "ppo" in r else "–"
        print(f"| {name} | {best_cell(r)} | {r['evaluations_per_second']:.1f} | {episodes} | {ent} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--reports":
        from_reports(sys.argv[2:])
    else:
        from_run_dirs(sys.argv[1])
