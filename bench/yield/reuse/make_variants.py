#!/usr/bin/env python3
"""Writes the reuse-flags-under-Y0 variants of reuse_probe.cu (bench/yield/reuse/README.md).

  make_variants.py VARIANT_DIR [--classes A,B,...] [--check-only] [--jobs N]

Compiles reuse_probe.cu once per class (nvcc -cubin -O3 -arch=sm_90a -DRP_ONLY_<MACRO>; nvcc from
$NVCC, $CUDA_HOME/bin or PATH) into VARIANT_DIR/orig_<class>.cubin, lists its kernel with nvdisasm and
patches control bits in place in copies (pure Python; nothing moves). Writes the variants
VARIANT_DIR/<class>__<variant>.cubin and VARIANT_DIR/manifest.json. --check-only prints the per-class
coverage (instructions of the class in the body, ptxas' reuse flags, valid targets per slot mask) and
writes only the orig cubins.

Control bits of the high 64-bit word: stall = bits 41-44, yield bit (b45) = bit 45, reuse flags = bits
58-60 (58 = Ra, 59 = Rb, 60 = Rc; bit 61 is never touched). Register fields: Ra = low word bits 24-31,
Rb = low word bits 32-39, Rc = high word bits 0-7.

The body of a kernel: the instructions strictly between its first and last CS2R ..., SR_CLOCKLO.

Variants per class (every edited word has stall 1..11; stall 0 and 12..15 are never touched):
  keep          every instruction of the kernel carrying reuse flags: b45 = 0, flags kept (the edit
                under question)
  keepall       every instruction of the body (branches and exits excepted): b45 = 0, flags kept
  clear         the words of keep: b45 = 0 and flags cleared (what sassx offers today)
  m<mask>_y<Y>  mask in a, b, c, ab, ac, bc, abc; Y in 0, 1: every instruction of the class in the body
                where the mask is valid gets exactly that mask and b45 = Y (stall kept). Valid for slot s:
                the next instruction is of the same class and base opcode, reads the same register in
                the same field (nvdisasm prints a `.reuse` mark on a register operand for slot s on
                both words when b45 = 1), the flagged instruction does not write that register, is
                unpredicated, and the next one is not a branch target.
Every edited word is decoded by nvdisasm (out of place, a kernel's worth of words at a time): words
nvdisasm calls undefined are left at ptxas' bits (recorded); a variant whose every word is undefined is
recorded as "undefined" and not written. Every written variant is then disassembled whole. For every edited word
the manifest records whether it decodes, whether its text equals ptxas' word apart from `.reuse` marks,
and how many marks nvdisasm prints against how many flags were written. A variant with the same bytes as
an earlier one, or as orig, is recorded and not run.
"""
import argparse
import concurrent.futures
import hashlib
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from decode_check import find_nvdisasm, text_section  # noqa: E402

# Helpers of the class probe (bench/yield/classes/make_variants.py): listing, control bits, nvcc.
_spec = importlib.util.spec_from_file_location("classes_make_variants", os.path.join(HERE, "..", "classes", "make_variants.py"))
_cmv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cmv)
ctrl, with_ctrl, base_opcode, disassemble, find_nvcc = _cmv.ctrl, _cmv.with_ctrl, _cmv.base_opcode, _cmv.disassemble, _cmv.find_nvcc
UNDEFINED = re.compile(r"undefined value (0x[0-9a-f]+) for table '([^']+)' at address (0x[0-9a-f]+)")
MARK = re.compile(r"(R\d+|RZ)\|?\.reuse")

STALL_SHIFT, YIELD_BIT, REUSE_SHIFT = 41, 45, 58
SLOTS = "abc"
MASKS = {"a": 1, "b": 2, "c": 4, "ab": 3, "ac": 5, "bc": 6, "abc": 7}
CONTROL_FLOW = {"BRA", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "BAR", "BPT", "JMP", "BRX", "YIELD", "NOP"}


def mask_name(m):
    return "".join(s for i, s in enumerate(SLOTS) if (m >> i) & 1) or "none"


