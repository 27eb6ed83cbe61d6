"""Loaded by every Python process that `python -m sassx_capture` starts (this directory leads PYTHONPATH).

It installs an import hook that starts the recorder as soon as the program imports triton (and never
imports torch or triton itself), then runs the sitecustomize this one shadows, if there is one.
"""
import os
import sys


def _sassx_capture_boot():
    here = os.path.dirname(os.path.abspath(__file__))
    # The package's parent joins sys.path only for this import (it may be another interpreter's
    # site-packages); the package's own __path__ finds its modules later.
    parent = os.path.dirname(os.path.dirname(here))
    sys.path.insert(0, parent)
    try:
        from sassx_capture.bootstrap import install_from_environment
        install_from_environment()
    except Exception as e:  # never stop the captured program
        print(f"sassx_capture: not capturing this process: {type(e).__name__}: {e}", file=sys.stderr)
    finally:
        if sys.path and sys.path[0] == parent:
            del sys.path[0]
    # Run the sitecustomize this one hides (a virtualenv's or a distribution's), as Python would have.
    saved = list(sys.path)
    mod = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
        import importlib
        try:
            importlib.import_module("sitecustomize")
        except ImportError:
            pass
    finally:
        sys.path[:] = saved
        if mod is not None:
            sys.modules["sitecustomize"] = mod


_sassx_capture_boot()
