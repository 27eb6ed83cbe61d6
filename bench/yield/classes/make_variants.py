#!/usr/bin/env python3
"""Writes the yield-bit variants of class_probe.cu (bench/yield/classes/README.md).

  make_variants.py VARIANT_DIR [--cubin PROBE.cubin] [--check-only]

Compiles class_probe.cu (nvcc -cubin -O3 -arch=sm_90a; nvcc from $NVCC, $CUDA_HOME/bin or PATH) unless
--cubin is given, lists every kernel's instructions with nvdisasm, and patches control bits in place
in the .text.<kernel> sections of copies of the cubin (pure Python; nothing is moved). Writes
VARIANT_DIR/orig.cubin, VARIANT_DIR/<variant>.cubin and VARIANT_DIR/manifest.json. --check-only
prints the SASS checks (instructions of the class inside every timed region) and writes nothing.

Control bits of the high 64-bit word (as in core/sass/control.h): stall = bits 41-44, yield bit
(b45) = bit 45, reuse flags = bits 58-61 (58 = Ra, 59 = Rb, 60 = Rc).

Variants:
  gap_s<S>_y<Y>     S in own, 1, 2, 6, 11; Y in 0, 1. In every gap_<class>_{32,96} kernel, every
                    instruction of the class's base opcode strictly between the first and the last
                    CS2R SR_CLOCKLO gets stall S (own: ptxas' stall, and then only where it is 1..11)
                    and b45 = Y. One cubin covers all classes: each class has its own kernels.
  res_<class>_<m>   m in toggle, y0, y1: in the class's res_* kernels, every instruction of the class
                    whose stall is 1..11 gets b45 flipped / 0 / 1; stall and scoreboards kept.
  ffmar_<mask>_y<Y> every FFMA of gap_ffmar_{32,96} (the loop between the clock reads): reuse flags
                    set to mask (own = ptxas', none, a, b, c, ab, ac, bc, abc) and b45 = Y; stall kept.
Every variant is disassembled; a variant with an encoding nvdisasm calls undefined is recorded with
"decodes": false and not written, and a variant "<name>_dec" with those instructions left at
ptxas' bits is written in its place when anything is left to edit.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from decode_check import find_nvdisasm, sections, text_section  # noqa: E402

SECTION = re.compile(r"^\s*\.section\s+\.text\.([A-Za-z0-9_$.]+),")
LABEL = re.compile(r"^(\.L_[A-Za-z0-9_]+):")
BRANCH = re.compile(r"\bBRA\b.*`\((\.L_[A-Za-z0-9_]+)\)")
INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*(?:/\*.*)?$")
UNDEFINED = re.compile(r"Opclass '([^']+)', undefined value (0x[0-9a-f]+) for table '([^']+)' at address (0x[0-9a-f]+)")

STALL_SHIFT, YIELD_BIT, REUSE_SHIFT = 41, 45, 58

# class: (base opcode, gap kernel stem, results kernels)
CLASSES = {
    "MUFU": ("MUFU", "gap_mufu", ["res_mufu"]),
    "LDG": ("LDG", "gap_ldg", ["res_ldg"]),
    "STG": ("STG", "gap_stg", ["res_stg"]),
    "LDS": ("LDS", "gap_lds", ["res_smem"]),
    "STS": ("STS", "gap_sts", ["res_smem"]),
    "LDGSTS": ("LDGSTS", "gap_ldgsts", ["res_cpasync"]),
    "LDSM": ("LDSM", "gap_ldsm", ["res_mma"]),
    "S2R": ("S2R", "gap_s2r", ["res_s2r"]),
    "CS2R": ("CS2R", "gap_cs2r", ["res_cs2r"]),
    "SHFL": ("SHFL", "gap_shfl", ["res_shfl"]),
    "HMMA": ("HMMA", "gap_hmma", ["res_mma"]),
    "DEPBAR": ("DEPBAR", "gap_depbar", ["res_cpasync"]),
    "BAR": ("BAR", "gap_bar", ["res_smem", "res_cpasync"]),
    "MEMBAR": ("MEMBAR", "gap_membar", ["res_membar"]),
}
GAP_SIZES = (32, 96)
GAP_STALLS = ("own", 1, 2, 6, 11)
FFMAR_KERNELS = ("gap_ffmar_32", "gap_ffmar_96")
REUSE_MASKS = {"none": 0, "a": 1, "b": 2, "c": 4, "ab": 3, "ac": 5, "bc": 6, "abc": 7}


def find_nvcc():
    for cand in (os.environ.get("NVCC"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"),
                 shutil.which("nvcc")):
        if cand and os.access(cand, os.X_OK):
            return cand
    sys.exit("make_variants.py: nvcc not found (set NVCC or CUDA_HOME, or pass --cubin)")


def ctrl(hi):
    return {"stall": (hi >> STALL_SHIFT) & 0xF, "yield": (hi >> YIELD_BIT) & 1, "reuse": (hi >> REUSE_SHIFT) & 0xF}


def with_ctrl(hi, stall=None, y=None, reuse=None):
    if stall is not None:
        hi = (hi & ~(0xF << STALL_SHIFT)) | (stall << STALL_SHIFT)
    if y is not None:
        hi = (hi & ~(1 << YIELD_BIT)) | (y << YIELD_BIT)
    if reuse is not None:
        hi = (hi & ~(0xF << REUSE_SHIFT)) | (reuse << REUSE_SHIFT)
    return hi


def base_opcode(text):
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def disassemble(nvdisasm, path):
    """(kernel -> [(offset, text, labels on it)], stderr)."""
    p = subprocess.run([nvdisasm, "-c", path], capture_output=True, text=True)
    kernels, cur, labels = {}, None, []
    for line in p.stdout.splitlines():
        m = SECTION.match(line)
        if m:
            cur, labels = m.group(1), []
            kernels[cur] = []
            continue
        m = LABEL.match(line)
        if m:
            labels.append(m.group(1))
            continue
        m = INSTR.match(line)
        if m and cur is not None:
            kernels[cur].append((int(m.group(1), 16), m.group(2).strip(), labels))
            labels = []
    return kernels, p.stderr


def undefined_at(nvdisasm, data):
    """[(address, opclass, value)] of the encodings nvdisasm rejects in the cubin bytes `data`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "v.cubin")
        open(path, "wb").write(data)
        p = subprocess.run([nvdisasm, "-c", path], capture_output=True, text=True)
    return [(int(m.group(4), 16), m.group(1), m.group(2)) for m in UNDEFINED.finditer(p.stderr)]


