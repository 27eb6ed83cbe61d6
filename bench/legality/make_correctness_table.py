#!/usr/bin/env python3
"""Correctness tables (one row per sample, one column per variant set) from committed
run_variants.py / merge_results.py JSONs ({"samples": {SAMPLE: {RULE: {"counts": ...}}}}).

usage: make_correctness_table.py [--origin] "HEADER=FILE_PATTERN:RULE" ...
  FILE_PATTERN may hold {sample} (per-sample files) or be one merged file; RULE is the rule key.

examples:
  D=docs/results; make_correctness_table.py --origin \\
    "legal, seed 7: match / run=$D/legality-h200-2026-11-22-final-seed7.json:sassx" \\
    "legal, seed 11=$D/legality-h200-2026-11-22-final-seed11.json:sassx" \\
    "stall-raise control=$D/legality-h200-2026-11-22-final-seed7.json:stalls" \\
    "SIP rule (run of 500): match / mismatch / fault=$D/legality-h200-2026-11-22-final-seed7.json:sip"
  D=docs/results/rescheduled-h100-2026-11-23; make_correctness_table.py --origin \\
    "rescheduled, seed 7=$D/{sample}.rescheduled.json:rescheduled" \\
    "rescheduled, seed 11=$D/{sample}.rescheduled11.json:rescheduled11" \\
    "stall-raise control=$D/{sample}.stalls.json:stalls" \\
    "ptxas' order, minimal derived codes=$D/{sample}.derived.json:derived"
"""
import json
import os
import sys

SAMPLES = ["attention_fwd", "flash_attn_fwd", "gemm_leakyrelu", "hgemm_leakyrelu", "rmsnorm", "sgemm_leakyrelu"]
ORIGIN = {"attention_fwd": "Triton", "gemm_leakyrelu": "Triton"}


def cell(c):
    if c.get("stopped_by_time_budget"):
        # A run cut by its time budget covers only part of the set: say how much, and how it failed.
        failed = c["variants"] - c["match"]
        return (f"{c['variants']} of {c['generated']}: {c['match']} / {c['mismatch']} / {c['fault']} "
                f"({100 * failed / c['variants']:.0f}% fail)")
    s = f"{c['match']}/{c['variants']}"
    bad = {k: c[k] for k in ("mismatch", "fault", "hang") if c.get(k)}
    return s + (" (" + ", ".join(f"{k} {v}" for k, v in bad.items()) + ")" if bad else "")


def main(argv):
    origin = "--origin" in argv
    cols = []
    for a in (x for x in argv if x != "--origin"):
        header, spec = a.split("=", 1)
        pattern, rule = spec.rsplit(":", 1)
        cols.append((header, pattern, rule))
    print("| sample | " + " | ".join(h for h, _, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    totals = {"mismatch": 0, "fault": 0, "hang": 0}
    for s in SAMPLES:
        cells = []
        for _, pattern, rule in cols:
            path = pattern.format(sample=s)
            if not os.path.exists(path):
                cells.append("–")
                continue
            c = json.load(open(path))["samples"].get(s, {}).get(rule)
            if c is None:
                cells.append("–")
                continue
            cells.append(cell(c["counts"]))
            if not c["counts"].get("stopped_by_time_budget"):
                for k in totals:
                    totals[k] += c["counts"].get(k, 0)
        name = f"{s} ({ORIGIN.get(s, 'CUDA')})" if origin else s
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print(f"{totals['mismatch']} mismatches, {totals['fault']} faults, {totals['hang']} hangs in the columns run to the end.")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
