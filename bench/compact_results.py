#!/usr/bin/env python3
"""Copies a benchmark's raw output directory into the compact form kept under bench/results: the numbers
the write-ups rest on, as plain CSV and JSON, and nothing else (the size budget: docs/architecture.md,
"Results"; checked by tests/check_results_size.py).

  compact_results.py SRC DST [--history all|bests] [--columns c1,c2,...] [--xz] [--skip NAME ...]

What becomes of each file of SRC (the same relative path under DST):
  *.json          parsed and written without indentation. A report's PPO learning curve (ppo.learning,
                  one object per update) moves to NAME.learning.csv beside it (floats to 6 significant
                  digits), and the report names it in ppo.learning_csv; read it back with load_report().
  history.csv     (or history.csv.xz) --history all: every row, written as history.csv with --columns
                  only (default: every column but `move`, the evaluation's edits); with --xz as
                  history.csv.xz (what a per-evaluation analysis of a long run needs). --history bests
                  (default): bests.csv, the rows that made a new best (best=1), every re-measure and
                  the last row, every column but `move`: what a best-so-far curve, a time to best and a
                  run's end need; and outcomes.csv, how many rows of each kind (the text before its
                  first ':') ended in each outcome (e.g. an annealer's accepted share).
  *.jsonl         kept when under 32 KB; otherwise NAME-last.jsonl, the last line of each "kernel".
  text            (.txt .log .md .csv .sh, env.txt, log, runs.txt) kept when under 32 KB.
  anything else   (policies *.pt, cubins, databases, HTML pages, checkpoints, larger logs) left out;
                  dropped.txt lists each with its size.
  --skip NAME     folders of that name are not copied at all (e.g. a tune's raw/ dumps).
bench/pack_lib.sh's pack_results runs it on the device and packs the copy for the trip back.
"""
import argparse
import csv
import io
import json
import lzma
import os
import sys

TEXT_LIMIT = 32 * 1024
TEXT_EXT = (".txt", ".log", ".md", ".csv", ".sh")
TEXT_NAMES = ("log", "env.txt", "runs.txt")

csv.field_size_limit(1 << 30)


def _num(v):
    return float(f"{v:.6g}") if isinstance(v, float) else v


def split_learning(report, name):
    """Moves report["ppo"]["learning"] into CSV text; returns that text (None when there is none)."""
    ppo = report.get("ppo") if isinstance(report, dict) else None
    learning = ppo.get("learning") if isinstance(ppo, dict) else None
    if not learning or not isinstance(learning, list) or not isinstance(learning[0], dict):
        return None
    keys = []
    for row in learning:
        keys += [k for k in row if k not in keys]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(keys)
    for row in learning:
        w.writerow([_num(row.get(k, "")) for k in keys])
    del ppo["learning"]
    ppo["learning_csv"] = name
    return out.getvalue()


def load_report(path):
    """A report.json as the search wrote it: ppo.learning read back from its CSV when it was split off."""
    with open(path) as f:
        r = json.load(f)
    ppo = r.get("ppo") if isinstance(r, dict) else None
    if isinstance(ppo, dict) and "learning" not in ppo and ppo.get("learning_csv"):
        with open(os.path.join(os.path.dirname(path), ppo["learning_csv"])) as f:
            ppo["learning"] = [{k: _parse(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return r


def _parse(v):
    if v == "":
        return None
    for t in (int, float):
        try:
            return t(v)
        except ValueError:
            pass
    return {"True": True, "False": False}.get(v, v)


def write_json(src, dst):
    with open(src) as f:
        data = json.load(f)
    base = os.path.basename(dst)[: -len(".json")]
    text = split_learning(data, base + ".learning.csv")
    if text is not None:
        with open(os.path.join(os.path.dirname(dst), base + ".learning.csv"), "w") as f:
            f.write(text)
    with open(dst, "w") as f:
        json.dump(data, f, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")


def write_history(src, dst_dir, mode, columns, xz=False):
    opener = lzma.open if src.endswith(".xz") else open
    with opener(src, "rt", newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    head = list(rows[0].keys())
    if mode == "all":
        cols = [c for c in (columns or head) if c in head and (columns or c != "move")]
        keep, name = rows, "history.csv"
    else:
        cols = [c for c in head if c != "move"]
        keep = [r for i, r in enumerate(rows)
                if r.get("best") == "1" or "measure" in (r.get("kind") or "") or i == len(rows) - 1]
        name = "bests.csv"
        counts = {}
        for r in rows:
            key = ((r.get("kind") or "").split(":")[0], r.get("outcome") or "")
            counts[key] = counts.get(key, 0) + 1
        with open(os.path.join(dst_dir, "outcomes.csv"), "w") as f:
            f.write("kind,outcome,rows\n")
            for (k, o), n in sorted(counts.items()):
                f.write(f"{k},{o},{n}\n")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    for r in keep:
        w.writerow([r.get(c, "") for c in cols])
    if xz and mode == "all":
        with lzma.open(os.path.join(dst_dir, name + ".xz"), "wt", preset=9) as f:
            f.write(out.getvalue())
    else:
        with open(os.path.join(dst_dir, name), "w") as f:
            f.write(out.getvalue())


def write_jsonl(src, dst):
    if os.path.getsize(src) <= TEXT_LIMIT:
        with open(src) as f, open(dst, "w") as g:
            g.write(f.read())
        return
    last = {}
    for line in open(src):
        line = line.strip()
        if line:
            last[json.loads(line).get("kernel", "")] = line
    with open(dst[: -len(".jsonl")] + "-last.jsonl", "w") as g:
        g.write("\n".join(last.values()) + "\n")


def compact(src, dst, mode="bests", columns=None, xz=False, skip=()):
    dropped = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        rel = os.path.relpath(root, src)
        out = os.path.normpath(os.path.join(dst, rel))
        for name in sorted(files):
            path = os.path.join(root, name)
            size = os.path.getsize(path)
            os.makedirs(out, exist_ok=True)
            if name in ("history.csv", "history.csv.xz"):
                write_history(path, out, mode, columns, xz)
            elif name.endswith(".json"):
                write_json(path, os.path.join(out, name))
            elif name.endswith(".jsonl"):
                write_jsonl(path, os.path.join(out, name))
            elif (name.endswith(TEXT_EXT) or name in TEXT_NAMES) and size <= TEXT_LIMIT:
                with open(path, "rb") as f, open(os.path.join(out, name), "wb") as g:
                    g.write(f.read())
            else:
                dropped.append((os.path.normpath(os.path.join(rel, name)), size))
    if dropped:
        with open(os.path.join(dst, "dropped.txt"), "w") as f:
            f.write("# left out of the compact copy (compact_results.py): path, bytes\n")
            for p, s in dropped:
                f.write(f"{p} {s}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--history", choices=("all", "bests"), default="bests")
    ap.add_argument("--columns", default="")
    ap.add_argument("--xz", action="store_true")
    ap.add_argument("--skip", nargs="*", default=[])
    a = ap.parse_args()
    if not os.path.isdir(a.src):
        sys.exit(f"compact_results.py: {a.src} is not a directory")
    compact(a.src, a.dst, a.history, [c for c in a.columns.split(",") if c], a.xz, set(a.skip))


if __name__ == "__main__":
    main()
