#!/usr/bin/env python3
"""Markdown tables and the per class x mask table for the reuse-under-Y0 probe (bench/yield/reuse/README.md).

  report.py RUN_DIR VARIANT_DIR [OUT.md] [--table reuse-y0-table.json]

RUN_DIR holds run_device.sh's reuse-raw.json and device.json (device.json optional); VARIANT_DIR holds
make_variants.py's manifest.json (or manifest.json.gz, as kept beside committed results). Prints the
markdown (or writes it to OUT.md) and writes the table (default RUN_DIR/reuse-y0-table.json):
  {class: {mask: {"words", "mismatches", "faults", "hangs", "decodes", "undefined", "keep_words",
                  "evidence", "verdict": "safe" | "unsafe" | "undefined" | "not-run", "why"}}}
mask in a, b, c, ab, ac, bc, abc (Ra, Rb, Rc flags = bits 58, 59, 60). "words": b45 = 0 words carrying
exactly that mask in the forced-mask variant m<mask>_y0; "keep_words": words of the class carrying it
in keep (ptxas' own flags, b45 cleared). A mask is "safe" only where a variant that carries it under
b45 = 0 ran in all three launch shapes with no mismatch, fault or hang (and orig was deterministic),
"unsafe" where any variant carrying it under b45 = 0 (m<mask>_y0, keep, keepall) had a mismatch, fault
or hang, "undefined" where nvdisasm rejects every such word, "not-run" otherwise.
"""
import argparse
import gzip
import json
import os
import sys

SHAPES = ("1 warp", "1 block of 256", "2 blocks of 1024 per SM")
MASKS = ("a", "b", "c", "ab", "ac", "bc", "abc")
BITS = {"a": 1, "b": 2, "c": 4, "ab": 3, "ac": 5, "bc": 6, "abc": 7}


def load_manifest(vdir):
    path = os.path.join(vdir, "manifest.json")
    if os.path.exists(path):
        return json.load(open(path))
    return json.load(gzip.open(path + ".gz", "rt"))


def mask_name(m):
    return "".join(s for i, s in enumerate("abc") if (m >> i) & 1) or "none"


def outcome(row):
    """Per shape: mismatches, faults, hangs, errors, shapes run cleanly."""
    o = {"mismatches": 0, "faults": 0, "hangs": 0, "errors": 0, "ran": 0, "cells": {}}
    if row is None:
        return None
    for s in SHAPES:
        c = row.get("shapes", {}).get(s)
        if c is None:
            o["cells"][s] = "not run"
            continue
        if "error" in c:
            k = c["error"]
            if str(c.get("launch") or "").startswith("orig"):  # orig's own launch failed: says nothing of the variant
                o["errors"] += 1
                o["cells"][s] = f"orig {k}"
                continue
            o[{"fault": "faults", "hang": "hangs"}.get(k, "errors")] += 1
            o["cells"][s] = k
            continue
        n = sum(c["mismatches"])
        o["mismatches"] += n
        o["ran"] += 1
        o["cells"][s] = f"{n} / {c['words_checked']}"
    o["bad"] = bool(o["mismatches"] or o["faults"] or o["hangs"])
    o["complete"] = o["ran"] == len(SHAPES) and not o["errors"]
    return o


def gap_of(raw, cls, file):
    g = raw.get("gap", {}).get(cls, {}).get(file)
    if not g:
        return None
    return g


def fmt_gap(g, per=None):
    if g is None:
        return "–"
    if "error" in g:
        return g["error"]
    s = f"{g['per_iteration']:.1f}"
    if g["max"] - g["min"] >= 0.5:
        s += f" [{g['min']:.1f}–{g['max']:.1f}]"
    if per:
        s += f" ({g['per_iteration'] / per:.2f}/instr)"
    if g.get("mismatches"):
        s += f" ({g['mismatches']} words differ!)"
    return s


