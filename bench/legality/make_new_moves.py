#!/usr/bin/env python3
"""Variants that each apply one move a model change newly allows, for run_variants.py.

A rule change that frees moves is checked on the GPU by the moves it frees: random variants of the
whole space rarely draw them. This lists `sassx-cli legal --reschedule [--all]` with the new and the
old checker, and for every (from, to) the new one accepts and the old one refused writes the move with
its derived control codes (`sassx-cli move --reschedule`) as a variant line: the byte patches against
the original cubin, in run_variants.py's format. At most MAX moves, drawn with a fixed seed.

  make_new_moves.py NEW_CLI OLD_CLI CUBIN KERNEL OUT.jsonl [--all] [--max N]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def legal_moves(cli, cubin, kernel, all_moves):
    args = [cli, "legal", cubin, "--kernel", kernel, "--reschedule", "--keep-stale-line-info", "--json"]
    if all_moves:
        args.append("--all")
    p = subprocess.run(args, capture_output=True, text=True, timeout=1200)
    if p.returncode != 0:
        sys.exit(f"{cli} legal: {p.stderr.strip()}")
    return {(m["from"], m["to"]) for m in json.loads(p.stdout)["moves"]}


def patches(original, variant):
    if len(original) != len(variant):
        raise ValueError("the rewritten cubin changed size")
    out = []
    for off in range(0, len(original), 16):
        a, b = original[off:off + 16], variant[off:off + 16]
        if a != b:
            out.append([off, b.hex()])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new_cli")
    ap.add_argument("old_cli")
    ap.add_argument("cubin")
    ap.add_argument("kernel")
    ap.add_argument("out")
    ap.add_argument("--all", action="store_true", help="moves of any instruction, not only memory ones")
    ap.add_argument("--max", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    new = legal_moves(a.new_cli, a.cubin, a.kernel, a.all)
    old = legal_moves(a.old_cli, a.cubin, a.kernel, a.all)
    fresh = sorted(new - old)
    random.Random(a.seed).shuffle(fresh)
    chosen = sorted(fresh[:a.max])
    original = open(a.cubin, "rb").read()
    with open(a.out, "w") as out, tempfile.TemporaryDirectory() as tmp:
        for f, t in chosen:
            path = os.path.join(tmp, "v.cubin")
            p = subprocess.run([a.new_cli, "move", a.cubin, "--kernel", a.kernel, "--move", f"{f}:{t}",
                                "--reschedule", "--keep-stale-line-info", "-o", path],
                               capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                sys.exit(f"move {f}:{t}: {p.stderr.strip()}")
            line = {"name": f"newmove-{f}-{t}", "kernel": a.kernel, "rule": "newmoves", "legal": True,
                    "edits": [{"move": [f, t]}], "patches": patches(original, open(path, "rb").read())}
            out.write(json.dumps(line) + "\n")
    print(f"{os.path.basename(a.cubin)}: {len(new)} moves, {len(old)} before, {len(fresh)} new, "
          f"{len(chosen)} written")


if __name__ == "__main__":
    main()
