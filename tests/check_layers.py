#!/usr/bin/env python3
"""The wall above the workspace (docs/architecture.md, "Layers"): the mains (app/) and the explorer's
panels, views and models (widgets/) reach the engine only through the workspace and the session parts
(core/session), the tune layer (core/tune, a session part: docs/architecture.md says why) and the
error and path helpers of core/common. Whatever they need of a lower layer comes to them as a
core/session function, or as a type a core/session header re-exports by including it.

The build cannot enforce this one with include roots: a session header names lower-layer types
(KernelWorkspace hands out a LegalityChecker), so whatever links the workspace sees every include root
below it. This check reads the includes instead.

  check_layers.py [REPO_ROOT]    exits 1 with one line per include that reaches below the workspace

ALLOWED names the exceptions, file by file, each with its reason.
"""
import os
import re
import sys

SCOPE = ("app/", "widgets/")
SOURCE = re.compile(r"\.(cpp|h)$")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"(core/[^"]+)"', re.M)
# What a main or a widget may include from core/.
OPEN = ("core/session/", "core/tune/", "core/common/")

# (file, header) -> why that file may include a header below the workspace.
ALLOWED = {
    ("app/worker/main.cpp", "core/eval/worker_server.h"):
        "sassx-worker is the evaluator's server: its main is the GPU side of core/eval and links "
        "sassx_eval alone, never the workspace",
}

# Directories whose files may include these headers below the workspace, and why.
ALLOWED_DIRS = {
    "app/hook/": (("core/inject/", "core/cubin/", "core/eval/sha256.h"),
                  "libsassx_hook.so runs inside the user's program (CUDA_INJECTION64_PATH): it compiles the "
                  "driver hook's decisions (core/inject) and the cubin reader again as position-independent "
                  "code and must not load the workspace, Qt or the engine into that program"),
}


def allowed_by_dir(path, header):
    for prefix, (headers, _why) in ALLOWED_DIRS.items():
        if path.startswith(prefix) and header.startswith(headers):
            return prefix
    return None


def sources(root):
    for top in SCOPE:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if SOURCE.search(f):
                    yield os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    leaks, used, used_dirs, checked = [], set(), set(), 0
    for path in sources(root):
        checked += 1
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            header = m.group(1)
            if header.startswith(OPEN):
                continue
            if (path, header) in ALLOWED:
                used.add((path, header))
                continue
            if allowed_by_dir(path, header):
                used_dirs.add(allowed_by_dir(path, header))
                continue
            line = text.count("\n", 0, m.start()) + 1
            leaks.append(f"{path}:{line}: includes {header}, below the workspace (use a core/session API)")
    # An exception nothing uses any more is removed, so the list stays the truth.
    stale = [f"{p}: ALLOWED lists {h}, which it no longer includes" for p, h in sorted(set(ALLOWED) - used)]
    stale += [f"{d}: ALLOWED_DIRS lists it, and none of its files includes those headers"
              for d in sorted(set(ALLOWED_DIRS) - used_dirs) if os.path.isdir(os.path.join(root, d))]
    for line in leaks + stale:
        print(line)
    if leaks or stale:
        return 1
    if checked == 0:
        print("check_layers.py: no sources under " + ", ".join(SCOPE) + " in " + root)
        return 1
    print(f"check_layers.py: {checked} files of app/ and widgets/ reach the engine only through "
          f"core/session and core/tune ({len(ALLOWED)} listed exceptions, {len(ALLOWED_DIRS)} directory)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