def build(man, raw):
    table, sections, summary = {}, [], []
    for cls, entry in man["classes"].items():
        variants = {v["variant"]: v for v in man["variants"] if v["class"] == cls}
        res = raw.get("results", {})
        orig = outcome(res.get(f"{cls}__orig"))
        orig_ok = orig is not None and orig["complete"] and not orig["bad"]
        run = {}
        for n, v in variants.items():  # a duplicate stands for the variant with the same bytes
            src = v["name"] if v.get("run") else v.get("same_as") if v.get("status") == "duplicate" else None
            if src == "orig":
                src = f"{cls}__orig"
            run[n] = outcome(res.get(src)) if src else None
        member_forms = set(entry["forms"])

        def keep_words(vname):
            v = variants.get(vname, {})
            out = {}
            for w in v.get("words", []):
                tok = w["text"].split()[1] if w["text"].startswith("@") else w["text"].split()[0]
                if w["decodes"] and w["new"][1] == 0 and w["new"][2] & 7 and tok in member_forms:
                    m = mask_name(w["new"][2] & 7)
                    out[m] = out.get(m, 0) + 1
            return out

        kw, kaw = keep_words("keep"), keep_words("keepall")
        row = {}
        for m in MASKS:
            v0 = variants.get(f"m{m}_y0", {})
            r0, r1 = run.get(f"m{m}_y0"), run.get(f"m{m}_y1")
            cell = {"words": v0.get("decodes", 0) if v0.get("status") in ("written", "duplicate") else 0,
                    "mismatches": r0["mismatches"] if r0 else 0, "faults": r0["faults"] if r0 else 0,
                    "hangs": r0["hangs"] if r0 else 0, "decodes": v0.get("decodes", 0), "undefined": v0.get("undefined", 0),
                    "marks_printed": v0.get("marks_printed", 0), "keep_words": kw.get(m, 0), "evidence": []}
            if r1:
                cell["y1_reference"] = {k: r1[k] for k in ("mismatches", "faults", "hangs")}
            bad, why = [], []
            if r0 and r0["bad"]:
                bad.append(f"m{m}_y0")
            if kw.get(m) and run.get("keep") and run["keep"]["bad"]:
                bad.append("keep")
            if kaw.get(m) and run.get("keepall") and run["keepall"]["bad"]:
                bad.append("keepall")
            if r0 and r0["complete"] and not r0["bad"] and cell["words"]:
                cell["evidence"].append(f"m{m}_y0")
            if kw.get(m) and run.get("keep") and run["keep"]["complete"] and not run["keep"]["bad"]:
                cell["evidence"].append("keep")
            if bad:
                verdict = "unsafe"
                why.append("wrong result, fault or hang in " + ", ".join(bad))
                if r1 and r1["bad"] and bad == [f"m{m}_y0"]:
                    why.append("the b45 = 1 reference with the same mask failed too")
            elif not orig_ok:
                verdict = "not-run"
                why.append("orig did not run cleanly or is not deterministic")
            elif cell["evidence"]:
                verdict = "safe"
                why.append("ran in all launch shapes, outputs bit-identical: " + ", ".join(cell["evidence"]))
            elif v0.get("status") == "undefined":
                verdict = "undefined"
                why.append("nvdisasm rejects every b45 = 0 word with this mask")
            elif not v0.get("edited") and all_grid(entry, m, "y0"):
                verdict = "undefined"
                why.append("no valid target; nvdisasm rejects b45 = 0 with this mask on every form of the class")
            elif not v0.get("edited") and all_grid(entry, m, "y1"):
                verdict = "not-run"
                why.append("no form of the class has register operands in these slots (nvdisasm rejects the "
                           "flags under b45 = 1)")
            else:
                verdict = "not-run"
                why.append(v0.get("note") or ("variant did not complete" if v0.get("run") else v0.get("status", "no variant")))
            cell["verdict"], cell["why"] = verdict, "; ".join(why)
            row[m] = cell
        table[cls] = row
        summary.append((cls, row, run, variants))
        sections.append(class_section(cls, entry, variants, run, orig, raw, row))
    return table, sections, summary


def all_grid(entry, m, y):
    """True where nvdisasm rejects mask m under b45 = y on every form of the class."""
    grid = entry.get("decode_grid", {})
    return bool(grid) and all(g["masks"].get(m, {}).get(y) == "undefined" for g in grid.values())