# name: (RP_ONLY_ macro, kernel, membership, widths of d/a/b/c in registers where not 1, pipe)
# membership: the opcode token (text without predicate, first word) must start with one of the
# prefixes, dotted ("IMAD" matches IMAD, IMAD.HI, IMAD.IADD, ...), and none of the exclusions.
CLASSES = {
    "FFMA": ("FFMA", "reuse_ffma", (["FFMA"], []), {}),
    "FMUL": ("FMUL", "reuse_fmul", (["FMUL"], []), {}),
    "FADD": ("FADD", "reuse_fadd", (["FADD"], []), {}),
    "IMAD": ("IMAD", "reuse_imad", (["IMAD"], ["IMAD.WIDE"]), {}),
    "IMAD.WIDE": ("IMAD_WIDE", "reuse_imad_wide", (["IMAD.WIDE"], []), {"d": 2, "c": 2}),
    "IDP": ("IDP", "reuse_idp", (["IDP"], []), {}),
    "LEA": ("LEA", "reuse_lea", (["LEA"], []), {}),
    "IADD3": ("IADD3", "reuse_iadd3", (["IADD3"], []), {}),
    "LOP3": ("LOP3", "reuse_lop3", (["LOP3"], []), {}),
    "SHF": ("SHF", "reuse_shf", (["SHF"], []), {}),
    "VIADD": ("VIADD", "reuse_viadd", (["VIADD"], []), {}),
    "ISETP": ("ISETP", "reuse_isetp", (["ISETP"], []), {}),
    "FSETP": ("FSETP", "reuse_fsetp", (["FSETP"], []), {}),
    "FSEL": ("FSEL", "reuse_fsel", (["FSEL"], []), {}),
    "SEL": ("SEL", "reuse_sel", (["SEL"], []), {}),
    "FMNMX": ("FMNMX", "reuse_fmnmx", (["FMNMX"], []), {}),
    "VIMNMX": ("VIMNMX", "reuse_vimnmx", (["VIMNMX", "IMNMX"], []), {}),
    "PRMT": ("PRMT", "reuse_prmt", (["PRMT"], []), {}),
    "F2FP": ("F2FP", "reuse_f2fp", (["F2FP"], []), {}),
    "I2FP": ("I2FP", "reuse_i2fp", (["I2FP"], []), {}),
    "HFMA2": ("HFMA2", "reuse_hfma2", (["HFMA2"], []), {}),
    "HADD2": ("HADD2", "reuse_hadd2", (["HADD2"], []), {}),
    "HMUL2": ("HMUL2", "reuse_hmul2", (["HMUL2"], []), {}),
    "HMNMX2": ("HMNMX2", "reuse_hmnmx2", (["HMNMX2"], []), {}),
    "HSETP2": ("HSETP2", "reuse_hsetp2", (["HSETP2"], []), {}),
    "DFMA": ("DFMA", "reuse_dfma", (["DFMA"], []), {"d": 2, "a": 2, "b": 2, "c": 2}),
    "HMMA": ("HMMA", "reuse_hmma", (["HMMA"], []), {"d": 4, "a": 2, "b": 1, "c": 4}),
}


def op_token(text):
    w = text.split()
    if w and w[0].startswith("@"):
        w = w[1:]
    return w[0] if w else ""


def member(cls, text):
    prefixes, excluded = CLASSES[cls][2]
    tok = op_token(text)

    def starts(p):
        return tok == p or tok.startswith(p + ".")
    return any(starts(p) for p in prefixes) and not any(starts(p) for p in excluded)


def fields(lo, hi):
    return {"a": (lo >> 24) & 0xFF, "b": (lo >> 32) & 0xFF, "c": hi & 0xFF}


def reg_fields(row, reg):
    """Names of the encoding fields (Ra lo 24-31, Rb lo 32-39, Rc hi 0-7) that hold register `reg`.
    The reuse flag of a slot and the field of its operand need not have the same letter: FADD's second
    source sits in the Rb field and is flagged by bit 60 (the Rc port's flag)."""
    return {k for k, v in fields(row["lo"], row["hi"]).items() if v == reg}


