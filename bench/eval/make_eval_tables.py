#!/usr/bin/env python3
"""Tables of the evaluator write-ups (bench/results/eval-*.md) from the committed JSONs that
`sassx-eval-bench throughput` / `faults` wrote on the device.

usage:
  make_eval_tables.py faults EVAL-FAULTS.json
  make_eval_tables.py throughput-s2 EVAL-THROUGHPUT.json [RUN.log]   # eval-h100-2026-11-22.md
  make_eval_tables.py throughput-s3 EVAL-THROUGHPUT.json [REPEAT.json] # eval-h100-2026-11-22-cupti.md
  make_eval_tables.py cupti-agree EVAL-CUPTI-CROSSCHECK.json
  make_eval_tables.py pool ONE-GPU.json TWO-GPUS.json FAULTS.json   # eval-multigpu-h200x2-2026-11-22.md
"""
import json
import re
import sys

# The write-ups name specs for a reader, not by their JSON key; the order is the write-up's.
S2_LABELS = [
    ("sgemm_leakyrelu", "sgemm_leakyrelu (sample)"),
    ("hgemm_leakyrelu", "hgemm_leakyrelu (sample)"),
    ("flash_attn_fwd", "flash_attn_fwd (sample)"),
    ("rmsnorm", "rmsnorm (sample)"),
    ("gemm_leakyrelu", "gemm_leakyrelu (Triton sample)"),
    ("attention_fwd", "attention_fwd (Triton sample)"),
    ("huge_unrolled", "huge_unrolled (sample)"),
    ("big_unrolled", "big_unrolled (sample)"),
    ("eval_fma", "eval_fma (ours, ~200 µs compute-bound)"),
    ("eval_add", "eval_add (ours, 16M-element memory-bound)"),
]
S3_LABELS = [
    ("attention_fwd", "attention_fwd (Triton)"),
    ("flash_attn_fwd", "flash_attn_fwd"),
    ("gemm_leakyrelu", "gemm_leakyrelu (Triton)"),
    ("hgemm_leakyrelu", "hgemm_leakyrelu"),
    ("rmsnorm", "rmsnorm"),
    ("sgemm_leakyrelu", "sgemm_leakyrelu"),
    ("eval_fma", "eval_fma (~200 µs, compute-bound)"),
    ("eval_add", "eval_add (16M elements, memory-bound)"),
]
FAULT_LABELS = {
    "eval_add_oob": "store moved out of bounds (+16 TiB)",
    "eval_add_hang": "infinite loop",
    "eval_add_params": "extra kernel parameter",
    "eval_add_renamed": "wrong kernel name",
    "eval_add_wrong": "one element wrong",
    "eval_add_partial": "last element never written",
    "garbage_bytes": "8 KiB of garbage",
}
FAULT_REPORTED = {
    "fault": "fault (CUDA_ERROR_ILLEGAL_ADDRESS), worker restarted",
    "timeout": "timeout, worker killed and restarted",
}


def load(p):
    return json.load(open(p))


def faults(path):
    d = load(path)
    print("| candidate | count | reported as |")
    print("|---|---|---|")
    rows = []
    for variant, by in d["by_variant"].items():
        for kind, n in by.items():
            note = FAULT_REPORTED.get(kind, kind)
            if variant == "eval_add_partial":
                note += " (NaN poison)"
            rows.append((-n, list(FAULT_LABELS).index(variant), FAULT_LABELS.get(variant, variant), n, note))
    for _, _, label, n, note in sorted(rows):
        print(f"| {label} | {n} | {note} |")
    print()
    print(f"{d['caller_crashes']} caller crashes, {d['reported_failed']}/{d['candidates']} reported failed, "
          f"{d['wrongly_passed']} wrongly passed, {d['worker_restarts']} worker restarts, {d['wall_s']:.0f} s, "
          f"original correct afterwards: {d['baseline_ok_afterwards']}")


def refused_in_log(log):
    """Specs whose throughput step failed: sassx-eval-bench then writes no JSON, only the log says why."""
    if not log:
        return set()
    return set(re.findall(r"=== throughput (\S+) rc=[1-9]", open(log).read()))


def throughput_s2(path, log=None):
    d = load(path)
    refused = refused_in_log(log)
    print("| spec | baseline µs/launch | mode × launches/sample | noise floor | screen-only evals/s | "
          "adaptive evals/s (confirmed) | identical called faster (adaptive / screen-only) | "
          "identical ratio p5–p95 (adaptive) |")
    print("|---|---|---|---|---|---|---|---|")
    for key, label in S2_LABELS:
        if key not in d:
            if key in refused:
                print(f"| {label} | — | — | — | refused | — | — | — |")
            continue
        v = d[key]
        b, s, a = v["baseline"], v["screen_only"], v["adaptive"]
        p = a["identical_ratio_p05_p50_p95"]
        print(f"| {label} | {b['baseline_median_us']:.2f} | {b['launch_mode']} × {b['launches_per_sample']} | "
              f"{b['noise_floor'] * 100:.3f}% | {s['evaluations_per_s']:.1f} | "
              f"{a['evaluations_per_s']:.1f} ({a['confirmed']}/{a['candidates']}) | "
              f"{a['false_faster']}/{a['candidates']} / {s['false_faster']}/{s['candidates']} | "
              f"{p[0]:.4f}–{p[2]:.4f} |")