class Cubin:
    def __init__(self, nvdisasm, path):
        self.path = path
        self.data = bytes(open(path, "rb").read())
        listing, err = disassemble(nvdisasm, path)
        if not listing:
            sys.exit(f"make_variants.py: nvdisasm listed no kernels in {path}: {err.strip()[:300]}")
        self.kernels = {}
        for name, instrs in listing.items():
            off, size = text_section(self.data, ".text." + name)
            rows = []
            for o, text, labels in instrs:
                hi = struct.unpack_from("<Q", self.data, off + o + 8)[0]
                rows.append({"offset": o, "text": text, "op": base_opcode(text), "hi": hi, "labels": labels})
            self.kernels[name] = {"file_offset": off, "size": size, "instrs": rows}

    def region(self, kernel):
        """Instructions strictly between the first and the last CS2R ..., SR_CLOCKLO."""
        rows = self.kernels[kernel]["instrs"]
        clk = [i for i, r in enumerate(rows) if r["op"] == "CS2R" and "SR_CLOCKLO" in r["text"]]
        if len(clk) < 2:
            raise SystemExit(f"make_variants.py: {kernel}: fewer than two clock reads")
        return rows[clk[0] + 1:clk[-1]]

    def loop_body(self, kernel):
        """Instructions of the (one) loop between the clock reads: from the target of the backward
        branch to the branch."""
        reg = self.region(kernel)
        at = {lab: i for i, r in enumerate(reg) for lab in r["labels"]}
        for j, r in enumerate(reg):
            m = BRANCH.search(r["text"])
            if m and m.group(1) in at and at[m.group(1)] <= j:
                return reg[at[m.group(1)]:j + 1]
        raise SystemExit(f"make_variants.py: {kernel}: no loop between the clock reads")

    def patched(self, edits):
        data = bytearray(self.data)
        for e in edits:
            at = self.kernels[e["kernel"]]["file_offset"] + e["offset"] + 8
            struct.pack_into("<Q", data, at, e["new_hi"])
        return bytes(data)


