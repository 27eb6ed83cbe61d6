#!/usr/bin/env python3
"""Coverage of final-figure intervals by fresh-process re-runs (bench/eval/remeasure_coverage.sh).

  remeasure_coverage.py COVERAGE_DIR [OUT.md]

Per kernel and mode (bench-iK-*.json: K = 1, every round in one worker process; K > 1, the rounds spread
over K fresh processes, or in-process instance pairs in the first run, as env.txt says): the benches' speed-ups, their spread, the mean 95% half-width,
and the coverage: over every ordered pair (i, j != i) of benches of one mode, how often bench j's point
lies inside bench i's interval. An interval that describes a re-run covers ~90% or more of them. The
search's own final figure (report.json's best, 5 instance pairs) is checked against the benches too.
"""
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402


def bench(path):
    try:
        j = json.load(open(path))
    except (OSError, ValueError):
        return None
    r = j.get("result", {})
    t = r.get("timing")
    if not r.get("correct") or not t:
        return None
    lo, hi = t["ratio_ci95"]
    return 1 / t["ratio_median"], 1 / hi, 1 / lo


def coverage(benches):
    hits = total = 0
    for i, (_, lo, hi) in enumerate(benches):
        for j, (p, _, _) in enumerate(benches):
            if i != j:
                total += 1
                hits += lo <= p <= hi
    return hits / total if total else float("nan")


def main():
    root = sys.argv[1]
    record = benchlib.read_env(root)
    if record:
        date, commit, settings = record["date"], record.get("pack_commit") or record.get("commit"), record["settings"]
        device = benchlib.gpu_summary(record)
    else:  # a run before env.json: date, commit, settings, then nvidia-smi's CSV with its header
        env = open(os.path.join(root, "env.txt")).read().splitlines()
        date, commit, settings = env[0], env[1], env[2]
        device = "; ".join(l for l in env if l[:1].isdigit() and "," in l) or "?"
    unit = "fresh processes" if "--processes" in settings else "fresh instance pairs"

    def label(m):
        return ("1 process, 1 instance pair" if unit == "fresh processes" else "1 instance pair") if m == 1 \
            else f"{m} {unit}"
    lines = ["| kernel | mode | benches | median speed-up | spread (min-max) | sd | mean 95% half-width |"
             " coverage of re-runs | search's interval covers |", "|---|---|---|---|---|---|---|---|---|"]
    totals = {}
    for kdir in sorted(d for d in glob.glob(os.path.join(root, "*")) if os.path.isdir(d)):
        k = os.path.basename(kdir)
        search = None
        try:
            best = json.load(open(os.path.join(kdir, "report.json")))["best"]
            f = best["final"]
            search = (f["speedup"], f["low"], f["high"], f.get("instances", 1))
        except (OSError, ValueError, KeyError):
            pass
        modes = sorted({int(os.path.basename(p).split("-")[1][1:]) for p in glob.glob(os.path.join(kdir, "bench-i*-*.json"))})
        for m in modes:
            bs = [b for b in (bench(p) for p in sorted(glob.glob(os.path.join(kdir, f"bench-i{m}-*.json")))) if b]
            if len(bs) < 2:
                continue
            pts = [b[0] for b in bs]
            cov = coverage(bs)
            h, t = totals.get(m, (0, 0))
            n = len(bs)
            totals[m] = (h + cov * n * (n - 1), t + n * (n - 1))
            s_cov = "-"
            if search:
                inside = sum(search[1] <= p <= search[2] for p in pts)
                s_cov = f"{inside}/{n} ({search[0]:.4f} [{search[1]:.4f}, {search[2]:.4f}], {search[3]} pairs)"
            half = statistics.mean((b[2] - b[1]) / 2 for b in bs)
            lines.append(f"| {k} | {label(m)} | {n} | "
                         f"{statistics.median(pts):.4f} | {min(pts):.4f}-{max(pts):.4f} | "
                         f"{statistics.stdev(pts) * 100:.3f}% | {half * 100:.3f}% | {cov * 100:.0f}% | {s_cov} |")
    for m, (h, t) in sorted(totals.items()):
        lines.append(f"| all | {label(m)} | | | | | | "
                     f"**{h / t * 100:.0f}%** ({int(round(h))}/{t}) | |")
    text = "\n".join([f"Device (index, name, driver, SM clock, max SM clock): {device}; run {date}; "
                      f"commit {commit}; {settings}", ""] + lines)
    print(text)
    if len(sys.argv) > 2:
        open(sys.argv[2], "w").write(text + "\n")


if __name__ == "__main__":
    main()
