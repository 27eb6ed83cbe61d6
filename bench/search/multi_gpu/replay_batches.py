#!/usr/bin/env python3
"""Replays a one-GPU climb history through a pool of N workers, to ask how much of a pool's shortfall is
its batching: each evaluation's cost is fitted as a + b x race rounds from the gaps between one-GPU
evaluations, and a batch of B candidates is handed to the workers the way WorkerPool::run does (each idle
worker takes the next job) and waits for its last. The result is a model, not a measurement: it leaves
out what the engine does per batch (writing cubins, the answers), which the pool runs then add.

  replay_batches.py RUN_DIR/KERNEL.g0 [N ...]
"""
import heapq
import os
import sys

from summary import history_rows


def main():
    d = sys.argv[1]
    workers = [int(x) for x in sys.argv[2:]] or [2, 4]
    h = history_rows(d)
    if not h:
        sys.exit(f"no history in {d}")
    t = [float(r["seconds"]) for r in h]
    rounds = [float(r["rounds"] or 0) for r in h]
    gaps = [(t[i] - t[i - 1], rounds[i]) for i in range(1, len(h)) if h[i]["kind"] == "candidate"]
    mx = sum(g[1] for g in gaps) / len(gaps)
    my = sum(g[0] for g in gaps) / len(gaps)
    b = sum((g[1] - mx) * (g[0] - my) for g in gaps) / sum((g[1] - mx) ** 2 for g in gaps)
    a = my - b * mx
    cost = [a + b * x for x in rounds]
    one = len(cost) / sum(cost)
    print(f"{os.path.basename(d)}: {len(h)} evaluations; cost per evaluation {a * 1e3:.2f} ms + "
          f"{b * 1e3:.2f} ms per race round; model one-GPU rate {one:.1f}/s")
    print("| GPUs | candidates per batch | modelled evaluations/s | x one GPU |")
    print("|---|---|---|---|")
    for n in workers:
        for per in (1, 2, 4, 8):
            size, total, i = n * per, 0.0, 0
            while i < len(cost):
                free = [0.0] * n
                for c in cost[i:i + size]:
                    heapq.heappush(free, heapq.heappop(free) + c)
                total += max(free)
                i += size
            print(f"| {n} | {size} | {len(cost) / total:.1f} | {len(cost) / total / one:.2f} |")


if __name__ == "__main__":
    main()
