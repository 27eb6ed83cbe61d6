#!/usr/bin/env python3
"""Table of one ppo_compare run directory (run_device.sh): per contender, the best's final figure from
fresh worker processes with its interval and noise floor, time to best, the best so far at fixed times
(history.csv: the search's own figure of each new best), evaluations, and PPO's learning.
usage: summary.py DIR   (DIR holds ppo-warm/, ppo-cold/, climb/, random/, env.txt)
Each run's history is history.csv as the search wrote it, or bests.csv, the compact copy kept under
bench/results (its new-best rows and last row: all this script reads; bench/compact_results.py)."""
import csv, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from compact_results import load_report  # noqa: E402  (ppo.learning split off into a CSV)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import benchlib  # noqa: E402

ORDER = ["ppo-warm", "ppo-cold", "climb", "random"]


def read_history(d):
    """The run's history.csv, else its bests.csv; [] when neither is there."""
    for name in ("history.csv", "bests.csv"):
        try:
            with open(os.path.join(d, name)) as f:
                return list(csv.DictReader(f))
        except OSError:
            pass
    return []


def best_by(history, seconds):
    """The search's figure of the newest best at or before `seconds` (1.0: none yet)."""
    best = 1.0
    for row in history:
        if float(row["seconds"]) > seconds:
            break
        if row.get("best") == "1":
            best = float(row["speedup"])
    return best


def main(root):
    record = benchlib.read_env(root)
    if record:
        env = record["settings"]
    else:  # a run before env.json: the settings are one of env.txt's lines
        env = open(os.path.join(root, "env.txt")).read() if os.path.exists(os.path.join(root, "env.txt")) else ""
    budget = next((float(w.split("=")[1]) for line in env.splitlines() for w in line.split()
                    if w.startswith("BUDGET=")), 360.0)
    marks = sorted({budget / 6, budget / 3, budget / 2, budget})
    head = ["contender", "best: final figure (fresh processes) [interval]", "noise floor", "time to best",
            *[f"best by {m:g} s" for m in marks], "evaluations",
            "PPO updates, entropy first → last, critic's explained variance (median)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in ORDER:
        d = os.path.join(root, name)
        try:
            r = load_report(os.path.join(d, "report.json"))
        except (OSError, ValueError):
            print(f"| {name} | no report (see {name}/log) |" + " |" * (len(head) - 2))
            continue
        history = read_history(d)
        b = r.get("best") or {}
        fin = b.get("final") or {}
        if r.get("improved") and fin:
            final = f"{fin['speedup']:.4f}× [{fin['low']:.4f}, {fin['high']:.4f}] ({fin.get('instances')} processes)"
            floor = f"{100 * fin.get('noise_floor', 0):.2f}%"
            ttb = f"{r.get('time_to_best_s', 0):.0f} s"
        else:
            final, floor, ttb = "none above the original", "–", "–"
        at = [f"{best_by(history, m):.4f}×" for m in marks]
        p = r.get("ppo") or {}
        L = p.get("learning") or []
        learn = "–"
        if L:
            # The critic's explained variance: below 0, its values predict the returns worse than their
            # mean would; when the returns hardly vary it says little (bench/results/ppo-critic-h200-2026-11-27.md).
            ev = sorted(u.get("explained_variance", 0.0) for u in L)
            learn = f"{len(L)}, {L[0]['entropy']:.2f} → {L[-1]['entropy']:.2f}, {ev[len(ev) // 2]:.2f}"
        print(f"| {name} | {final} | {floor} | {ttb} | " + " | ".join(at) + f" | {r.get('evaluations')} | {learn} |")


def first_reaching(history, target):
    """Seconds at which the search's newest best first reached `target` (None: never)."""
    for row in history:
        if row.get("best") == "1" and float(row["speedup"]) >= target:
            return float(row["seconds"])
    return None


def warm_against_cold(root):
    """When each PPO run first reached the other's final best (both in the search's own figures)."""
    runs = {}
    for name in ("ppo-warm", "ppo-cold"):
        runs[name] = read_history(os.path.join(root, name))
        if not runs[name]:
            return
    best = {n: max([float(r["speedup"]) for r in h if r.get("best") == "1"] or [1.0]) for n, h in runs.items()}
    for a, b in (("ppo-warm", "ppo-cold"), ("ppo-cold", "ppo-warm")):
        t = first_reaching(runs[a], best[b]) if best[b] > 1.0 else None
        when = f"at {t:.0f} s" if t is not None else "never"
        print(f"\n{a} reached {b}'s best ({best[b]:.4f}×, search figure) {when}.", end="")
    print()


def time_split(root):
    """Where each run's time went (report.json time_split, this call's part of the run): ms per
    evaluation inside and outside the evaluator, and the strategy's own phases where it times them."""
    print("\n| contender | evaluations (this call) | evaluator ms/eval | outside ms/eval | strategy phases, ms/eval |")
    print("|---|---|---|---|---|")
    for name in ORDER:
        try:
            r = load_report(os.path.join(root, name, "report.json"))
        except (OSError, ValueError):
            continue
        t = r.get("time_split") or {}
        n = round(t.get("batches", 0) * t.get("mean_batch", 0))  # candidates evaluated in this call
        if not n:
            continue
        phases = ", ".join(f"{k[:-2]} {1000 * v / n:.1f}" for k, v in (t.get("strategy_phases") or {}).items()) or "–"
        print(f"| {name} | {n} | {1000 * t.get('evaluator_s', 0) / n:.1f} | "
              f"{1000 * t.get('outside_evaluator_s', 0) / n:.1f} | {phases} |")


if __name__ == "__main__":
    main(sys.argv[1])
    warm_against_cold(sys.argv[1])
    time_split(sys.argv[1])
