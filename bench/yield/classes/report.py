#!/usr/bin/env python3
"""Markdown tables for the yield-bit class probe (bench/yield/classes/README.md).

  report.py RUN_DIR VARIANT_DIR [OUT.md]

RUN_DIR holds run_device.sh's classes-raw.json and device.json (device.json optional); VARIANT_DIR
holds make_variants.py's manifest.json (or manifest.json.gz, as kept in bench/results). Prints the tables (or writes them to OUT.md).
"""
import json
import os
import sys

TOL = 0.05  # cycles: slopes are integer cycle counts / 64, scatter below this is rounding
NOTES = {
    "S2R": "ptxas expands every %warpid read into S2R SR_VIRTID + SHF + SGXT, and the SHF waits on the "
           "S2R's scoreboard, so the gap kernel measures S2R latency + 2 ALU issues per S2R, not the issue "
           "gap; a yield flip could only show there if it delayed the S2R itself.",
    "HMMA": "HMMA is fixed-latency on sm_90 (no scoreboard): the gap kernel's HMMAs read the accumulator "
            "written 8 HMMAs back, so stalls 1-2 are expected to break that distance for both b45 values.",
    "BAR": "bar.sync in a block of one warp (gap kernel); 256 / 2048 threads in the results kernels.",
    "DEPBAR": "cp.async.wait_group with nothing outstanding (gap kernel); a 4-stage cp.async pipeline in "
              "the results kernel. ptxas sets b45 = 0 on DEPBAR.",
    "CS2R": "the gap kernel's outputs are clock ordering flags (deterministic).",
}
CONFIGS = ("1 warp", "1 block of 256", "2 blocks of 1024 per SM")


def fmt(g):
    if g is None:
        return "–"
    if "error" in g:
        return "error"
    med, lo, hi = g["gap_median"], g["gap_min"], g["gap_max"]
    return f"{med:.2f}" if hi - lo < TOL else f"{med:.2f} [{lo:.2f}–{hi:.2f}]"


def hist(h):
    return ", ".join(f"{k} ×{n}" for k, n in sorted(h.items(), key=lambda kv: -kv[1])) or "–"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    run_dir, vdir = sys.argv[1], sys.argv[2]
    raw = json.load(open(os.path.join(run_dir, "classes-raw.json")))
    dev_path = os.path.join(run_dir, "device.json")
    dev = json.load(open(dev_path)) if os.path.exists(dev_path) else {}
    path = os.path.join(vdir, "manifest.json")
    if os.path.exists(path):
        man = json.load(open(path))
    else:  # the copy kept beside committed results
        import gzip
        man = json.load(gzip.open(path + ".gz", "rt"))
    rows = {r["name"]: r for r in raw["rows"]}
    variants = {v["name"]: v for v in man["variants"]}
    orig = rows.get("orig", {})
    L = []
    d = raw.get("device", {})
    L.append(f"Device: {d.get('name')} ({d.get('sm_count')} SMs), driver API {d.get('driver_version')}, runtime "
             f"{d.get('runtime_version')}, CuPy {d.get('cupy')}; run {raw.get('date')}"
             + (f", nvidia-smi before: {dev.get('nvidia_smi_before')}; after: {dev.get('nvidia_smi_after')}; "
                f"kernel {dev.get('kernel')}" if dev else "") + ".")
    L.append(f"Probe: {man['probe']} (nvcc: {man.get('nvcc')}; nvdisasm: {man.get('nvdisasm_version')}); "
             f"orig.cubin sha256 {man['orig_sha256'][:16]}…; {len(raw['rows'])} runs, "
             f"{raw.get('seconds_total', '?')} s. Settings: {raw.get('settings')}.")
    L.append("")
    L.append("Gap = cycles from one instruction's issue to the next of the same warp (one warp alone): slope "
             "between the 32- and 96-instruction runs, median of the repetitions, [min–max] when they differ "
             f"by {TOL} or more. \"min ≥ S\": smallest repetition against the stall count (own: mean of ptxas' "
             "stalls over the run). Mismatches = output words differing from orig.cubin's.")
    verdicts = []
    for cls, info in man["classes"].items():
        v, lines = class_section(cls, info, man, rows, variants, orig)
        verdicts.append((cls, v))
        L += lines
    L += ffmar_section(man, rows, variants)
    head = ["## Verdicts", "", "| class | verdict |", "|---|---|"] + [f"| {c} | {v} |" for c, v in verdicts] + [""]
    text = "\n".join(head + L) + "\n"
    if len(sys.argv) == 4:
        open(sys.argv[3], "w").write(text)
    else:
        sys.stdout.write(text)