def operands(text):
    if text.startswith("@"):
        text = text.split(None, 1)[1] if " " in text else ""
    rest = text.partition(" ")[2].strip().rstrip(";")
    return [o.strip() for o in rest.split(",")] if rest else []


def written_gpr(text, widths):
    """(first register, count) of the general registers the instruction writes, or None."""
    ops = operands(text)
    base = base_opcode(text)
    if not ops or base.endswith("SETP") or base.endswith("SETP2"):
        return None
    first = ops[0]
    if first.startswith("P") and len(ops) > 1 and base in ("LOP3", "PLOP3"):
        first = ops[1]
    m = re.match(r"^R(\d+)", first)
    if not m:
        return None
    w = widths.get("d", 1)
    if ".WIDE" in op_token(text) or ".64" in first:
        w = max(w, 2)
    return int(m.group(1)), w


def nvdisasm_listing(nvdisasm, data):
    """(kernel -> {offset: text}, [(address, value, table)]) of the cubin bytes `data`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "v.cubin")
        open(path, "wb").write(data)
        kernels, err = disassemble(nvdisasm, path)
    errs = [(int(m.group(3), 16), m.group(1), m.group(2)) for m in UNDEFINED.finditer(err)]
    return {k: {o: t for o, t, _ in rows} for k, rows in kernels.items()}, errs


class Probe:
    """One class's orig cubin: its kernel's instructions and body."""

    def __init__(self, nvdisasm, cls, path):
        self.cls, self.path = cls, path
        self.kernel = CLASSES[cls][1]
        self.widths = CLASSES[cls][3]
        self.data = bytes(open(path, "rb").read())
        listing, err = disassemble(nvdisasm, path)
        if self.kernel not in listing:
            raise SystemExit(f"make_variants.py: {path}: no kernel {self.kernel} ({err.strip()[:200]})")
        self.file_offset, _ = text_section(self.data, ".text." + self.kernel)
        self.rows = []
        for o, text, labels in listing[self.kernel]:
            lo, hi = struct.unpack_from("<QQ", self.data, self.file_offset + o)
            self.rows.append({"offset": o, "text": text, "op": base_opcode(text), "lo": lo, "hi": hi, "labels": labels,
                              "member": member(cls, text)})
        clk = [i for i, r in enumerate(self.rows) if r["op"] == "CS2R" and "SR_CLOCKLO" in r["text"]]
        if len(clk) < 2:
            raise SystemExit(f"make_variants.py: {cls}: fewer than two clock reads in {self.kernel}")
        self.body = range(clk[0] + 1, clk[-1])
        self.loop = self._loop()

    def _loop(self):
        at = {lab: i for i in self.body for lab in self.rows[i]["labels"]}
        for j in self.body:
            m = re.search(r"\bBRA\b.*`\((\.L_[A-Za-z0-9_]+)\)", self.rows[j]["text"])
            if m and m.group(1) in at and at[m.group(1)] <= j:
                return range(at[m.group(1)], j + 1)
        raise SystemExit(f"make_variants.py: {self.cls}: no loop in the body")

    def patched(self, new_hi):
        """Bytes with the high words of {row index: new hi} replaced."""
        data = bytearray(self.data)
        for i, hi in new_hi.items():
            struct.pack_into("<Q", data, self.file_offset + self.rows[i]["offset"] + 8, hi)
        return bytes(data)

    def decode(self, nvdisasm, new_hi):
        """Disassembles the patched bytes; words nvdisasm rejects are reverted one round at a time.
        Returns (texts {row index: text}, undefined {row index: 'table value'})."""
        new_hi = dict(new_hi)
        undefined = {}
        by_offset = {r["offset"]: i for i, r in enumerate(self.rows)}
        for _ in range(8):
            listing, errs = nvdisasm_listing(nvdisasm, self.patched(new_hi))
            if not errs:
                texts = listing.get(self.kernel, {})
                return {i: texts.get(self.rows[i]["offset"]) for i in new_hi}, undefined
            progressed = False
            for addr, value, table in errs:
                i = by_offset.get(addr)
                if i is None or i not in new_hi:
                    raise SystemExit(f"make_variants.py: {self.cls}: nvdisasm rejects unedited +{addr:#x}")
                undefined[i] = f"{table} {value}"
                del new_hi[i]
                progressed = True
            if not progressed:
                break
        raise SystemExit(f"make_variants.py: {self.cls}: could not get a clean listing")


def compile_class(nvcc, cls, out_path):
    macro = CLASSES[cls][0]
    # PROBE_ARCH: bench/blackwell/generate.sh builds the same probe for a Blackwell architecture.
    arch = os.environ.get("PROBE_ARCH", "sm_90a")
    cmd = [nvcc, "-cubin", "-O3", f"-arch={arch}", "-Xptxas", "-v", f"-DRP_ONLY_{macro}", "-o", out_path,
           os.path.join(HERE, "reuse_probe.cu")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"make_variants.py: nvcc failed for {cls}:\n{p.stderr}")
    regs = re.search(r"Used (\d+) registers", p.stderr)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", p.stderr)
    return {"command": " ".join(cmd[:-1] + ["bench/yield/reuse/reuse_probe.cu"]),
            "registers": int(regs.group(1)) if regs else None,
            "spill_bytes": (int(spill.group(1)) + int(spill.group(2))) if spill else None}


def slot_registers(nvdisasm, probe):
    """{row index: {slot: 'R12' or None}} for the body and the instruction after it: which register
    nvdisasm marks `.reuse` when only that slot's flag is set with b45 = 1 (stall 1..11; stall set to 1
    where ptxas' is outside, on this disassembled-only copy)."""
    idx = list(probe.body) + [probe.body.stop]
    out = {i: {} for i in idx}
    for s, bit in (("a", 1), ("b", 2), ("c", 4)):
        new_hi = {}
        for i in idx:
            r = probe.rows[i]
            st = ctrl(r["hi"])["stall"]
            new_hi[i] = with_ctrl(r["hi"], stall=st if 1 <= st <= 11 else 1, y=1, reuse=(ctrl(r["hi"])["reuse"] & 8) | bit)
        texts, undefined = probe.decode(nvdisasm, new_hi)
        for i in idx:
            t = texts.get(i)
            marks = MARK.findall(t) if t else []
            reg = marks[0] if len(marks) == 1 else None
            out[i][s] = reg if reg != "RZ" else None
    return out