def edit(kernel, row, cls, new_hi):
    return {"kernel": kernel, "offset": row["offset"], "text": row["text"], "class": cls,
            "old_hi": row["hi"], "new_hi": new_hi}


def gap_edits(cub, stall, y):
    edits, skipped = [], 0
    for cls, (op, stem, _) in CLASSES.items():
        for n in GAP_SIZES:
            k = f"{stem}_{n}"
            for r in cub.region(k):
                if r["op"] != op:
                    continue
                c = ctrl(r["hi"])
                if stall == "own":
                    if not 1 <= c["stall"] <= 11:
                        skipped += 1
                        continue
                    new = with_ctrl(r["hi"], y=y)
                else:
                    new = with_ctrl(r["hi"], stall=stall, y=y)
                if new != r["hi"]:
                    edits.append(edit(k, r, cls, new))
    return edits, skipped


def res_edits(cub, cls, mode):
    op, _, kernels = CLASSES[cls]
    edits, skipped = [], 0
    for k in kernels:
        for r in cub.kernels[k]["instrs"]:
            if r["op"] != op:
                continue
            c = ctrl(r["hi"])
            if not 1 <= c["stall"] <= 11:
                skipped += 1
                continue
            y = 1 - c["yield"] if mode == "toggle" else int(mode[1])
            new = with_ctrl(r["hi"], y=y)
            if new != r["hi"]:
                edits.append(edit(k, r, cls, new))
    return edits, skipped


def ffmar_edits(cub, mask, y):
    edits = []
    for k in FFMAR_KERNELS:
        for r in cub.loop_body(k):
            if r["op"] != "FFMA":
                continue
            new = with_ctrl(r["hi"], y=y, reuse=None if mask == "own" else REUSE_MASKS[mask])
            if new != r["hi"]:
                edits.append(edit(k, r, "FFMA", new))
    return edits


def attribute_undefined(nvdisasm, cub, edits):
    """Edits whose encoding nvdisasm rejects: each edited kernel patched alone, errors mapped by address."""
    bad = {}
    by_kernel = {}
    for i, e in enumerate(edits):
        by_kernel.setdefault(e["kernel"], []).append(i)
    for k, idx in by_kernel.items():
        errs = undefined_at(nvdisasm, cub.patched([edits[i] for i in idx]))
        at = {edits[i]["offset"]: i for i in idx}
        for addr, opclass, value in errs:
            if addr in at:
                bad[at[addr]] = f"{opclass} {value}"
            else:  # an error at an unedited instruction would be a bug of this tool
                raise SystemExit(f"make_variants.py: nvdisasm rejects unedited {k} +{addr:#x}")
    return bad


EDIT_FIELDS = ["kernel", "offset", "text", "class", "old [stall, b45, reuse]", "new [stall, b45, reuse]"]


def compact(e):
    o, n = ctrl(e["old_hi"]), ctrl(e["new_hi"])
    return [e["kernel"], e["offset"], e["text"], e["class"], [o["stall"], o["yield"], o["reuse"]],
            [n["stall"], n["yield"], n["reuse"]]]


