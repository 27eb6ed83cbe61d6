#!/usr/bin/env python3
"""Draws docs/images/ppo-learnability.png from the learnability test's curves.

Regenerate (CPU, about a minute):
    mkdir -p docs/results/ppo-learnability
    SASSX_LEARN_CSV_DIR=$PWD/docs/results/ppo-learnability build/tests/core/search/test_ppo_learnability
    python3 docs/results/ppo-learnability/make_plot.py
"""
import csv
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent.parent / "images" / "ppo-learnability.png"


def load(name):
    with open(HERE / f"{name}.csv") as f:
        rows = list(csv.DictReader(f))
    return ([int(r["step"]) for r in rows], [float(r["rewarded_share"]) for r in rows],
            [float(r["entropy"]) for r in rows])


fig, (share_ax, entropy_ax) = plt.subplots(1, 2, figsize=(10, 3.6))
for name, label in (("sassx", "sassx (default: lr 1e-3, 10 epochs, target KL 0.05)"),
                    ("cuasmrl", "cuasmrl (lr 2.5e-4, 4 epochs)")):
    steps, share, entropy = load(name)
    share_ax.plot(steps, share, marker="o", markersize=3, label=label)
    entropy_ax.plot(steps, entropy, marker="o", markersize=3, label=label)
share_ax.set_xlabel("agent steps")
share_ax.set_ylabel("rewarded share of the rollout's choices")
share_ax.set_ylim(0, 1)
entropy_ax.set_xlabel("agent steps")
entropy_ax.set_ylabel("policy entropy (nats)")
share_ax.legend(fontsize=7, loc="upper left")
fig.suptitle("Planted reward on sgemm_leakyrelu's legal actions (256 shown, noise σ = 0.4)", fontsize=9)
fig.tight_layout()
fig.savefig(OUT, dpi=110)
print("wrote", OUT)
