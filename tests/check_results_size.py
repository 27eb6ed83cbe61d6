#!/usr/bin/env python3
"""The size budget of the measured results (docs/architecture.md, "Results"), so that a clone and the
GPU machine's 64 MiB working-tree carry stay small:

  - bench/ and docs/results/ together hold at most BUDGET bytes of tracked files;
  - no file outside samples/ is larger than FILE_LIMIT (ALLOWED names the exceptions, each with its
    reason): screenshots are palette PNGs (docs/images/update.sh), a large golden listing is gzipped;
  - no archive (.tar*, .tgz, .zip, .7z) anywhere in the tree is larger than FILE_LIMIT.

Raw data is kept as compact CSV and JSON (bench/compact_results.py), never as a tarball of a run.

  check_results_size.py [REPO_ROOT]    exits 1 with one line naming the biggest offenders

Reads the tracked files from `git ls-files` when REPO_ROOT is a git work tree, else walks the tree.
"""
import os
import re
import sys

from repo_files import tracked_files

BUDGET = 12 * 1024 * 1024  # 12 MiB
FILE_LIMIT = 256 * 1024  # 256 KiB
SCOPE = ("bench/", "docs/results/")
# The sample cubins are what they are (ptxas' output, committed for the GPUs nobody here has).
UNLIMITED = ("samples/",)
ARCHIVE = re.compile(r"\.(tar|tar\.[a-z0-9]+|tgz|tbz2?|txz|zip|7z)$", re.I)
# Files allowed above FILE_LIMIT: path -> why it has to be that large.
ALLOWED = {}


def kb(n):
    return f"{n / 1024:.0f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    sizes = {}
    for name in tracked_files(root):
        path = os.path.join(root, name)
        if os.path.isfile(path) and not os.path.islink(path):
            sizes[name] = os.path.getsize(path)
    scoped = {n: s for n, s in sizes.items() if n.startswith(SCOPE)}
    total = sum(scoped.values())
    problems = []
    if total > BUDGET:
        top = sorted(scoped.items(), key=lambda x: -x[1])[:5]
        problems.append(f"bench/ + docs/results/ hold {kb(total)}, over the {kb(BUDGET)} budget; biggest: "
                        + ", ".join(f"{n} ({kb(s)})" for n, s in top))
    big = sorted(((n, s) for n, s in sizes.items()
                  if s > FILE_LIMIT and n not in ALLOWED and not n.startswith(UNLIMITED)), key=lambda x: -x[1])
    if big:
        problems.append(f"{len(big)} file(s) over {kb(FILE_LIMIT)}: "
                        + ", ".join(f"{n} ({kb(s)})" for n, s in big[:5]))
    archives = sorted(((n, s) for n, s in sizes.items() if ARCHIVE.search(n) and s > FILE_LIMIT
                       and n not in ALLOWED), key=lambda x: -x[1])
    if archives:
        problems.append(f"{len(archives)} archive(s) over {kb(FILE_LIMIT)} (keep compact CSV/JSON instead, "
                        "bench/compact_results.py): " + ", ".join(f"{n} ({kb(s)})" for n, s in archives[:5]))
    if problems:
        print("results size budget: " + "; ".join(problems))
        return 1
    print(f"results size budget: bench/ + docs/results/ hold {kb(total)} in {len(scoped)} files "
          f"(budget {kb(BUDGET)}, largest {kb(max(scoped.values(), default=0))}; limit {kb(FILE_LIMIT)} a file "
          "outside samples/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