def targets_region(cub, kernel):
    return cub.loop_body(kernel) if kernel.startswith("gap_ffmar") else cub.region(kernel)


def ptxas_bits(cub):
    """Per class: (stall, b45) histogram of ptxas' own bits, in the gap regions and in the res kernels."""
    out = {}
    for cls, (op, stem, res) in list(CLASSES.items()) + [("FFMA", ("FFMA", "gap_ffmar", []))]:
        hist = {"gap": {}, "res": {}}
        for n in GAP_SIZES:
            for r in targets_region(cub, f"{stem}_{n}"):
                if r["op"] == op:
                    c = ctrl(r["hi"])
                    key = f"s{c['stall']} y{c['yield']}" + (f" r{c['reuse']:03b}" if c["reuse"] else "")
                    hist["gap"][key] = hist["gap"].get(key, 0) + 1
        for k in res:
            for r in cub.kernels[k]["instrs"]:
                if r["op"] == op:
                    c = ctrl(r["hi"])
                    key = f"s{c['stall']} y{c['yield']}" + (f" r{c['reuse']:03b}" if c["reuse"] else "")
                    hist["res"][key] = hist["res"].get(key, 0) + 1
        out[cls] = hist
    return out


def decode_grid(nvdisasm, cub):
    """Per class: stall 0..15 x b45 on the first 32 targets of gap_<class>_96 (reuse kept), and for FFMA
    reuse mask 0..7 x b45 x stall; 'x' = nvdisasm calls the encoding undefined. Only disassembled."""
    grids = {}
    for cls, (op, stem, _) in CLASSES.items():
        k = f"{stem}_96"
        targets = [r for r in cub.region(k) if r["op"] == op]
        combos = [(s, y, None) for y in (0, 1) for s in range(16)]
        grids[cls] = _grid(nvdisasm, cub, k, targets, combos)
    targets = [r for r in cub.loop_body("gap_ffmar_96") if r["op"] == "FFMA"]
    combos = [(s, y, m) for m in range(8) for y in (0, 1) for s in range(16)]
    grids["FFMA"] = _grid(nvdisasm, cub, "gap_ffmar_96", targets, combos)
    return grids


def _grid(nvdisasm, cub, kernel, targets, combos):
    if not targets:
        return {"error": "no targets"}
    marks = {}
    for start in range(0, len(combos), len(targets)):
        chunk = combos[start:start + len(targets)]
        edits = [edit(kernel, r, "", with_ctrl(r["hi"], stall=s, y=y, reuse=m)) for r, (s, y, m) in zip(targets, chunk)]
        bad = {addr for addr, _, _ in undefined_at(nvdisasm, cub.patched(edits))}
        for e, combo in zip(edits, chunk):
            marks[combo] = "x" if e["offset"] in bad else "."
    rows = {}
    for (s, y, m), mark in sorted(marks.items(), key=lambda kv: (kv[0][2] or 0, kv[0][1], kv[0][0])):
        key = (f"reuse {m:03b} " if m is not None else "") + f"b45={y}"
        rows[key] = rows.get(key, "") + mark
    return {"instruction": targets[0]["text"], "kernel": kernel, "stall 0..15": rows}


