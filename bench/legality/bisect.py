#!/usr/bin/env python3
"""Reductions of failing legal variants, for locating holes in the legality model on the GPU.

For each failing variant of a results file (run_variants.py output) this writes, as Variant JSON lines for
`sassx-cli variants --replay`:
  NAME/pK  the first K edits (every prefix of a legal variant is legal: the generator checks each step);
  NAME/sK  edit K alone, applied to the original order (a move re-expressed as "X right after Y", or
           "X right before Z" at a block start, by original instruction identity).
The first failing prefix names the edit that breaks the kernel; a failing single shows whether it breaks
on its own.

usage: bisect.py RESULTS.json SAMPLE ANNOTATED.txt OUT.jsonl [--rule sassx] [--max 12]
ANNOTATED.txt: `sassx-cli annotate` of the sample (block starts are read from it).
"""
import argparse
import json
import re


def block_of(annotated):
    blocks, cur, idx = [], -1, 0
    for line in open(annotated):
        if line.startswith("// block "):
            cur = int(line.split()[2])
        elif re.match(r"^/\*[0-9a-f]{4,}\*/", line):
            blocks.append(cur)
            idx += 1
    return blocks


def reductions(variant, blocks):
    edits = variant["edits"]
    order = list(range(len(blocks)))
    out = []
    for k, e in enumerate(edits, 1):
        out.append({"name": f"{variant['name']}/p{k}", "edits": edits[:k]})
        if "move" in e:
            f, t = e["move"]
            x = order.pop(f)
            order.insert(t, x)
            if t > 0 and blocks[order[t - 1]] == blocks[x]:
                y = order[t - 1]
                single = {"move": [x, y + 1 if y < x else y]}
            else:
                z = order[t + 1]
                single = {"move": [x, z if z < x else z - 1]}
        else:
            single = {"control": dict(e["control"], at=order[e["control"]["at"]])}
        out.append({"name": f"{variant['name']}/s{k}", "edits": [single]})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("sample")
    ap.add_argument("annotated")
    ap.add_argument("out")
    ap.add_argument("--rule", default="sassx")
    ap.add_argument("--max", type=int, default=12)
    a = ap.parse_args()
    failures = json.load(open(a.results))["samples"][a.sample][a.rule]["failures"]
    failures.sort(key=lambda v: len(v["edits"]))
    blocks = block_of(a.annotated)
    with open(a.out, "w") as f:
        for v in failures[: a.max]:
            for r in reductions(v, blocks):
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
