#!/usr/bin/env python3
"""Tabulates bench/search/multi_gpu/run_device.sh: per kernel and GPU set, evaluations, evaluations/s
over the search phase, the pool's rate against one GPU (target >= 0.9 x N), the best's final figure
(re-measured in fresh processes) and time-to-best.

  summary.py MULTIGPU_DIR [OUT.md]
"""
import csv
import glob
import json
import lzma
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import benchlib  # noqa: E402


def history_rows(d):
    """The run's history.csv (plain, or xz as run_device.sh keeps it); [] when absent."""
    for name, opener in (("history.csv", open), ("history.csv.xz", lzma.open)):
        path = os.path.join(d, name)
        if os.path.exists(path):
            with opener(path, "rt") as f:
                return list(csv.DictReader(f))
    return []


def diagnose(kernel, gset, hist, last):
    """Batches, their size and rate, and the race rounds per evaluation: a pool whose batches/s fall
    as it grows waits on its slowest race; one whose batches/s stay flat is held by the engine."""
    if not hist or last <= 0:
        return None
    stamps = {}
    rounds = []
    remeasures = 0
    for row in hist:
        stamps[row.get("seconds")] = stamps.get(row.get("seconds"), 0) + 1
        if "measure" in (row.get("kind") or ""):
            remeasures += 1
        elif row.get("rounds"):
            rounds.append(float(row["rounds"]))
    batches = len(stamps)
    mean_rounds = sum(rounds) / len(rounds) if rounds else 0.0
    # Race rounds per second: the GPU work done, steadier between runs than evaluations/s, which moves
    # with how many rounds the trajectory's candidates happened to need.
    all_rounds = sum(float(row["rounds"]) for row in hist if row.get("rounds"))
    return (f"| {kernel} | {gset.replace('-', ',')} | {batches} | {len(hist) / batches:.2f} | "
            f"{batches / last:.1f} | {mean_rounds:.1f} | {all_rounds / last:.0f} | {remeasures} |")


def main():
    root = sys.argv[1]
    record = benchlib.read_env(root)
    if record:
        env = [record["date"], record.get("pack_commit") or record.get("commit"), record["settings"],
               *record.get("nvidia_smi", [])]
    else:  # a run before env.json: date, commit, settings, one nvidia-smi line per GPU
        env = open(os.path.join(root, "env.txt")).read().strip().splitlines()
    rows = {}
    diag = []
    for d in sorted(glob.glob(os.path.join(root, "*.g*"))):
        kernel, gset = os.path.basename(d).rsplit(".g", 1)
        try:
            r = json.load(open(os.path.join(d, "report.json")))
        except (OSError, ValueError):
            continue
        n = len(gset.split("-"))
        # The search phase only: the history's last evaluation time (the final re-measure and the
        # fresh-input check come after it and do not scale with the pool).
        last = 0.0
        hist = history_rows(d)
        for row in hist:
            last = max(last, float(row.get("seconds") or 0))
        evals = r.get("evaluations", 0)
        rate = evals / last if last > 0 else r.get("evaluations_per_second", 0)
        final = r.get("best", {}).get("final", {})
        rows.setdefault(kernel, []).append((n, gset, evals, rate, r, final))
        diag.append(diagnose(kernel, gset, hist, last))
    lines = ["| kernel | GPUs | evaluations | evaluations/s | x one GPU (target >= 0.9 N) | best (final figure, 5 fresh processes) | time to best |",
             "|---|---|---|---|---|---|---|"]
    for kernel, rs in sorted(rows.items()):
        rs.sort()
        one = next((x[3] for x in rs if x[0] == 1), None)
        for n, gset, evals, rate, r, final in rs:
            scale = f"{rate / one:.2f} ({rate / one / n:.0%} of {n}x)" if one else "-"
            if r.get("improved"):
                best = f"{final.get('speedup', 0):.4f}x [{final.get('low', 0):.4f}, {final.get('high', 0):.4f}]"
            else:
                best = "none beyond the noise"
            ttb = f"{r.get('time_to_best_s', 0):.0f} s" if r.get("improved") else "-"
            lines.append(f"| {kernel} | {gset.replace('-', ',')} | {evals} | {rate:.1f} | {scale} | {best} | {ttb} |")
    lines += ["", "Where the time goes (from the histories: evaluations recorded at one instant form one batch):", "",
              "| kernel | GPUs | batches | mean batch | batches/s | mean race rounds | race rounds/s | re-measures |",
              "|---|---|---|---|---|---|---|---|"] + [x for x in diag if x]
    split = []
    for kernel, rs in sorted(rows.items()):
        for n, gset, evals, rate, r, final in sorted(rs):
            t = r.get("time_split")
            if not t:
                continue
            ph = t.get("worker_phases", {})
            run = t.get("run_s", 0) or 1.0
            split.append(f"| {kernel} | {gset.replace('-', ',')} | {t.get('run_s', 0):.1f} | "
                         f"{t.get('evaluator_s', 0) / run:.0%} | {t.get('outside_evaluator_s', 0) / run:.0%} | "
                         f"{t.get('checkpoint_s', 0) / run:.1%} | {t.get('pool_busy_share', 0):.0%} | "
                         f"{1e3 * ph.get('load_s', 0) / max(1, evals):.1f} / {1e3 * ph.get('check_s', 0) / max(1, evals):.1f} / "
                         f"{1e3 * ph.get('timing_s', 0) / max(1, evals):.1f} |")
    if split:
        lines += ["", "The engine's own account (report.json `time_split`): shares of the search's wall time; pool busy = "
                  "measuring time summed over the GPUs / (GPUs x time in the evaluator); worker phases per evaluation:", "",
                  "| kernel | GPUs | search s | in the evaluator | outside it | checkpoints | pool busy | load / check / timing ms |",
                  "|---|---|---|---|---|---|---|---|"] + split
    text = "\n".join([f"Run {env[0]}; commit {env[1]}; {env[2]}; GPUs: " + "; ".join(env[3:]), ""] + lines)
    print(text)
    if len(sys.argv) > 2:
        open(sys.argv[2], "w").write(text + "\n")


if __name__ == "__main__":
    main()