def sass_checks(cub):
    """Per gap kernel: region length and how many of its instructions are of the class."""
    lines, ok = [], True
    for cls, (op, stem, res) in list(CLASSES.items()) + [("FFMA", ("FFMA", "gap_ffmar", []))]:
        for n in GAP_SIZES:
            reg = targets_region(cub, f"{stem}_{n}")
            cnt = sum(r["op"] == op for r in reg)
            others = {}
            for r in reg:
                if r["op"] != op:
                    others[r["op"]] = others.get(r["op"], 0) + 1
            good = cnt == n
            ok &= good
            lines.append(f"{stem}_{n:<3d} {op:7s} {cnt:3d} in region of {len(reg):3d}"
                         f" {'ok' if good else 'MISMATCH'}  other: {dict(sorted(others.items()))}")
        for k in res:
            cnt = sum(r["op"] == op for r in cub.kernels[k]["instrs"])
            ok &= cnt > 0
            lines.append(f"{k:15s} {op:7s} {cnt:3d} in kernel{'' if cnt else '  MISSING'}")
    return ok, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vdir")
    ap.add_argument("--cubin", help="use this cubin instead of compiling class_probe.cu")
    ap.add_argument("--check-only", action="store_true")
    a = ap.parse_args()
    nvdisasm = find_nvdisasm()
    os.makedirs(a.vdir, exist_ok=True)
    orig = os.path.join(a.vdir, "orig.cubin")
    nvcc_version = None
    if a.cubin:
        if os.path.abspath(a.cubin) != os.path.abspath(orig):
            shutil.copyfile(a.cubin, orig)
    else:
        nvcc = find_nvcc()
        cmd = [nvcc, "-cubin", "-O3", "-arch=sm_90a", "-o", orig, os.path.join(HERE, "class_probe.cu")]
        subprocess.run(cmd, check=True)
        nvcc_version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    cub = Cubin(nvdisasm, orig)
    ok, lines = sass_checks(cub)
    print("\n".join(lines))
    if not ok:
        print("make_variants.py: SASS check failed (see MISMATCH / MISSING above)", file=sys.stderr)
    if a.check_only:
        sys.exit(0 if ok else 1)
    if undefined_at(nvdisasm, cub.data):
        sys.exit("make_variants.py: nvdisasm rejects the unmodified cubin")

    for f in os.listdir(a.vdir):  # stale variants of an earlier run
        if f.endswith(".cubin") and f != "orig.cubin":
            os.remove(os.path.join(a.vdir, f))

    specs = []
    for s in GAP_STALLS:
        for y in (0, 1):
            e, skipped = gap_edits(cub, s, y)
            specs.append({"name": f"gap_s{s}_y{y}", "kind": "gap", "classes": list(CLASSES), "stall": s, "yield": y,
                          "skipped_stall_0_or_12_15": skipped, "edits": e})
    for cls in CLASSES:
        for m in ("toggle", "y0", "y1"):
            e, skipped = res_edits(cub, cls, m)
            specs.append({"name": f"res_{cls.lower()}_{m}", "kind": "res", "classes": [cls], "stall": "own",
                          "yield": m if m == "toggle" else int(m[1]), "skipped_stall_0_or_12_15": skipped, "edits": e})
    for mask in ["own"] + list(REUSE_MASKS):
        for y in (0, 1):
            specs.append({"name": f"ffmar_{mask}_y{y}", "kind": "ffmar", "classes": ["FFMA"], "stall": "own",
                          "yield": y, "reuse": mask, "edits": ffmar_edits(cub, mask, y)})

    variants, written = [], {}

    def write(v, data):
        """Writes the variant unless an earlier one has the same bytes (then it is recorded, not run)."""
        digest = hashlib.sha256(data).hexdigest()
        if digest in written:
            v.update(run=False, same_as=written[digest], note=f"same bytes as {written[digest]}; not run twice")
            return False
        written[digest] = v["name"]
        v.update(file=v["name"] + ".cubin", run=True)
        open(os.path.join(a.vdir, v["file"]), "wb").write(data)
        return True

    for sp in specs:
        edits = sp.pop("edits")
        v = dict(sp)
        v["edited"] = len(edits)
        if not edits:
            v.update(decodes=True, run=False, note="identical to orig.cubin (no instruction changes)")
            variants.append(v)
            print(f"{v['name']:22s} no change")
            continue
        errs = undefined_at(nvdisasm, cub.patched(edits))
        if not errs:
            v.update(decodes=True, edits=[compact(e) for e in edits])
            fresh = write(v, cub.patched(edits))
            variants.append(v)
            print(f"{v['name']:22s} {len(edits):5d} edits, decodes" + ("" if fresh else f", same as {v['same_as']}"))
            continue
        bad = attribute_undefined(nvdisasm, cub, edits)
        undefined = {}
        for i, why in bad.items():
            key = f"{edits[i]['text'].split()[0]}: {why}"
            undefined[key] = undefined.get(key, 0) + 1
        v.update(decodes=False, run=False, undefined=undefined, undefined_edits=[compact(edits[i]) for i in sorted(bad)],
                 note="nvdisasm rejects it; not written, not run")
        variants.append(v)
        print(f"{v['name']:22s} {len(edits):5d} edits, {len(bad)} undefined: {undefined}")
        keep = [e for i, e in enumerate(edits) if i not in bad]
        if keep:
            w = dict(sp, name=sp["name"] + "_dec", edited=len(keep), reverted_undefined=len(bad))
            data = cub.patched(keep)
            if undefined_at(nvdisasm, data):
                w.update(decodes=False, run=False, note="still undefined after reverting; not run")
            else:
                w.update(decodes=True, edits=[compact(e) for e in keep],
                         note=f"{v['name']} with the {len(bad)} undefined edits left at ptxas' bits")
                write(w, data)
            variants.append(w)
            print(f"{w['name']:22s} {len(keep):5d} edits, {'decodes' if w['decodes'] else 'UNDEFINED'}")

    manifest = {
        "probe": "bench/yield/classes/class_probe.cu",
        "orig_sha256": hashlib.sha256(cub.data).hexdigest(),
        "nvcc": nvcc_version,
        "nvdisasm": nvdisasm,
        "nvdisasm_version": subprocess.run([nvdisasm, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
        "control_bits": {"stall": "hi bits 41-44", "yield": "hi bit 45", "reuse": "hi bits 58-61 (58 Ra, 59 Rb, 60 Rc)",
                         "edit lists": EDIT_FIELDS},
        "classes": {cls: {"opcode": op, "gap_kernels": [f"{stem}_{n}" for n in GAP_SIZES], "res_kernels": res}
                    for cls, (op, stem, res) in CLASSES.items()},
        "ffmar_kernels": list(FFMAR_KERNELS),
        "gap_sizes": list(GAP_SIZES),
        "gap_region_targets": {k: sum(r["op"] == CLASSES.get(k.split("_")[1].upper(), ("FFMA",))[0] for r in targets_region(cub, k))
                               for k in cub.kernels if k.startswith("gap_")},
        "gap_region_stalls": {k: [ctrl(r["hi"])["stall"] for r in targets_region(cub, k)
                                  if r["op"] == CLASSES.get(k.split("_")[1].upper(), ("FFMA",))[0]]
                              for k in cub.kernels if k.startswith("gap_")},
        "sass_checks": lines,
        "ptxas_bits": ptxas_bits(cub),
        "decode_grid": decode_grid(nvdisasm, cub),
        "variants": variants,
    }
    # One line per variant: the edit lists make an indented file several MB large.
    with open(os.path.join(a.vdir, "manifest.json"), "w") as f:
        head = {k: v for k, v in manifest.items() if k != "variants"}
        text = json.dumps(head, indent=1)
        f.write(text[:-2] + ',\n "variants": [\n')
        f.write(",\n".join(json.dumps(v, separators=(",", ":")) for v in variants))
        f.write("\n ]\n}\n")
    json.load(open(os.path.join(a.vdir, "manifest.json")))  # well-formed
    total = sum(os.path.getsize(os.path.join(a.vdir, f)) for f in os.listdir(a.vdir))
    n_run = sum(v["run"] for v in variants)
    print(f"{len(variants)} variants, {n_run} to run, {total / 1e6:.1f} MB in {a.vdir}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
