"""The files of the checkout the repository checks read (check_results_size.py, check_status_citations.py):
what git tracks, or without git every file outside dot folders and top-level build folders."""
import os
import subprocess


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
        names = [n for n in out.stdout.decode("utf-8", "replace").split("\0") if n]
        if names:
            return names
    except (OSError, subprocess.CalledProcessError):
        pass
    names = []
    for d, dirs, files in os.walk(root):
        # Without git: skip what a checkout ignores (.git, .deps and other dot folders, build folders).
        dirs[:] = [x for x in dirs if not x.startswith(".") and not (d == root and x.startswith("build"))]
        names += [os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/") for f in files]
    return names