def class_section(cls, entry, variants, run, orig, raw, row):
    L = ["", f"## {cls}", ""]
    comp = entry["compile"]
    own = entry["ptxas_flags"]
    L.append(f"Kernel `{entry['kernel']}` ({comp['registers']} registers, {comp['spill_bytes']} bytes spilled); body "
             f"{entry['body_instructions']} instructions, loop {entry['loop_instructions']}, of the class "
             f"{entry['class_in_body']} in the body ({entry['class_in_loop']} in the loop); forms: "
             f"{', '.join('`' + f + '`' for f in entry['forms'])}.")
    L.append(f"ptxas' reuse flags in the body (opcode mask ×words): "
             f"{', '.join(f'{k} ×{n}' for k, n in sorted(own['by_mask'].items())) or 'none'}; next reader of a "
             f"flagged register in the same slot at distance "
             f"{', '.join(f'{k}: {n}' for k, n in sorted(own['slot_distance'].items(), key=lambda kv: int(kv[0])))} "
             f"(0 = none before the body ends); {own['strict_valid']} of the class's flagged words are valid by "
             f"the forced-mask rule. Valid targets per mask: "
             f"{', '.join(f'{m} {n}' for m, n in entry['targets'].items())}.")
    dec = []
    for form, g in entry.get("decode_grid", {}).items():
        u0 = [m for m, x in g["masks"].items() if x["y0"] == "undefined"]
        m0 = sorted({x["y0"] for m, x in g["masks"].items() if x["y0"] != "undefined"})
        u1 = [m for m, x in g["masks"].items() if x["y1"] == "undefined"]
        dec.append(f"`{form}` (register slots {g['register_slots'] or '–'}): b45=0 undefined with "
                   f"{', '.join(u0) or 'none'}, marks printed {'/'.join(map(str, m0))}; b45=1 undefined with "
                   f"{', '.join(u1) or 'none'}")
    if dec:
        L.append("nvdisasm, every mask × b45 on one word per form: " + "; ".join(dec) + ".")
    per = entry["loop_instructions"]
    og = gap_of(raw, cls, entry["orig"])
    L.append("")
    L.append("| variant | words | decode / same text / marks printed (flags written) | " + " | ".join(SHAPES)
             + " | cycles per loop iteration (1 warp) | note |")
    L.append("|---|---|---|" + "---|" * len(SHAPES) + "---|---|")
    o = orig
    L.append("| orig (against itself) | – | – | " + " | ".join(
        (o["cells"][s] if o else "–") for s in SHAPES) + f" | {fmt_gap(og, per)} | |")
    order = ["keep", "keepall", "clear"] + [f"m{m}_y{y}" for m in MASKS for y in (0, 1)]
    for n in order:
        v = variants.get(n)
        if v is None:
            continue
        r = run.get(n)
        if "words" in v:
            d = f"{v['decodes']}/{v['edited']} / {v['same_text']} / {v['marks_printed']} ({v['flags_written']})"
        else:
            d = "–"
        cells = [r["cells"][s] for s in SHAPES] if r else ["–"] * len(SHAPES)
        note = v.get("note", "") if v.get("status") != "written" or not r else v.get("note", "")
        if v.get("status") == "written" and r is None:
            note = (note + "; " if note else "") + "no result row"
        g = gap_of(raw, cls, v.get("file")) if v.get("file") else None
        L.append(f"| {n} | {v['edited']} | {d} | " + " | ".join(cells) + f" | {fmt_gap(g, per)} | {note} |")
    L.append("")
    verdicts = ", ".join(f"{m}: **{c['verdict']}**" for m, c in row.items())
    L.append(f"Verdicts (b45 = 0 with the mask kept): {verdicts}.")
    return "\n".join(L)


