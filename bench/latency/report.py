#!/usr/bin/env python3
"""Turns the probe's raw results from two GPUs into measured cells (bench/latency/README.md).

  report.py RAW_A.json.gz RAW_B.json.gz OUT_CELLS.json OUT_TABLE.md [TABLE.json SOURCE]

With TABLE.json (resources/latency/sm_90.json) its "measured" object is replaced by the usable cells
and SOURCE (the results file that documents them), which the checker cites in every refusal.

A row of a variant fails when any word of `out` differs from orig.cubin's, or the variant faulted.
Per (kernel, key): stall N passes when every variant of the key at N passed on both GPUs; the kernel's
cell is the smallest N from which every tested stall up to ptxas' own passes. The cell counts only if
  - the unmodified kernel matched itself in every row (IDENTITY) on both GPUs, and
  - for RAW, SB and SPACE keys, some stall below the cell failed (the test can see a stale read or an
    early issue: a key that never failed may only be one the test cannot see), and
  - margin: +1 cycle when the stall just below the cell failed in only some rows (a fuzzy edge that
    contention may move), 0 when it failed in every row.
WAR and WAW keys that pass at stall 1 get 1 (the smallest stall there is) when their kernel shows at
least one observed RAW edge, i.e. the chain's values do change under a stale read.
The key's cell is the largest over kernels. Keys of a kernel whose IDENTITY failed are dropped.
"""
import collections
import gzip
import json
import sys


def load(path):
    with gzip.open(path) as f:
        return json.load(f)


def status(v):
    if "error" in v:
        return None  # fault or hang: every row fails
    return [r[3] for r in v["rows"]]


def main():
    a, b, out_cells, out_md = sys.argv[1:5]
    runs = [load(a), load(b)]
    devices = [r["device"]["name"] for r in runs]
    # (kernel, key) -> stall -> list of (all_rows_pass, failing_rows, rows)
    per = collections.defaultdict(lambda: collections.defaultdict(list))
    identity_ok = collections.defaultdict(lambda: True)
    for run in runs:
        for v in run["variants"]:
            st = status(v)
            ok = st is not None and all(x == 0 for x in st)
            nfail = len(st) - sum(1 for x in st if x == 0) if st is not None else 18
            nrows = len(st) if st is not None else 18
            if v["key"] == "IDENTITY":
                identity_ok[v["kernel"]] &= ok
                continue
            per[(v["kernel"], v["key"])][v["stall"]].append((ok, nfail, nrows, v["ptxas_least"]))
    sensitive = collections.defaultdict(bool)  # kernel -> some RAW edge observed
    kernel_cells = collections.defaultdict(list)
    for (kernel, key), by_stall in per.items():
        if not identity_ok[kernel]:
            continue
        stalls = sorted(by_stall)
        passes = {n: all(ok for ok, *_ in by_stall[n]) for n in stalls}
        ptxas = max(p for n in stalls for *_, p in by_stall[n])
        cell = None
        for n in reversed(stalls):
            if passes[n]:
                cell = n
            else:
                break
        if cell is None:
            kernel_cells[key].append({"kernel": kernel, "cell": None, "why": "fails at ptxas' own stall",
                                      "ptxas": ptxas})
            continue
        below = [n for n in stalls if n < cell]
        observed = any(not passes[n] for n in below)
        kind = key.split("|")[0]
        margin = 0
        if below and not passes[below[-1]]:
            rows = [(f, r) for ok, f, r, _ in by_stall[below[-1]]]
            if any(f < r for f, r in rows):
                margin = 1
        if kind == "RAW" and observed:
            sensitive[kernel] = True
        kernel_cells[key].append({"kernel": kernel, "cell": cell, "margin": margin, "observed_edge": observed,
                                  "ptxas": ptxas, "tested": stalls,
                                  "failed": [n for n in stalls if not passes[n]]})
    cells = {}
    for key, rows in sorted(kernel_cells.items()):
        kind = key.split("|")[0]
        usable = []
        for r in rows:
            if r["cell"] is None:
                usable = None
                break
            if r["observed_edge"] or (kind in ("WAR", "WAW") and r["cell"] == 1 and sensitive[r["kernel"]]):
                usable.append(r)
        entry = {"kernels": rows}
        if usable:
            value = max(r["cell"] + r["margin"] for r in usable)
            entry["cycles"] = value
            entry["ptxas_least"] = min(r["ptxas"] for r in rows)
        else:
            entry["unresolved"] = ("fails at ptxas' own stall in some kernel" if usable is None else
                                   "no failure observed below ptxas' stall: the test may not see this pair")
        cells[key] = entry
    measured = {k: v for k, v in cells.items() if "cycles" in v}
    json.dump({"devices": devices, "cells": cells}, open(out_cells, "w"), indent=1, sort_keys=True)
    lines = [f"| key | cell (cycles) | ptxas' least | kernels |", "|---|---|---|---|"]
    for k, v in sorted(measured.items()):
        ks = ", ".join(f'{r["kernel"]}: fails {r["failed"]}' for r in v["kernels"] if r.get("cell"))
        lines.append(f'| `{k}` | {v["cycles"]} | {v["ptxas_least"]} | {ks} |')
    unresolved = sorted(k for k, v in cells.items() if "unresolved" in v)
    lines.append("")
    lines.append(f"Unresolved keys ({len(unresolved)}): " + ", ".join(f"`{k}`" for k in unresolved))
    open(out_md, "w").write("\n".join(lines) + "\n")
    if len(sys.argv) > 6:
        table_path, source = sys.argv[5], sys.argv[6]
        table = json.load(open(table_path))
        table["measured"] = {"source": source, "devices": devices,
                             "cells": {k: v["cycles"] for k, v in sorted(measured.items())}}
        with open(table_path, "w") as f:
            json.dump(table, f, indent=1)
            f.write("\n")
    print(f"{len(measured)} measured cells, {len(unresolved)} unresolved, devices {devices}")
    below = sum(1 for v in measured.values() if v["cycles"] < v["ptxas_least"])
    print(f"{below} cells below ptxas' least distance in the probe")


if __name__ == "__main__":
    main()
