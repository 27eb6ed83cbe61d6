#!/usr/bin/env python3
"""Merges bench/search/run_device.sh's per-run directories into one JSON (at most 8 files come back
from the device): each search's report.json plus a summary of its history.csv (evaluations by outcome
and failure kind), and each SIP-method run's result without its per-step history."""
import collections, csv, glob, json, os, sys

out = sys.argv[1]
merged = {}
for d in sorted(glob.glob(os.path.join(out, "runs", "*"))):
    name = os.path.basename(d)
    entry = {}
    rep = os.path.join(d, "report.json")
    if os.path.exists(rep):
        entry["report"] = json.load(open(rep))
        rows = list(csv.DictReader(open(os.path.join(d, "history.csv"))))
        entry["outcomes"] = dict(collections.Counter(r["outcome"] for r in rows))
        entry["failures"] = dict(collections.Counter(r["failure"].split(":")[0] for r in rows if r["ok"] == "0"))
        entry["confirmed"] = sum(1 for r in rows if r["confirmed"] == "1")
        entry["failure_examples"] = list(dict.fromkeys(r["failure"] for r in rows if r["ok"] == "0"))[:3]
    sip = os.path.join(d, "sip.json")
    if os.path.exists(sip):
        s = json.load(open(sip))
        hist = s.pop("history", [])
        s["failure_examples"] = list(dict.fromkeys(h["failure"] for h in hist if not h["ok"]))[:3]
        entry["sip"] = s
    benches = []
    for b in sorted(glob.glob(os.path.join(d, "bench*.json"))):
        try:
            benches.append(json.load(open(b)))
        except ValueError:
            benches.append({"error": open(b, errors="replace").read()[-300:]})
    if benches:
        entry["fresh_instance_benches"] = benches
    log = os.path.join(d, "log")
    if os.path.exists(log):
        entry["log_tail"] = open(log, errors="replace").read()[-600:]
    merged[name] = entry
json.dump(merged, open(os.path.join(out, "search-all.json"), "w"), indent=1)
print(f"{len(merged)} runs merged into {out}/search-all.json")
