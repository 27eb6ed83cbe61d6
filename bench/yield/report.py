#!/usr/bin/env python3
"""Tables for the stall x yield probe (bench/yield/README.md).

  report.py RUN_DIR DECODE.json OUT.json.gz RUN_DIR holds run_device.sh's yield-raw.json and
                                            device.json; DECODE.json is decode_check.py's output.
Writes the committed raw-data file OUT.json.gz (compact: the variants' instruction listings dropped;
gzip keeps it under the results' per-file limit) and prints the markdown tables of the results page on
stdout.

  report.py COMMITTED.json.gz               prints the same tables from the committed compact file
                                            (bench/results/yield-semantics-h100-2026-11-22.json.gz),
                                            writes nothing
"""
import gzip
import json
import os
import sys


def _open(path, mode="r"):
    """A .json or .json.gz file, as text."""
    return gzip.open(path, mode + "t") if path.endswith(".gz") else open(path, mode)

GAP_FAMILIES = (("fadd", "FADD (no reuse flags)"), ("ffma", "FFMA (reuse flags on Ra, Rc)"),
                ("iadd3", "IADD3"))
CONTENDED = ("2/SMSP", "4/SMSP", "8/SMSP", "16/SMSP")
RAW = (("raw_ffma", "FFMA → FFMA"), ("raw_iadd3", "IADD3 → IADD3"), ("raw_imad", "IMAD → IADD3"))
RAW_CONFIGS = ("1 warp", "1/SMSP x all SMs", "16/SMSP x all SMs")


def rows_by_variant(raw):
    out = {}
    for r in raw["rows"]:
        if r["stall"] is None:
            out["orig"] = r
        else:
            out[(r["stall"], r["yield"])] = r
    return out


def fmt_gap(g):
    lo, hi, med = g["gap_min"], g["gap_max"], g["gap_median"]
    return f"{med:.2f}" if hi - lo < 0.05 else f"{med:.2f} [{lo:.2f}–{hi:.2f}]"


def single_warp_table(v, decode):
    def decodes(d):
        # opex = reuse mask << 5 | yield bit << 4 | stall (see the grid below the tables)
        values = [int(k.split("opex ")[1], 16) for k in d["undefined"]]
        if not values:
            return "yes"
        return "only without reuse" if all(v >= 0x20 for v in values) else "no"

    dec_of = {(d["stall"], d["yield"]): decodes(d) for d in decode["rows"]}
    head = "| stall | " + " | ".join(f"{name} b45=0 | {name.split()[0]} b45=1" for _, name in GAP_FAMILIES)
    head += " | nvdisasm decodes b45=0 / b45=1 |"
    lines = [head, "|" + "---|" * (2 + 2 * len(GAP_FAMILIES))]
    for s in range(16):
        cells = []
        for fam, _ in GAP_FAMILIES:
            for y in (0, 1):
                r = v.get((s, y))
                cells.append("error" if r is None or "error" in r else fmt_gap(r["gap"][fam]["1 warp"]))
        dec = " / ".join(dec_of.get((s, y), "?") for y in (0, 1))
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {dec} |")
    o = v.get("orig")
    if o and "error" not in o:
        cells = [c for fam, _ in GAP_FAMILIES for c in ("–", fmt_gap(o["gap"][fam]["1 warp"]))]
        lines.append("| ptxas' own bits | " + " | ".join(cells) + " | yes |")
    return "\n".join(lines)


def contended_table(v, fam):
    head = "| stall | " + " | ".join(f"{c} b45=0" for c in CONTENDED) + " | " + " | ".join(
        f"{c} b45=1" for c in CONTENDED) + " |"
    lines = [head, "|" + "---|" * (1 + 2 * len(CONTENDED))]
    for s in range(16):
        cells = []
        for y in (0, 1):
            r = v.get((s, y))
            for c in CONTENDED:
                if r is None or "error" in r:
                    cells.append("error")
                    continue
                g = r["gap"][fam][c]
                spread = g["warp_spread_192"] * 50
                cells.append(f"{g['span_gap_median']:.1f} ({g['gap_median']:.1f}, ±{spread:.0f}%)")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def raw_table(v):
    head = "| stall | " + " | ".join(f"{name} b45={y}" for _, name in RAW for y in (0, 1)) + " |"
    lines = [head, "|" + "---|" * (1 + 2 * len(RAW))]
    safe = {}
    for s in range(16):
        cells = []
        for k, _ in RAW:
            for y in (0, 1):
                r = v.get((s, y))
                if r is None or "error" in r:
                    cells.append("error")
                    continue
                fr = [r["raw"][k][c]["mismatched_threads"] / r["raw"][k][c]["threads_checked"]
                      for c in RAW_CONFIGS]
                ok = all(f == 0 for f in fr)
                cells.append("ok" if ok else "wrong " + " / ".join(f"{100 * f:.0f}%" for f in fr))
                if ok and 1 <= s <= 11:
                    safe.setdefault((k, y), s)
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    lines.append("| **smallest safe stall (1–11)** | " + " | ".join(
        str(safe.get((k, y), "none")) for k, _ in RAW for y in (0, 1)) + " |")
    o = v.get("orig")
    if o and "error" not in o:
        cells = ["ok" if all(o["raw"][k][c]["mismatched_threads"] == 0 for c in RAW_CONFIGS) else "wrong"
                 for k, _ in RAW]
        lines.append("| ptxas' own bits (reference) | " + " | ".join(f"{c} | –" for c in cells) + " |")
    return "\n".join(lines)


