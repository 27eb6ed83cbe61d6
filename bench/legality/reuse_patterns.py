#!/usr/bin/env python3
"""Static evidence on the operand-reuse cache from ptxas' own code (docs/legality.md, "Reuse flags").

A reuse flag on slot s of instruction X asks the hardware to keep the operand X reads through s. Whether
a flagged instruction must keep its neighbours depends on how long such an entry lives and whether a
write to its register invalidates it. Two models in which a move could read a stale entry:
- "persist": an entry lives until another flagged read of the same slot replaces it, and a write to its
  register does not invalidate it;
- "next-reader": an entry lives until the next read through that slot (whoever reads), and a write does
  not invalidate it.
Under either, a read of register R through slot s that finds the entry holding R, with R written since
the entry was filled, gets the old value. ptxas-compiled kernels run correctly, so every such read in
ptxas' own order (on an executed path) refutes the model. This counts them per kernel, with examples.
Slots are the raw register fields (Ra bits 24-31, Rb 32-39, Rc 64-71), read only where that register is
among the instruction's sources (as ControlRules::reuseRefusal reads them). Blocks are scanned from an
empty cache (no entry crosses a block edge in this count).

  reuse_patterns.py OUT.json ANNOTATE.json...     (sassx-cli annotate CUBIN --keep-stale-line-info --json)
"""
import json
import sys

FIELDS = [(0, 24), (0, 32), (1, 0)]  # (word, bit) of Ra, Rb, Rc


def slot_reg(ins, s):
    word, bit = FIELDS[s]
    n = (int(ins["raw"][word], 16) >> bit) & 0xFF
    name = f"R{n}"
    return name if n != 255 and name in ins["uses"] else None


def stale_reads(insts, model):
    found = []
    hits = 0
    blocks = {}
    for k, ins in enumerate(insts):
        blocks.setdefault(ins["block"], []).append(k)
    for idx in blocks.values():
        entry = [None, None, None]  # register held per slot
        dirty = [False, False, False]  # written since it was filled
        filled_at = [-1, -1, -1]
        for k in idx:
            ins = insts[k]
            for s in range(3):
                r = slot_reg(ins, s)
                if r is None:
                    continue
                if entry[s] == r:
                    hits += 1
                    if dirty[s]:
                        found.append({"fill": filled_at[s], "read": k, "slot": "abc"[s], "reg": r,
                                      "block": ins["block"],
                                      "text": [insts[i]["opcode"] + " " +
                                               " ".join(o["text"] for o in insts[i]["operands"])
                                               for i in (filled_at[s], k)]})
                if model == "next-reader":
                    entry[s] = None
            for s in range(3):
                r = slot_reg(ins, s)
                if r is not None and (ins["control"]["reuse"] >> s) & 1:
                    entry[s], dirty[s], filled_at[s] = r, False, k
            for s in range(3):
                if entry[s] is not None and entry[s] in ins["defs"]:
                    dirty[s] = True
    return hits, found


def main():
    rows = []
    for path in sys.argv[2:]:
        ann = json.load(open(path))
        insts = ann["instructions"]
        flags = sum(bin(i["control"]["reuse"] & 7).count("1") for i in insts)
        row = {"file": path.split("/")[-1], "kernel": ann["kernel"], "flags": flags}
        for model in ("persist", "next-reader"):
            hits, found = stale_reads(insts, model)
            row[model] = {"hits": hits, "stale_reads": len(found),
                          "in_entry_block": sum(1 for f in found if f["block"] == insts[0]["block"]),
                          "examples": found[:3]}
        rows.append(row)
        print(f"{row['file']}: {flags} flags; stale reads under 'persist' {row['persist']['stale_reads']} "
              f"({row['persist']['in_entry_block']} in the entry block), under 'next-reader' "
              f"{row['next-reader']['stale_reads']}")
    json.dump(rows, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()