def own_bound(man, info):
    st = man["gap_region_stalls"]
    k32, k96 = info["gap_kernels"]
    return (sum(st[k96]) - sum(st[k32])) / 64.0


def class_section(cls, info, man, rows, variants, orig):
    L = ["", f"## {cls}", ""]
    grid = man["decode_grid"].get(cls, {})
    bits = man["ptxas_bits"].get(cls, {})
    L.append(f"Gap kernels {', '.join(info['gap_kernels'])}; results kernels {', '.join(info['res_kernels'])}. "
             f"ptxas' own (stall, b45) in the timed runs: {hist(bits.get('gap', {}))}; in the results kernels: "
             f"{hist(bits.get('res', {}))}.")
    if grid.get("stall 0..15"):
        L.append(f"nvdisasm, `{grid['instruction']}`, stall 0..15 ('x' = undefined): "
                 + "; ".join(f"{k} `{m}`" for k, m in grid["stall 0..15"].items()) + ".")
    if cls in NOTES:
        L.append(f"Note: {NOTES[cls]}")
    L.append("")
    problems, notes, measured = [], [], False
    og = orig.get("gap", {}).get(cls)
    if og is None:
        notes.append("orig.cubin not measured")
    elif "error" in og:
        problems.append(f"orig.cubin's gap kernels fail ({og['error']})")
    elif og["mismatches"]:
        notes.append(f"gap kernel outputs not deterministic ({og['mismatches']} words differ orig vs orig)")
    L.append("| stall | gap b45=0 | gap b45=1 | min ≥ S? b45=0 / b45=1 | gap-kernel mismatches b45=0 / b45=1 | decodes |")
    L.append("|---|---|---|---|---|---|")
    diffs = []
    for s in ["own", 1, 2, 6, 11]:
        cells, mins, mism, dec = {}, [], [], []
        bound = own_bound(man, info) if s == "own" else s
        for y in (0, 1):
            name = f"gap_s{s}_y{y}"
            v = variants.get(name, {})
            r = rows.get(name)
            g = r.get("gap", {}).get(cls) if r else None
            if not v.get("decodes", True):
                dec.append("no")
                cells[y] = "not run (undefined)"
                mins.append("–")
                mism.append("–")
                continue
            dec.append("yes")
            if r is None:
                cells[y] = "not run" if v.get("run") else ("= orig" if "identical" in v.get("note", "") else "–")
                mins.append("–")
                mism.append("–")
                continue
            cells[y] = fmt(g)
            if g is None or "error" in g:
                problems.append(f"{name} failed ({(g or {}).get('error', 'no result')})")
                mins.append("–")
                mism.append("–")
                continue
            measured = True
            below = g["gap_min"] < bound - TOL
            mins.append(f"{g['gap_min']:.2f} {'< ' + format(bound, '.2f') + ' !' if below else '≥ ' + format(bound, '.2f')}")
            mism.append(str(g["mismatches"]))
            if below:
                problems.append(f"gap {g['gap_min']:.2f} below stall {bound:.2f} at stall {s}, b45={y}")
        m = [rows.get(f"gap_s{s}_y{y}", {}).get("gap", {}).get(cls, {}) for y in (0, 1)]
        if all("gap_median" in x for x in m):
            diffs.append((s, m[0]["gap_median"] - m[1]["gap_median"]))
            a, b = m[0]["mismatches"], m[1]["mismatches"]
            if s == "own" and (a or b):
                problems.append(f"gap kernel outputs differ at ptxas' stalls (b45=0: {a}, b45=1: {b} words)")
            elif bool(a) != bool(b):
                problems.append(f"gap kernel outputs differ at stall {s} for one b45 only (b45=0: {a}, b45=1: {b})")
            elif a and b:
                notes.append(f"stall {s} too short for the gap kernel's dependences with either b45")
        L.append(f"| {s} | {cells.get(0, '–')} | {cells.get(1, '–')} | {' / '.join(mins)} | {' / '.join(mism)} | "
                 f"{' / '.join(dec)} |")
    L.append(f"| ptxas' own bits (orig) | | {fmt(og)} | | {og.get('mismatches', '–') if og else '–'} (orig vs orig) | yes |")
    L.append("")
    # results
    L.append("| results variant | edits | " + " | ".join(CONFIGS) + " | note |")
    L.append("|---|---|" + "---|" * len(CONFIGS) + "---|")
    for m in ("toggle", "y0", "y1"):
        name = f"res_{cls.lower()}_{m}"
        for nm in (name, name + "_dec"):
            v = variants.get(nm)
            if v is None:
                continue
            r = rows.get(nm)
            note = v.get("note", "")
            cells = []
            if r is None or not r.get("res"):
                cells = ["–"] * len(CONFIGS)
                if v.get("run") and r is None:
                    note = (note + "; " if note else "") + "no row (not run?)"
            else:
                for c in CONFIGS:
                    tot, words, err = 0, 0, None
                    for k in info["res_kernels"]:
                        x = r["res"].get(k, {})
                        if "error" in x:
                            err = x["error"]
                            continue
                        tot += sum(x.get(c, {}).get("mismatches", []))
                        words += x.get(c, {}).get("words_checked", 0)
                    cells.append("error" if err else f"{tot} / {words}")
                    if err:
                        problems.append(f"{nm} failed ({r.get('error', err)})")
                    elif tot:
                        problems.append(f"{nm}: {tot} output words differ ({c})")
                    else:
                        measured = True
                if r.get("error") and not any("failed" in p and nm in p for p in problems):
                    problems.append(f"{nm} failed ({r['error']})")
            L.append(f"| {nm} | {v.get('edited', 0)} | " + " | ".join(cells) + f" | {note} |")
    for k in info["res_kernels"]:
        x = orig.get("res", {}).get(k, {})
        bad = sum(sum(c.get("mismatches", [])) for c in x.values() if isinstance(c, dict))
        if bad:
            notes.append(f"{k} is not deterministic ({bad} words differ orig vs orig): its mismatches mean nothing")
    L.append("")
    if diffs:
        lo, hi = min(x for _, x in diffs), max(x for _, x in diffs)
        notes.insert(0, f"gap(b45=0) − gap(b45=1) from {lo:+.2f} to {hi:+.2f} cycles")
    if problems:
        verdict = "not safe: " + "; ".join(dict.fromkeys(problems))
    elif not measured:
        verdict = "not measured: " + ("; ".join(notes) or "no rows for this class in the run")
    else:
        verdict = "flip safe: gap unchanged or longer, scoreboard and results unchanged"
    if notes and not verdict.startswith("not measured"):
        verdict += " (" + "; ".join(notes) + ")"
    L.append(f"**Verdict {cls}:** {verdict}")
    return verdict, L


