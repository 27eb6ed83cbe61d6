"""Child-process side of `python -m sassx_capture`: start the recorder when the program imports triton.

The parent passes the raw directory and options through SASSX_CAPTURE_RAW_DIR and SASSX_CAPTURE_OPTIONS
(JSON); boot/sitecustomize.py calls install_from_environment() at interpreter start.
"""
import importlib.abc
import importlib.util
import json
import os
import sys

ENV_RAW_DIR = "SASSX_CAPTURE_RAW_DIR"
ENV_OPTIONS = "SASSX_CAPTURE_OPTIONS"

_recorder = None


def _start(options, raw_dir):
    global _recorder
    if _recorder is not None:
        return
    from .recorder import Recorder
    _recorder = Recorder(raw_dir, max_snapshot_bytes=int(options.get("max_snapshot_bytes", 8 << 30)),
                         use_profiler=bool(options.get("profiler", True)))
    try:
        _recorder.install()
    except Exception as e:
        print(f"sassx_capture: the Triton hooks could not be installed: {type(e).__name__}: {e}", file=sys.stderr)


class _TritonImportHook(importlib.abc.MetaPathFinder):
    """Finds `triton` like the rest of sys.meta_path, and runs the recorder's set-up right after the
    package's __init__ has run (so Inductor's launchers, built later, see the hooks)."""

    def __init__(self, on_import):
        self.on_import = on_import

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("triton")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module
        on_import = self.on_import

        def exec_and_hook(module):
            exec_module(module)
            on_import()

        spec.loader.exec_module = exec_and_hook
        return spec


def install_from_environment():
    raw_dir = os.environ.get(ENV_RAW_DIR)
    if not raw_dir:
        return
    options = json.loads(os.environ.get(ENV_OPTIONS) or "{}")
    if "triton" in sys.modules:
        _start(options, raw_dir)
        return
    sys.meta_path.insert(0, _TritonImportHook(lambda: _start(options, raw_dir)))
