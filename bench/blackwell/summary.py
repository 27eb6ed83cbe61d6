#!/usr/bin/env python3
"""summary.json and summary.md of a bench/blackwell/run_device.sh run: per probe its exit status and the
files it left; the capmerc answer in full. The cells themselves come from each probe's own report.py
(bench/latency, bench/yield/classes, bench/yield/reuse), run here on the raw files, as for Hopper.

  summary.py OUT_DIR ARCH probe=exit ...
"""
import json
import os
import sys


def main(argv):
    out, arch = argv[1], argv[2]
    status = dict(a.split("=", 1) for a in argv[3:])
    summary = {"arch": arch, "probes": {}}
    for probe, code in sorted(status.items()):
        d = os.path.join(out, probe)
        files = sorted(os.listdir(d)) if os.path.isdir(d) else []
        summary["probes"][probe] = {"exit": int(code), "files": files}
    cm = os.path.join(out, "capmerc", "capmerc.json")
    if os.path.exists(cm):
        summary["capmerc"] = json.load(open(cm)).get("answer")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    lines = [f"# Blackwell probes on {arch}", "", "| probe | exit | files |", "|---|---|---|"]
    for probe, p in summary["probes"].items():
        lines.append(f"| {probe} | {p['exit']} | {', '.join(p['files'])} |")
    if "capmerc" in summary:
        lines += ["", "capmerc: " + ", ".join(f"{k} = {v}" for k, v in summary["capmerc"].items())]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(p["exit"] == 0 for p in summary["probes"].values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