def overlaps(r1, w1, r2, w2):
    return r1 < r2 + w2 and r2 < r1 + w1


def analyse(nvdisasm, probe):
    """Targets per mask, and what ptxas' own flags point at."""
    regs = slot_registers(nvdisasm, probe)
    rows, widths = probe.rows, probe.widths
    valid = {}  # row index -> set of valid slots
    for i in probe.body:
        r = rows[i]
        if not r["member"]:
            continue
        n = i + 1
        valid[i] = set()
        if n >= len(rows) or n not in regs:
            continue
        nx = rows[n]
        if r["text"].startswith("@") or nx["labels"] or not nx["member"] or nx["op"] != r["op"]:
            continue
        if not 1 <= ctrl(r["hi"])["stall"] <= 11:
            continue
        wr = written_gpr(r["text"], widths)
        for s in SLOTS:
            a, b = regs[i].get(s), regs[n].get(s)
            if not a or a != b:
                continue
            reg = int(a[1:])
            # the encoding field(s) holding that register number, on both words
            if not reg_fields(r, reg) & reg_fields(nx, reg):
                continue
            if wr and overlaps(wr[0], wr[1], reg, widths.get(s, 1)):
                continue
            valid[i].add(s)
    targets = {m: [i for i, v in valid.items() if set(m) <= v] for m in MASKS}
    # ptxas' own flags: for each flagged slot, the distance to the next instruction that reads the same
    # register in the same slot (1 = the next instruction), or 0 when none does before the loop ends.
    own = {"words": 0, "by_mask": {}, "slot_distance": {}, "strict_valid": 0, "flag_y0_words": 0}
    for i in probe.body:
        r = rows[i]
        c = ctrl(r["hi"])
        m = c["reuse"] & 7
        if not m:
            continue
        own["words"] += 1
        key = f"{r['op']} {mask_name(m)}"
        own["by_mask"][key] = own["by_mask"].get(key, 0) + 1
        if c["yield"] == 0:
            own["flag_y0_words"] += 1
        if r["member"] and valid.get(i) and set(mask_name(m)) <= valid[i]:
            own["strict_valid"] += 1
        for s in SLOTS:
            if not (m >> SLOTS.index(s)) & 1:
                continue
            reg = regs.get(i, {}).get(s)
            dist = 0
            for j in range(i + 1, probe.body.stop):
                if reg and regs.get(j, {}).get(s) == reg:
                    dist = j - i
                    break
            own["slot_distance"][str(dist)] = own["slot_distance"].get(str(dist), 0) + 1
    return regs, valid, targets, own


