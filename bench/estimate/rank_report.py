#!/usr/bin/env python3
"""Spearman rank correlation between estimated (sassx-estimate-rank estimate, CPU) and measured
(run_device.sh, GPU) time of the same variants, per sample. Writes JSON + Markdown.
Usage: rank_report.py EST_DIR MEASURED.json DEVICE DATE OUT_PREFIX"""
import json, math, os, sys


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1  # ties share their average rank
        i = j + 1
    return r


def pearson(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    return float("nan") if sa == 0 or sb == 0 else sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


est_dir, measured_path, device, date, prefix = sys.argv[1:6]
measured = json.load(open(measured_path))
rows, out = [], {"device": device, "date": date, "samples": {}}
for sample, m in sorted(measured.items()):
    e = json.load(open(os.path.join(est_dir, f"est-{sample}.json")))
    est = {v["name"]: v for v in e["variants"] if "cycles" in v}
    pairs = [(est[v["name"]]["ratio"], v["ratio"]) for v in m["variants"]
             if v.get("correct") and "ratio" in v and v["name"] in est]
    failed = [v["name"] for v in m["variants"] if not v.get("correct")]
    s = {"variants_measured": len(m["variants"]), "pairs": len(pairs), "failed": failed,
         "baseline_us": m["baseline"]["median_us"], "noise_floor": m["baseline"]["noise_floor"],
         "screen_rounds": m["screen_rounds"], "estimate_baseline_cycles": e["baseline"]["cycles"]}
    if len(pairs) >= 3:
        ea, ma = [p[0] for p in pairs], [p[1] for p in pairs]
        s["spearman"] = pearson(ranks(ea), ranks(ma))
        s["pearson"] = pearson(ea, ma)
        s["estimated_ratio_p5_p95"] = [pct(ea, 0.05), pct(ea, 0.95)]
        s["measured_ratio_p5_p95"] = [pct(ma, 0.05), pct(ma, 0.95)]
        s["distinct_estimates"] = len(set(round(x, 9) for x in ea))
        s["pairs_list"] = [{"estimated_ratio": a, "measured_ratio": b} for a, b in pairs]
    out["samples"][sample] = s
json.dump(out, open(prefix + ".json", "w"), indent=1)
for k, s in out["samples"].items():
    f = lambda x: "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:+.3f}"
    r = lambda p: "—" if not p else f"{p[0]:.4f}–{p[1]:.4f}"
    rows.append(f"| {k} | {s['pairs']} | {len(s['failed'])} | {s['baseline_us']:.2f} | {100*s['noise_floor']:.3f}% | "
                f"{r(s.get('measured_ratio_p5_p95'))} | {r(s.get('estimated_ratio_p5_p95'))} | "
                f"{s.get('distinct_estimates', 0)} | {f(s.get('spearman'))} | {f(s.get('pearson'))} |")
print("| sample | variants (measured & estimated) | failed on GPU | baseline µs [measured] | noise floor | "
      "measured ratio p5–p95 | estimated ratio p5–p95 | distinct estimates | Spearman ρ | Pearson r |")
print("|---|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