def ffmar_section(man, rows, variants):
    L = ["", "## FFMA: reuse flags × b45", ""]
    bits = man["ptxas_bits"].get("FFMA", {})
    L.append(f"Kernels {', '.join(man['ffmar_kernels'])} (loop body only); ptxas' own bits there: "
             f"{hist(bits.get('gap', {}))} (reuse bits r = c b a). Stall kept; the mask replaces ptxas' reuse flags "
             "on every FFMA of the loop (own = ptxas' flags). Reuse masks other than ptxas' can change results "
             "by themselves (the operand cache then serves a register the next FFMA does not read in that slot); "
             "compare b45=0 with b45=1 at the same mask.")
    L.append("")
    L.append("| reuse | b45 | gap (1 warp) | " + " | ".join(CONFIGS) + " | note |")
    L.append("|---|---|---|" + "---|" * len(CONFIGS) + "---|")
    o = rows.get("orig", {}).get("ffmar", {})
    for mask in ["own", "none", "a", "b", "c", "ab", "ac", "bc", "abc"]:
        for y in (0, 1):
            name = f"ffmar_{mask}_y{y}"
            v = variants.get(name, {})
            r = rows.get(name)
            note = v.get("note", "")
            if v.get("undefined"):
                note = f"undefined for nvdisasm: {v['undefined']}"
            f = r.get("ffmar", {}) if r else {}
            if "gap" in f:
                cells = []
                for c in CONFIGS:
                    tot = sum(sum(f["res"][k][c]["mismatches"]) for k in f["res"])
                    words = sum(f["res"][k][c]["words_checked"] for k in f["res"])
                    cells.append(f"{tot} / {words}")
                gap = fmt(f["gap"])
            else:
                cells = ["–"] * len(CONFIGS)
                gap = "error" if r and (r.get("error") or "error" in f) else "–"
                if r and r.get("error"):
                    note = (note + "; " if note else "") + str(r["error"])
            L.append(f"| {mask} | {y} | {gap} | " + " | ".join(cells) + f" | {note} |")
    if "gap" in o:
        L.append(f"| ptxas' own (orig) | – | {fmt(o['gap'])} | | | | orig vs orig |")
    return L


if __name__ == "__main__":
    main()
