#!/usr/bin/env python3
"""The "memory instructions with a legal move" tables of the write-ups, from committed
move_counts.py outputs (move-counts.json). Each write-up compares one checker state with an earlier
one, so the earlier file is a second argument where the table has a before column.

usage:
  make_move_counts_table.py latency  bench/results/latency-sm90-2026-11-23/move-counts.json
  make_move_counts_table.py headroom bench/results/headroom-h100-2026-11-23/move-counts.json \\
                                     bench/results/latency-sm90-2026-11-23/move-counts.json
  make_move_counts_table.py scoreboard docs/results/scoreboard-cover-h100-2026-11-23/move-counts.json \\
                                     bench/results/latency-sm90-2026-11-23/move-counts.json
  make_move_counts_table.py reuse    docs/results/reuse-pairs-h100-2026-11-23/move-counts.json \\
                                     docs/results/scoreboard-cover-h100-2026-11-23/move-counts.json
"""
import json
import sys

# Sample names in two write-ups carry the kernel's origin; the data only has the kernel name.
ORIGIN = {"attention_fwd": "Triton", "gemm_leakyrelu": "Triton", "flash_attn_fwd": "CUDA",
          "hgemm_leakyrelu": "CUDA", "rmsnorm": "CUDA", "sgemm_leakyrelu": "CUDA"}


def rows(path):
    return {r["kernel"]: r for r in json.load(open(path))}


def n(r, tag):
    return r[tag]["memory_instructions_with_a_move"]


def moves(r, tag):
    return r[tag]["moves"]


def pct(a, b):
    return f"{100 * a / b:.0f}%"


def latency(now):
    print("| sample | non-wall memory instructions | with a legal move, without the measured cells | "
          "+ measured cells | rescheduled space (moves) | share |")
    print("|---|---|---|---|---|---|")
    for r in json.load(open(now)):  # the file's order, as in the write-up
        nw = r["non_wall_memory_instructions"]
        print(f"| {r['kernel']} | {nw} | {n(r, 'before')} | {n(r, 'measured')} | "
              f"**{n(r, 'rescheduled')}** ({moves(r, 'rescheduled'):,} moves) | {pct(n(r, 'rescheduled'), nw)} |")


def headroom(now, before):
    a, b = rows(now), rows(before)
    print("| sample | memory instr. | ptxas' codes, ptxas' distances only ¹ | ptxas' codes, now | rescheduled space, now |")
    print("|---|---|---|---|---|")
    for k in sorted(a):
        r, m = a[k], a[k]["memory_instructions"]
        print(f"| {k} | {m} | {n(b[k], 'before')} | {n(r, 'measured')} | "
              f"**{n(r, 'rescheduled')}** ({pct(n(r, 'rescheduled'), m)}), {moves(r, 'rescheduled'):,} moves |")


def scoreboard(now, before):
    a, b = rows(now), rows(before)
    print("| sample | memory instr. | ptxas' codes (measured cells) | rescheduled, before | rescheduled, now |")
    print("|---|---|---|---|---|")
    for k in sorted(a):
        r, m = a[k], a[k]["memory_instructions"]
        print(f"| {k} ({ORIGIN.get(k, '?')}) | {m} | {n(r, 'measured')} | {n(b[k], 'rescheduled')} | "
              f"**{n(r, 'rescheduled')}** ({pct(n(r, 'rescheduled'), m)}) |")


def reuse(now, before):
    a, b = rows(now), rows(before)
    print("| sample | memory instr. | ptxas' codes | rescheduled (derived codes) | legal single moves, rescheduled |")
    print("|---|---|---|---|---|")
    for k in sorted(a):
        r, o, m = a[k], b[k], a[k]["memory_instructions"]
        print(f"| {k} | {m} | {n(o, 'measured')} → {n(r, 'measured')} | {n(o, 'rescheduled')} → "
              f"**{n(r, 'rescheduled')}** ({pct(n(r, 'rescheduled'), m)}) | "
              f"{moves(o, 'rescheduled'):,} → {moves(r, 'rescheduled'):,} |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    {"latency": latency, "headroom": headroom, "scoreboard": scoreboard, "reuse": reuse}[sys.argv[1]](*sys.argv[2:])