def variant_specs(probe, targets):
    rows = probe.rows
    specs = []
    flagged = [i for i, r in enumerate(rows) if ctrl(r["hi"])["reuse"] & 7 and 1 <= ctrl(r["hi"])["stall"] <= 11]
    keep = {i: with_ctrl(rows[i]["hi"], y=0) for i in flagged}
    specs.append(("keep", None, 0, {i: h for i, h in keep.items() if h != rows[i]["hi"]}))
    body = [i for i in probe.body if rows[i]["op"] not in CONTROL_FLOW and 1 <= ctrl(rows[i]["hi"])["stall"] <= 11]
    specs.append(("keepall", None, 0, {i: with_ctrl(rows[i]["hi"], y=0) for i in body
                                      if with_ctrl(rows[i]["hi"], y=0) != rows[i]["hi"]}))
    clear = {i: with_ctrl(rows[i]["hi"], y=0, reuse=ctrl(rows[i]["hi"])["reuse"] & 8) for i in flagged}
    specs.append(("clear", None, 0, {i: h for i, h in clear.items() if h != rows[i]["hi"]}))
    for mname, m in MASKS.items():
        for y in (0, 1):
            e = {}
            for i in targets[mname]:
                h = with_ctrl(rows[i]["hi"], y=y, reuse=(ctrl(rows[i]["hi"])["reuse"] & 8) | m)
                if h != rows[i]["hi"]:
                    e[i] = h
            specs.append((f"m{mname}_y{y}", mname, y, e))
    return specs


def word_record(probe, i, new_hi, text, undefined):
    r = probe.rows[i]
    o, n = ctrl(r["hi"]), ctrl(new_hi)
    strip = lambda t: re.sub(r"\.reuse", "", t or "")  # noqa: E731
    rec = {"offset": r["offset"], "text": r["text"], "old": [o["stall"], o["yield"], o["reuse"]],
           "new": [n["stall"], n["yield"], n["reuse"]], "flags": bin(n["reuse"] & 7).count("1")}
    if i in undefined:
        rec.update(decodes=False, undefined=undefined[i])
    else:
        rec.update(decodes=True, same_text=strip(text) == strip(r["text"]), marks=len(MARK.findall(text or "")),
                   decoded=text)
    return rec


