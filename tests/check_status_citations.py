#!/usr/bin/env python3
"""Every evidence row cited by name is a row of docs/status.md (docs/status.md, "Evidence").

Source comments, user-visible messages and documents cite a row as `docs/status.md, "NAME"` (also
`docs/status.md's "NAME"`, `docs/status.md rows "A", "B"`), and core/analysis/yield_evidence.h names the
rows its refusals cite as `EvidenceRow kX{"NAME", "DEVICE"}`. A row's name is its first column and stays
when a run supersedes the row, so a citation that names no row is a typo or a row renamed by mistake.

  check_status_citations.py [REPO_ROOT]    exits 1 with one line per unknown name (file: "name")

Comment markers and adjacent C++ string literals are joined first, so a name may wrap across lines.
Reads the tracked files from `git ls-files` when REPO_ROOT is a git work tree, else walks the tree;
result files (bench/results/, docs/results/) record history and are not checked.
"""
import os
import re
import sys

from repo_files import tracked_files

EXTENSIONS = (".cpp", ".h", ".py", ".sh", ".md", ".txt", ".cmake")
SKIP = ("bench/results/", "docs/results/", "tests/data/status_citations/")
CITATION = re.compile(r"docs/status\.md(?:'s|,)?\s*(?:rows?\s+)?((?:\"[^\"\n]+\"(?:\s*,\s*)?)+)")
EVIDENCE_ROW = re.compile(r"EvidenceRow\s+\w+\s*\{\s*\"([^\"]+)\"")
QUOTED = re.compile(r"\"([^\"]+)\"")


def row_names(status_text):
    """The first column of every table row under "## Evidence"."""
    names = set()
    evidence = status_text.split("\n## Evidence", 1)
    if len(evidence) < 2:
        return names
    for line in evidence[1].splitlines():
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells and cells[0] not in ("What", "") and not set(cells[0]) <= set("-: "):
            names.add(cells[0])
    return names


def joined(text):
    """The text with escaped quotes unescaped, adjacent string literals and comment lines joined."""
    text = text.replace('\\"', '"')
    text = re.sub(r'"[ \t]*\n\s*"', "", text)
    return re.sub(r"[ \t]*\n\s*(?://+|#+)?[ \t]*", " ", text)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    this = os.path.relpath(os.path.abspath(__file__), root).replace(os.sep, "/")
    try:
        with open(os.path.join(root, "docs/status.md"), encoding="utf-8") as f:
            names = row_names(f.read())
    except OSError as e:
        print(f"status citations: cannot read docs/status.md: {e.strerror}")
        return 1
    if not names:
        print("status citations: docs/status.md has no \"## Evidence\" rows")
        return 1
    unknown, cited = [], 0
    for name in sorted(tracked_files(root)):
        if not name.endswith(EXTENSIONS) or name.startswith(SKIP) or name == this:
            continue
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = joined(f.read())
        found = [q for m in CITATION.finditer(text) for q in QUOTED.findall(m.group(1))]
        found += EVIDENCE_ROW.findall(text)
        for q in found:
            cited += 1
            if q not in names:
                unknown.append(f'{name}: "{q}"')
    if unknown:
        print(f"status citations: {len(unknown)} cite no row of docs/status.md: " + "; ".join(unknown))
        return 1
    print(f"status citations: {cited} citations, all rows of docs/status.md ({len(names)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