def checks(v):
    """Facts the conclusion rests on, computed rather than read off the tables."""
    out = []
    bad = [(k, fam, c) for k, r in v.items() if "error" not in r for fam in r["gap"]
           for c, g in r["gap"][fam].items() if g["mismatches"]]
    out.append(f"gap kernels with any output mismatch: {len(bad)} {bad[:5]}")
    errors = [r["file"] for r in v.values() if "error" in r]
    out.append(f"variants that failed to run: {errors}")
    # Is a contended per-warp gap ever below the single-warp gap of the same variant? Medians over
    # the repetitions; single repetitions of the slope scatter by up to ~0.6 cycles under contention,
    # because the median warp of the _64 and the _192 launch need not see the same interleaving.
    below, worst = [], (0.0, None)
    for k, r in v.items():
        if "error" in r:
            continue
        for fam in r["gap"]:
            single = r["gap"][fam]["1 warp"]["gap_median"]
            for c, g in r["gap"][fam].items():
                if g["gap_median"] < single - 0.05:
                    below.append((k, fam, c, single, round(g["gap_median"], 2)))
                if single - g["gap_min"] > worst[0]:
                    worst = (single - g["gap_min"], (k, fam, c, single, round(g["gap_min"], 2)))
    out.append(f"contended per-warp gap medians more than 0.05 cycles below the single-warp gap: {below}")
    out.append(f"largest single repetition below the single-warp gap: {worst[0]:.2f} cycles {worst[1]}")
    return out


def compact(raw, device, decode):
    m = dict(raw["manifest"])
    m["kernels"] = [{k: v for k, v in kern.items() if k not in ("body", "edited")}
                    | {"ptxas_control_of_edited": sorted({(e["stall"], e["yield"]) for e in kern["edited"]})}
                    for kern in m["kernels"]]
    out = dict(raw)
    out["manifest"] = m
    out["device_run"] = device
    out["decode"] = decode
    return out


def main():
    if len(sys.argv) == 2:
        # The compact file keeps every row the tables read and the decode results, so the committed
        # page can be checked without the device run's directory.
        raw = json.load(_open(sys.argv[1]))
        decode = raw["decode"]
    elif len(sys.argv) == 4:
        run_dir, decode_path, out_path = sys.argv[1:]
        raw = json.load(open(os.path.join(run_dir, "yield-raw.json")))
        device = json.load(open(os.path.join(run_dir, "device.json")))
        decode = json.load(open(decode_path))
        with _open(out_path, "w") as f:
            json.dump(compact(raw, device, decode), f, separators=(",", ":"))
    else:
        sys.exit(__doc__)
    v = rows_by_variant(raw)
    print("## Single warp: cycles between issues\n")
    print(single_warp_table(v, decode))
    for fam, name in GAP_FAMILIES:
        print(f"\n## Contended, {name}\n")
        print(contended_table(v, fam))
    print("\n## Read-after-write\n")
    print(raw_table(v))
    print("\n## Checks\n")
    for line in checks(v):
        print("- " + line)
    g = decode["ffma_reuse_grid"]
    print(f"\n## nvdisasm on {g['instruction']}: reuse mask (c b a) x bit 45, stall 0..15 "
          "('x' = undefined)\n")
    print("```")
    for reuse, ys in g["rows"].items():
        for y, marks in ys.items():
            print(f"reuse {int(reuse):03b}  b45={y}  {marks}")
    print("```")


if __name__ == "__main__":
    main()