def batch_decode(nvdisasm, probe, words):
    """Decodes arbitrary 16-byte words (lo, hi) by writing them over the kernel's non-control-flow
    instructions in a scratch copy of the cubin (only disassembled, never run), a kernel's worth at a
    time: nvdisasm lists every undefined word of a cubin at once, those are put back and the copy is
    disassembled again for the texts. Returns [text or None (undefined)]."""
    carriers = [i for i, r in enumerate(probe.rows) if r["op"] not in CONTROL_FLOW]
    out = []
    for start in range(0, len(words), len(carriers)):
        chunk = words[start:start + len(carriers)]
        slots = dict(zip(carriers, chunk))
        bad = set()
        for _ in range(3):
            data = bytearray(probe.data)
            for i, (lo, hi) in slots.items():
                if i not in bad:
                    struct.pack_into("<QQ", data, probe.file_offset + probe.rows[i]["offset"], lo, hi)
            listing, errs = nvdisasm_listing(nvdisasm, bytes(data))
            if not errs:
                texts = listing.get(probe.kernel, {})
                out += [None if i in bad else texts.get(probe.rows[i]["offset"]) for i in slots]
                break
            at = {probe.rows[i]["offset"]: i for i in slots}
            new = {at[a] for a, _, _ in errs if a in at}
            if not new - bad:
                raise SystemExit(f"make_variants.py: {probe.cls}: batch decode does not converge")
            bad |= new
        else:
            raise SystemExit(f"make_variants.py: {probe.cls}: batch decode does not converge")
    return out


def decode_grid(nvdisasm, probe, regs):
    """Per opcode form of the class in the body (one representative each, preferring one with register
    operands in all three slots): every mask 0..7 x b45 at the word's stall (1 if ptxas' is outside
    1..11), decoded out of place (batch_decode): 'undefined', or the number of `.reuse` marks printed."""
    reps = {}
    for i in probe.body:
        r = probe.rows[i]
        if not r["member"]:
            continue
        tok = op_token(r["text"])
        nreg = sum(1 for s in SLOTS if regs.get(i, {}).get(s))
        if tok not in reps or nreg > reps[tok][1]:
            reps[tok] = (i, nreg)
    grid, words, keys = {}, [], []
    for tok, (i, _) in sorted(reps.items()):
        r = probe.rows[i]
        st = ctrl(r["hi"])["stall"]
        for m in range(8):
            for y in (0, 1):
                words.append((r["lo"], with_ctrl(r["hi"], stall=st if 1 <= st <= 11 else 1, y=y,
                                                 reuse=(ctrl(r["hi"])["reuse"] & 8) | m)))
                keys.append((tok, m, y))
    texts = batch_decode(nvdisasm, probe, words) if words else []
    for (tok, m, y), t in zip(keys, texts):
        g = grid.setdefault(tok, {"instruction": probe.rows[reps[tok][0]]["text"],
                                  "register_slots": "".join(s for s in SLOTS if regs.get(reps[tok][0], {}).get(s)),
                                  "masks": {}})
        g["masks"].setdefault(mask_name(m), {})[f"y{y}"] = "undefined" if t is None else len(MARK.findall(t))
    return grid


def coverage_lines(cls, probe, info, targets, own):
    n_member = sum(probe.rows[i]["member"] for i in probe.body)
    n_loop = sum(probe.rows[i]["member"] for i in probe.loop)
    lines = [f"{cls:10s} regs {info['registers']} spill {info['spill_bytes']}  body {len(probe.body)} instrs, "
             f"{n_member} of the class ({n_loop} in the loop of {len(probe.loop)})",
             f"{'':10s} ptxas flags in body: {dict(sorted(own['by_mask'].items()))}; next same-slot reader at distance "
             f"{dict(sorted(own['slot_distance'].items(), key=lambda kv: int(kv[0])))} (0 = none)",
             f"{'':10s} valid targets: " + ", ".join(f"{m} {len(t)}" for m, t in targets.items())]
    return lines


