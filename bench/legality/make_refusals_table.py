#!/usr/bin/env python3
"""The "what holds the rescheduled space" table of bench/results/headroom-h100-2026-11-23.md from the
committed `sassx-cli legal SAMPLE --reschedule --json` refusal counts (one JSON object per line).

usage: make_refusals_table.py bench/results/headroom-h100-2026-11-23/rescheduled-refusals.jsonl

The "by rule" column groups the checker's refusal messages by the rule they name; the write-up's
bracketed remarks on a rule (which pairs the latency probe saw) are added by hand.
"""
import collections
import json
import re
import sys

MEMORY = re.compile(r"^(\S+) at \S+ would access memory .* after (\S+) at .*the distance ptxas left")
WAR = re.compile(r"^(\S+) at \S+ overwrites \S+ .* after (\S+) at \S+ reads it")
RAW = re.compile(r"^(\S+) at \S+ reads \S+ .* after (\S+) at \S+ writes it")


def base(op):
    return op.split(".")[0]


def by_rule(refusals):
    groups = collections.Counter()
    memory_pairs = collections.Counter()
    for msg, n in refusals.items():
        if m := MEMORY.match(msg):
            groups["memory"] += n
            memory_pairs[f"{base(m.group(2))} → {base(m.group(1))}"] += n
        elif m := WAR.match(msg):
            groups[f"WAR into {base(m.group(1))} destinations"] += n
        elif m := RAW.match(msg):
            groups[f"RAW {base(m.group(2))} → {base(m.group(1))} data"] += n
        else:
            groups["other: " + msg[:60]] += n
    parts = []
    if groups["memory"]:
        s = f"memory order at ptxas' distance {groups['memory']}"
        if len(memory_pairs) > 1 and len(groups) > 1:
            s += " (" + ", ".join(f"{k} {v}" for k, v in sorted(memory_pairs.items())) + ")"
        parts.append(s)
    parts += [f"{k} {v}" for k, v in groups.items() if k != "memory" and v]
    return ", ".join(parts) or "–"


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    print("| sample | memory moves accepted | order targets refused | by rule |")
    print("|---|---|---|---|")
    accepted = refused = 0
    for r in rows:
        n = sum(r["refusals"].values())
        accepted += r["moves"]
        refused += n
        print(f"| {r['kernel']} | {r['moves']:,} | {n} | {by_rule(r['refusals'])} |")
    total = accepted + refused
    print()
    print(f"{refused} of {total:,} order targets ({100 * refused / total:.1f}%) are refused.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
