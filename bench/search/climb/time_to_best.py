#!/usr/bin/env python3
"""Time-to-best curves and tables of bench/search/climb/run_device.sh's results (docs/search.md).

usage: time_to_best.py RESULT_DIR [OUT.md]
RESULT_DIR holds runs/KERNEL.SPACE.ALGO/{report.json,history.csv,bench1.json,bench2.json} and env.txt
(unpack climb-results.tar.xz there). Writes one PNG per kernel and space beside OUT.md (best-so-far
speed-up, as the search reported it, against seconds, one line per algorithm) and prints (or writes) the
tables: per algorithm the evaluations, evaluations/s, the search's final figure of its best (re-measured
against the original), the two fresh-process benches of that best, when the best was found and when the
best-so-far first came within 1% of its final value.

A best-so-far step is a history row with best=1: a figure against the original that was deterministic or
confirmed on fresh rounds (climbing's chained figures never count until re-measured)."""
import csv, glob, json, os, sys


def load(run_dir):
    # history.csv as the search wrote it, or bests.csv, the compact copy kept under bench/results (its
    # new-best rows, re-measures and last row: all this script reads; bench/compact_results.py).
    name = "history.csv" if os.path.exists(os.path.join(run_dir, "history.csv")) else "bests.csv"
    rows = list(csv.DictReader(open(os.path.join(run_dir, name))))
    report = json.load(open(os.path.join(run_dir, "report.json")))
    benches = []
    for b in sorted(glob.glob(os.path.join(run_dir, "bench*.json"))):
        try:
            j = json.load(open(b))
            s = j.get("speedup")
            if s:
                benches.append((s["median"], s["low"], s["high"], j.get("baseline", {}).get("noise_floor", 0)))
        except (ValueError, KeyError):
            pass
    return rows, report, benches


def curve(rows):
    pts = [(0.0, 1.0)]
    for r in rows:
        if r["best"] == "1":
            pts.append((float(r["seconds"]), float(r["speedup"])))
    return pts


def final_figure(report):
    best = report.get("best") or {}
    f = best.get("final") or {}
    if not report.get("improved"):
        return 1.0, 1.0, 1.0
    return f.get("speedup", 1.0), f.get("low", 1.0), f.get("high", 1.0)


def main():
    res = sys.argv[1]
    out_md = sys.argv[2] if len(sys.argv) > 2 else None
    groups = {}
    for d in sorted(glob.glob(os.path.join(res, "runs", "*"))):
        if not os.path.exists(os.path.join(d, "report.json")):
            continue
        kernel, space, algo = os.path.basename(d).split(".")
        groups.setdefault((kernel, space), {})[algo] = load(d)
    lines = []
    plot_dir = os.path.dirname(out_md) if out_md else res
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    for (kernel, space), algos in sorted(groups.items()):
        lines.append(f"### {kernel}, space {space}\n")
        lines.append("| algorithm | evaluations | evals/s | final figure of its best (95% interval) "
                     "| fresh benches | best found at | within 1% of final at |")
        lines.append("|---|---|---|---|---|---|---|")
        for algo, (rows, report, benches) in sorted(algos.items()):
            sp, lo, hi = final_figure(report)
            pts = curve(rows)
            last = pts[-1][1]
            t_best = report.get("time_to_best_s", pts[-1][0]) if report.get("improved") else None
            t_1pct = next((t for t, s in pts if s >= last / 1.01), 0.0)
            ev = report.get("evaluations", len(rows))
            eps = report.get("evaluations_per_second", 0)
            fig = f"{sp:.4f}× ({lo:.4f}–{hi:.4f})" if report.get("improved") else "nothing beat the original"
            bench = ", ".join(f"{m:.4f}× ({l:.4f}–{h:.4f}, floor {fl * 100:.2f}%)" for m, l, h, fl in benches) or "—"
            tb = f"{t_best:.0f} s" if t_best is not None else "—"
            lines.append(f"| {algo} | {ev} | {eps:.1f} | {fig} | {bench} | {tb} | {t_1pct:.0f} s |")
        lines.append("")
        if plt:
            fig, ax = plt.subplots(figsize=(7, 4))
            for algo, (rows, report, _) in sorted(algos.items()):
                pts = curve(rows)
                end = float(rows[-1]["seconds"]) if rows else pts[-1][0]
                xs = [p[0] for p in pts] + [end]
                ys = [p[1] for p in pts] + [pts[-1][1]]
                ax.step(xs, ys, where="post", label=algo)
            ax.set_xlabel("seconds")
            ax.set_ylabel("best speed-up so far (> 1 = faster)")
            ax.set_title(f"{kernel}, {space}")
            ax.axhline(1.0, color="grey", lw=0.5)
            ax.legend()
            png = os.path.join(plot_dir, f"time-to-best-{kernel}-{space}.png")
            fig.tight_layout()
            fig.savefig(png, dpi=90)
            plt.close(fig)
            lines.append(f"![{kernel} {space}]({os.path.basename(png)})\n")
    text = "\n".join(lines)
    if out_md:
        open(out_md, "w").write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
