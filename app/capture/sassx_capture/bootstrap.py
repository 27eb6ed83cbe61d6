"""Child-process side of `python -m sassx_capture`: start the recorder when the program imports triton.

The parent passes the raw directory and options through SASSX_CAPTURE_RAW_DIR and SASSX_CAPTURE_OPTIONS
(JSON); boot/sitecustomize.py calls install_from_environment() at interpreter start.  For `time
--kernel-times` it passes SASSX_CAPTURE_TIME_DIR (and the symbols in SASSX_CAPTURE_TIME_NAMES) instead, and
the launch timer (launch_timer.py) starts in place of the recorder.

The import hook stays on sys.meta_path until triton's package has actually run: a program (or torch
itself: torch.cuda's initialisation asks importlib.util.find_spec("triton")) may look the module up
without importing it, and a hook that left at the first look-up would miss the real import.  Should triton
still be imported past the hook (a loader without exec_module, or triton imported before the hook was
placed), the recorder starts at the first triton submodule imported after triton's own initialisation.
"""
import importlib.abc
import json
import os
import sys

ENV_RAW_DIR = "SASSX_CAPTURE_RAW_DIR"
ENV_OPTIONS = "SASSX_CAPTURE_OPTIONS"
ENV_TIME_DIR = "SASSX_CAPTURE_TIME_DIR"      # `time --kernel-times`: where each process writes its launch times
ENV_TIME_NAMES = "SASSX_CAPTURE_TIME_NAMES"  # JSON list of the kernel symbols to time (absent: all)

_recorder = None
_timer = None


def _start(options, raw_dir):
    global _recorder
    if _recorder is not None:
        return
    from .recorder import Recorder
    _recorder = Recorder(raw_dir, max_snapshot_bytes=int(options.get("max_snapshot_bytes", 8 << 30)),
                         use_profiler=bool(options.get("profiler", True)), write_empty=True,
                         max_values_bytes=int(options.get("max_values_bytes", 64 << 20)))
    try:
        _recorder.install()
    except Exception as e:
        _recorder.install_problem = f"the Triton hooks could not be installed: {type(e).__name__}: {e}"
        print(f"sassx_capture: {_recorder.install_problem}", file=sys.stderr)
        _recorder.register_exit()


def _initializing(module):
    spec = getattr(module, "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


class _AfterImportHook(importlib.abc.MetaPathFinder):
    """Finds the modules `wants(name)` accepts like the rest of sys.meta_path and wraps the loader of the
    spec it returns, so that `on_import(module)` runs right after the module's code.  A look-up whose spec
    is never executed changes nothing: the hook stays and waits.  With `once`, it leaves after firing."""

    def __init__(self, wants, on_import, once=True):
        self.wants = wants
        self.on_import = on_import
        self.once = once
        self.done = False
        self.busy = False

    def _fire(self, module):
        if self.done:
            return
        if self.once:
            self.done = True
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass
        self.on_import(module)

    def _others_spec(self, fullname, path, target):
        for finder in list(sys.meta_path):
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                return spec
        return None

    def find_spec(self, fullname, path=None, target=None):
        if self.done or self.busy or not self.wants(fullname):
            return None
        self.busy = True
        try:
            spec = self._others_spec(fullname, path, target)
        finally:
            self.busy = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module
        hook = self

        def exec_and_hook(module):
            exec_module(module)
            hook._fire(module)

        try:
            loader.exec_module = exec_and_hook
        except (AttributeError, TypeError):
            return spec
        return spec


def _wants_triton(name):
    if name == "triton":
        return True
    # triton imported past the hook: start once this submodule has loaded
    mod = sys.modules.get("triton")
    return name.startswith("triton.") and mod is not None and not _initializing(mod)


STATIC_LAUNCHER_PREFIX = "torch._inductor.runtime.static_"


def _static_launcher_loaded(module):
    if _recorder is not None:
        try:
            _recorder.wrap_static_launcher(module)
        except Exception as e:
            _recorder.warn(f"Inductor's static launcher could not be watched: {type(e).__name__}: {e}")


def _start_timer(time_dir, names):
    global _timer
    if _timer is not None:
        return
    from .launch_timer import LaunchTimer
    _timer = LaunchTimer(time_dir, names)
    try:
        _timer.install()
    except Exception as e:
        _timer.problem = f"the Triton hooks could not be installed: {type(e).__name__}: {e}"
        print(f"sassx_capture: {_timer.problem}", file=sys.stderr)


def _when_triton_imported(start):
    if "triton" in sys.modules and not _initializing(sys.modules["triton"]):
        start()
    else:
        sys.meta_path.insert(0, _AfterImportHook(_wants_triton, lambda _m: start()))


def install_from_environment():
    time_dir = os.environ.get(ENV_TIME_DIR)
    if time_dir:
        names = json.loads(os.environ.get(ENV_TIME_NAMES) or "null")
        _when_triton_imported(lambda: _start_timer(time_dir, names))
        return
    raw_dir = os.environ.get(ENV_RAW_DIR)
    if not raw_dir:
        return
    options = json.loads(os.environ.get(ENV_OPTIONS) or "{}")
    # Inductor's static launcher (present in torch 2.7+) launches through the driver, past every Triton
    # hook; its launches are counted so that the capture can say what it missed.
    sys.meta_path.insert(0, _AfterImportHook(lambda n: n.startswith(STATIC_LAUNCHER_PREFIX),
                                             _static_launcher_loaded, once=False))
    _when_triton_imported(lambda: _start(options, raw_dir))
    for name, module in list(sys.modules.items()):
        if name.startswith(STATIC_LAUNCHER_PREFIX):
            _static_launcher_loaded(module)
