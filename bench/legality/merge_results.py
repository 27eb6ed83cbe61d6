#!/usr/bin/env python3
"""Merges per-sample run_variants.py reports (run_all.sh output) into one report.
usage: merge_results.py OUT.json IN.json [IN.json ...]"""
import json
import sys

merged = None
for path in sys.argv[2:]:
    try:
        r = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"skipping {path}: {e}", file=sys.stderr)
        continue
    if merged is None:
        merged = {k: v for k, v in r.items() if k != "samples"}
        merged["samples"] = {}
    for name, rules in r["samples"].items():
        merged["samples"].setdefault(name, {}).update(rules)
json.dump(merged or {}, open(sys.argv[1], "w"), indent=1)