def throughput_s3(path, repeat=None):
    d = load(path)
    print("| spec | baseline µs | mode × launches | noise floor | screen-only evals/s | adaptive evals/s | "
          "rounds/candidate | worker ms load / check / timing | identical called faster (adaptive / screen-only) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, (key, label) in enumerate(S3_LABELS):
        v = d[key]
        b, s, a = v["baseline"], v["screen_only"], v["adaptive"]
        w = a["worker_phase_ms_mean"]
        conf = f"{a['confirmed']} confirmed" if i == 0 else f"{a['confirmed']}"
        print(f"| {label} | {b['baseline_median_us']:.2f} | {b['launch_mode']} × {b['launches_per_sample']} | "
              f"{b['noise_floor'] * 100:.3f}% | {s['evaluations_per_s']:.1f} | {a['evaluations_per_s']:.1f} ({conf}) | "
              f"{a['rounds_per_candidate']:.1f} | {w['load']:.1f} / {w['check']:.1f} / {w['timing']:.1f} | "
              f"{a['false_faster']}/{a['candidates']} / {s['false_faster']}/{s['candidates']} |")
    if repeat:
        r = load(repeat)
        rates = [v["adaptive"]["evaluations_per_s"] for v in r.values()]
        floors = [v["baseline"]["noise_floor"] * 100 for v in r.values()]
        fa = {k: v["adaptive"]["false_faster"] for k, v in r.items() if v["adaptive"]["false_faster"]}
        n_a = sum(v["adaptive"]["candidates"] for v in r.values())
        n_s = sum(v["screen_only"]["candidates"] for v in r.values())
        fs = sum(v["screen_only"]["false_faster"] for v in r.values())
        print()
        print(f"Repeat run: adaptive {min(rates):.1f}–{max(rates):.1f}/s, floors {min(floors):.2f}–{max(floors):.2f}%, "
              f"identical called faster {sum(fa.values())}/{n_a} adaptive ({', '.join(fa) or '–'}), {fs}/{n_s} screen-only.")


def cupti_agree(path):
    d = load(path)
    ks = d["kernels"]
    same = [r for k in ks for r in k["vs_ncu_same_runner"] if r["ok"] is not None]
    cupy = [r for k in ks for r in k.get("vs_ncu_cupy", []) if r["ok"] is not None]
    nw = lambda rows: [r for r in rows if r["metric"] != "dram__bytes_write.sum"]
    ok = lambda rows: sum(1 for r in rows if r["ok"])
    print("| | rows agreeing |")
    print("|---|---|")
    print(f"| CUPTI vs ncu, same runner | {ok(same)} / {len(same)} |")
    print(f"| CUPTI vs ncu, CuPy launch | {ok(cupy)} / {len(cupy)} |")
    print(f"| …without `dram__bytes_write.sum` | {ok(nw(same))} / {len(nw(same))} and {ok(nw(cupy))} / {len(nw(cupy))} |")


def pool(one, two, faults_path):
    print("| pool | screen-only evals/s | adaptive evals/s (with confirmation) | correct | "
          "identical called faster (adaptive / screen-only) |")
    print("|---|---|---|---|---|")
    for label, p in (("GPU 0", one), ("GPUs 0,1", two)):
        v = load(p)
        s, a = v["screen_only"], v["adaptive"]
        print(f"| {label} | {s['evaluations_per_s']:.1f} | {a['evaluations_per_s']:.1f} | "
              f"{s['correct']}/{s['candidates']}, {a['correct']}/{a['candidates']} | "
              f"{a['false_faster']}/{a['candidates']} / {s['false_faster']}/{s['candidates']} |")
    print()
    for label, p in (("GPU 0", one), ("GPUs 0,1", two)):
        b = load(p)["baseline"]
        print(f"Baseline ({label} run): {b['baseline_median_us']:.1f} µs, noise floor {b['noise_floor'] * 100:.2f}%")
    f = load(faults_path)
    print(f"Faults: {f['reported_failed']}/{f['candidates']} reported failed, {f['wrongly_passed']} wrongly passed, "
          f"{f['caller_crashes']} caller crashes, {f['worker_restarts']} worker restarts, "
          f"baseline correct afterwards: {f['baseline_ok_afterwards']}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, args = sys.argv[1], sys.argv[2:]
    {"faults": faults, "throughput-s2": throughput_s2, "throughput-s3": throughput_s3,
     "cupti-agree": cupti_agree, "pool": pool}[mode](*args)