def build_class(nvdisasm, nvcc, cls, vdir, check_only):
    orig = os.path.join(vdir, f"orig_{cls}.cubin")
    info = compile_class(nvcc, cls, orig)
    probe = Probe(nvdisasm, cls, orig)
    listing, errs = nvdisasm_listing(nvdisasm, probe.data)
    if errs:
        raise SystemExit(f"make_variants.py: nvdisasm rejects the unmodified {orig}")
    regs, valid, targets, own = analyse(nvdisasm, probe)
    lines = coverage_lines(cls, probe, info, targets, own)
    if check_only:
        return cls, lines, None, []
    grid = decode_grid(nvdisasm, probe, regs)
    specs = variant_specs(probe, targets)
    # Every edited word, decoded once (out of place; the variant files are disassembled whole later).
    distinct = sorted({(probe.rows[i]["lo"], h) for _, _, _, e in specs for i, h in e.items()})
    decoded = dict(zip(distinct, batch_decode(nvdisasm, probe, distinct))) if distinct else {}
    variants, written = [], {hashlib.sha256(probe.data).hexdigest(): "orig"}
    for name, mname, y, new_hi in specs:
        v = {"name": f"{cls}__{name}", "class": cls, "variant": name, "mask": mname, "yield": y,
             "orig": os.path.basename(orig), "kernel": probe.kernel, "edited": len(new_hi)}
        if mname:
            v["targets"] = len(targets[mname])
        if not new_hi:
            if mname and targets[mname]:
                why = "identical to orig: ptxas already set this mask and b45 on every target"
            else:
                why = "no valid target" if mname else "no word to edit"
            v.update(run=False, status="not-run", note=why)
            variants.append(v)
            continue
        texts = {i: decoded[(probe.rows[i]["lo"], h)] for i, h in new_hi.items()}
        undefined = {i: "undefined" for i, t in texts.items() if t is None}
        words = [word_record(probe, i, new_hi[i], texts.get(i), undefined) for i in sorted(new_hi)]
        ok = {i: h for i, h in new_hi.items() if i not in undefined}
        v.update(words=words, decodes=len(ok), undefined=len(undefined),
                 same_text=sum(1 for w in words if w.get("same_text")),
                 marks_printed=sum(w.get("marks", 0) for w in words if w["decodes"]),
                 flags_written=sum(w["flags"] for w in words if w["decodes"]),
                 ops={}, undefined_ops={})
        for i in new_hi:
            k = op_token(probe.rows[i]["text"])
            bucket = v["undefined_ops"] if i in undefined else v["ops"]
            bucket[k] = bucket.get(k, 0) + 1
        if not ok:
            v.update(run=False, status="undefined", note="nvdisasm rejects every edited word; not written, not run")
            variants.append(v)
            continue
        if undefined:
            v["note"] = f"{len(undefined)} word(s) nvdisasm rejects left at ptxas' bits"
        data = probe.patched(ok)
        digest = hashlib.sha256(data).hexdigest()
        if digest in written:
            v.update(run=False, status="duplicate", same_as=written[digest],
                     note=f"same bytes as {written[digest]}; not run twice")
        else:
            written[digest] = v["name"]
            v.update(run=True, status="written", file=v["name"] + ".cubin", sha256=digest)
            open(os.path.join(vdir, v["file"]), "wb").write(data)
            v["_check"] = {probe.rows[i]["offset"]: texts[i] for i in ok}
        variants.append(v)
    entry = {
        "kernel": probe.kernel, "orig": os.path.basename(orig), "opcodes": CLASSES[cls][2][0],
        "excluded": CLASSES[cls][2][1], "widths": probe.widths, "compile": info,
        "orig_sha256": hashlib.sha256(probe.data).hexdigest(),
        "body": [probe.body.start, probe.body.stop], "loop": [probe.loop.start, probe.loop.stop],
        "body_instructions": len(probe.body), "loop_instructions": len(probe.loop),
        "class_in_body": sum(probe.rows[i]["member"] for i in probe.body),
        "class_in_loop": sum(probe.rows[i]["member"] for i in probe.loop),
        "forms": sorted({op_token(probe.rows[i]["text"]) for i in probe.body if probe.rows[i]["member"]}),
        "ptxas_flags": own, "targets": {m: len(t) for m, t in targets.items()},
        "target_offsets": {m: [probe.rows[i]["offset"] for i in t] for m, t in targets.items()},
        "decode_grid": grid,
        "listing": [[r["offset"], r["text"], [ctrl(r["hi"])["stall"], ctrl(r["hi"])["yield"], ctrl(r["hi"])["reuse"]],
                     int(r["member"])] for r in (probe.rows[i] for i in probe.body)],
    }
    return cls, lines, entry, variants


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vdir")
    ap.add_argument("--classes", help="comma-separated subset (default: all)")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    a = ap.parse_args()
    classes = a.classes.split(",") if a.classes else list(CLASSES)
    for c in classes:
        if c not in CLASSES:
            sys.exit(f"make_variants.py: unknown class {c} (known: {', '.join(CLASSES)})")
    nvdisasm, nvcc = find_nvdisasm(), find_nvcc()
    os.makedirs(a.vdir, exist_ok=True)
    if not a.check_only:
        for f in os.listdir(a.vdir):  # stale variants of an earlier run
            if f.endswith(".cubin"):
                os.remove(os.path.join(a.vdir, f))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = {ex.submit(build_class, nvdisasm, nvcc, c, a.vdir, a.check_only): c for c in classes}
        for f in concurrent.futures.as_completed(futs):
            cls, lines, entry, variants = f.result()
            results[cls] = (lines, entry, variants)
    for c in classes:
        print("\n".join(results[c][0]))
    if a.check_only:
        return
    variants = [v for c in classes for v in results[c][2]]
    # Every written variant disassembled whole: no word nvdisasm rejects, and each edited word's text
    # the same as decoded out of place.
    def verify(v):
        data = open(os.path.join(a.vdir, v["file"]), "rb").read()
        listing, errs = nvdisasm_listing(nvdisasm, data)
        texts = listing.get(v["kernel"], {})
        differ = sum(1 for o, t in v["_check"].items() if texts.get(o) != t)
        return v, not errs and differ == 0, len(errs), differ
    todo = [v for v in variants if v.get("status") == "written"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for v, ok, nerr, differ in ex.map(verify, todo):
            v["whole_cubin_check"] = "ok" if ok else f"{nerr} nvdisasm error(s), {differ} word(s) decoded differently"
            if not ok:
                v.update(run=False, status="check-failed", note=v["whole_cubin_check"])
    for v in variants:
        v.pop("_check", None)
    for v in variants:
        extra = f"{v.get('decodes', 0)} decode, {v.get('undefined', 0)} undefined, marks {v.get('marks_printed', 0)}" \
                f"/{v.get('flags_written', 0)} flags" if "words" in v else ""
        print(f"{v['name']:22s} {v['status']:10s} {v['edited']:4d} words {extra} {v.get('note', '')}")
    manifest = {
        "probe": "bench/yield/reuse/reuse_probe.cu",
        "nvcc": subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
        "nvdisasm": nvdisasm,
        "nvdisasm_version": subprocess.run([nvdisasm, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
        "control_bits": {"stall": "hi bits 41-44", "yield": "hi bit 45", "reuse": "hi bits 58-60 (58 Ra, 59 Rb, 60 Rc)",
                         "registers": "Ra lo bits 24-31, Rb lo bits 32-39, Rc hi bits 0-7",
                         "word fields": "offset, text (ptxas), old/new [stall, b45, reuse], flags written, decodes, "
                                        "same_text (equal to ptxas' text apart from .reuse marks), marks printed"},
        "masks": MASKS,
        "classes": {c: results[c][1] for c in classes},
    }
    with open(os.path.join(a.vdir, "manifest.json"), "w") as f:
        head = json.dumps(manifest, indent=1)
        f.write(head[:-2] + ',\n "variants": [\n')
        f.write(",\n".join(json.dumps(v, separators=(",", ":")) for v in variants))
        f.write("\n ]\n}\n")
    json.load(open(os.path.join(a.vdir, "manifest.json")))  # well-formed
    total = sum(os.path.getsize(os.path.join(a.vdir, f)) for f in os.listdir(a.vdir))
    n_run = sum(bool(v.get("run")) for v in variants)
    print(f"{len(classes)} classes, {len(variants)} variants, {n_run} to run, {total / 1e6:.1f} MB in {a.vdir}")


if __name__ == "__main__":
    main()