def decode_summary(man):
    """One line per class: which masks nvdisasm rejects, how many marks it prints under b45 = 0."""
    L = ["| class | forms | b45=0: masks rejected | b45=0: marks printed | b45=1: masks rejected on every form "
         "(no register in that slot) | b45=1: rejected on some forms only |", "|---|---|---|---|---|---|"]

    def rejected(g, y):
        return [{m for m, c in x["masks"].items() if c[y] == "undefined"} for x in g.values()]

    for cls, e in man["classes"].items():
        g = e.get("decode_grid", {})
        if not g:
            L.append(f"| {cls} | 0 | – | – | – | – |")
            continue
        order = ("none",) + MASKS
        r0, r1 = rejected(g, "y0"), rejected(g, "y1")
        all0, any0 = set.intersection(*r0), set.union(*r0)
        all1, any1 = set.intersection(*r1), set.union(*r1)
        m0 = sorted({c["y0"] for x in g.values() for c in x["masks"].values() if c["y0"] != "undefined"})
        y0 = ", ".join(sorted(all0, key=order.index)) or "none"
        if any0 != all0:
            y0 += f" (on some forms also {', '.join(sorted(any0 - all0, key=order.index))})"
        L.append(f"| {cls} | {len(g)} | {y0} | {'/'.join(map(str, m0)) or '–'} | "
                 f"{', '.join(sorted(all1, key=order.index)) or 'none'} | "
                 f"{', '.join(sorted(any1 - all1, key=order.index)) or '–'} |")
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("vdir")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--table")
    a = ap.parse_args()
    raw = json.load(open(os.path.join(a.run_dir, "reuse-raw.json")))
    dev_path = os.path.join(a.run_dir, "device.json")
    dev = json.load(open(dev_path)) if os.path.exists(dev_path) else {}
    man = load_manifest(a.vdir)
    table, sections, summary = build(man, raw)
    d = raw.get("device", {})
    L = [f"# Reuse flags under a cleared yield bit (b45 = 0) — {d.get('name')}, {raw.get('date', '?')[:10]}", ""]
    L.append(f"Device: {d.get('name')} ({d.get('sm_count')} SMs), driver API {d.get('driver_version')}, runtime "
             f"{d.get('runtime_version')}, CuPy {d.get('cupy')}; run {raw.get('date')}"
             + (f"; nvidia-smi before: {dev.get('nvidia_smi_before')}; after: {dev.get('nvidia_smi_after')}; kernel "
                f"{dev.get('kernel')}" if dev else "") + ".")
    L.append(f"Command: `{raw.get('command')}`; {len(raw.get('results', {}))} result rows, "
             f"{raw.get('seconds_total', '?')} s. Settings: {raw.get('settings')}.")
    L.append(f"Probe: {man['probe']} (nvcc: {man.get('nvcc')}; nvdisasm: {man.get('nvdisasm_version')}); method "
             "bench/yield/reuse/README.md.")
    L.append("")
    L.append("Cells: mismatching output words / words compared (3 input sets), or fault (CUDA error), hang "
             "(no exit within the timeout), error. Words: edited words; decode: words nvdisasm decodes / edited; "
             "same text: decoded text equal to ptxas' word apart from `.reuse` marks; marks printed against reuse "
             "flags written. Cycles: slope between two loop lengths, one warp, median of the repetitions "
             "[min–max when they differ by 0.5 or more], per loop instruction in parentheses.")
    L.append("")
    L.append("## Verdicts per class × mask (b45 = 0, flags kept)")
    L.append("")
    L.append("| class | " + " | ".join(MASKS) + " | keep | keepall | clear | gap orig / keep / clear |")
    L.append("|---|" + "---|" * len(MASKS) + "---|---|---|---|")
    for cls, row, run, variants in summary:
        def short(c):
            v = c["verdict"]
            return {"safe": f"safe ({c['words']}+{c['keep_words']})", "unsafe": "**UNSAFE**"}.get(v, v)

        def vc(n):
            r = run.get(n)
            if r is None:
                st = variants.get(n, {}).get("status", "–")
                return "not run" if st == "written" else st
            return "ok" if r["complete"] and not r["bad"] else ("**BAD**" if r["bad"] else "incomplete")
        e = man["classes"][cls]
        gaps = [gap_of(raw, cls, e["orig"])] + [gap_of(raw, cls, variants.get(n, {}).get("file")) for n in ("keep", "clear")]
        gtxt = " / ".join(fmt_gap(g) for g in gaps)
        L.append(f"| {cls} | " + " | ".join(short(row[m]) for m in MASKS) + f" | {vc('keep')} | {vc('keepall')} | "
                 f"{vc('clear')} | {gtxt} |")
    L.append("")
    L.append("safe (n+k): n words with the mask in the forced-mask variant, k words of ptxas' own with it in keep.")
    L.append("")
    L.append("## What nvdisasm does with reuse flags")
    L.append("")
    L += decode_summary(man)
    L += sections
    text = "\n".join(L) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    else:
        sys.stdout.write(text)
    table_path = a.table or os.path.join(a.run_dir, "reuse-y0-table.json")
    meta = {"_meta": {"device": d.get("name"), "date": raw.get("date"), "command": raw.get("command"),
                      "probe": man["probe"], "masks": "a = Ra (bit 58), b = Rb (bit 59), c = Rc (bit 60)"}}
    with open(table_path, "w") as f:
        f.write("{\n" + ",\n".join(f' "{k}": ' + json.dumps(v, separators=(",", ":")) for k, v in {**meta, **table}.items())
                + "\n}\n")
    json.load(open(table_path))


if __name__ == "__main__":
    main()
