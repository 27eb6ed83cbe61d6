"""Child side of `time --kernel-times`: each launch of the watched Triton kernels timed on the GPU.

CUDA events around each launch, recorded from Triton's launch hooks (triton_hooks.py), rather than
torch.profiler: the profiler's CUPTI activity tracing adds its own overhead to every kernel of the program
(Triton or not) and one profiler at a time may run, so a program that profiles itself could not be
timed; events cost two records per watched launch and nothing elsewhere.  The host never waits for them
while the program runs: finished events are read back whenever many are pending (a query, not a
synchronisation) and their events reused, and the rest at exit after one synchronisation.  Kernels are
filtered by symbol before anything else, so the unwatched launches of a program that launches many pay
one set look-up.

At exit each process that imported triton writes TIME_DIR/<pid>.times.json: per compiled kernel (Triton's
kernel hash, which a write-back keeps: it replaces the cubin inside the same cache entry) its symbol, the
SHA-256 of the cubin it ran (which says whether the written-back one loaded) and each launch's time in µs.
"""
import array
import atexit
import hashlib
import json
import os
import sys
import threading

from .event_queue import EventQueue

TIMES_FORMAT = "sassx-capture-times"
VERSION = 1
DRAIN_AT = 4096          # pending launches before the finished ones are read back (non-blocking)
MAX_PENDING = 200000     # pending launches past which the timer waits for the GPU (bounded memory)
MAX_TIMES = 1 << 20      # launch times kept per kernel; later launches are counted, not timed


class LaunchTimer:
    def __init__(self, out_dir, names=None):
        self.out_dir = out_dir
        self.names = frozenset(names) if names else None  # symbols to time; None: every Triton kernel
        self.kernels = {}
        self.events = EventQueue(lambda: self.torch.cuda.Event(enable_timing=True), MAX_PENDING, reuse=True)
        self.local = threading.local()
        self.lock = threading.Lock()
        self.torch = None
        self.installed = False
        self.problem = None
        self.graph_launches = 0
        self.finished = False
        self.warnings = []

    def warn(self, msg):
        if msg not in self.warnings and len(self.warnings) < 20:
            self.warnings.append(msg)
            print(f"sassx_capture: {msg}", file=sys.stderr)

    def install(self):
        from .triton_hooks import install_launch_hooks
        atexit.register(self.finish)
        self.problem = install_launch_hooks(self.before_launch, self.enter, self.exit)
        self.installed = self.problem is None
        if self.problem:
            self.warn(f"{self.problem}: no kernel is timed")
        return self.installed

    def before_launch(self, ck, _grid, _args):
        self.local.cur = None
        name = getattr(ck, "name", None)
        if self.names is not None and name not in self.names:
            return
        try:
            if self.torch is None:
                import torch
                self.torch = torch
            if self.torch.cuda.is_current_stream_capturing():
                self.graph_launches += 1  # a graph replay calls no hook: its launches cannot be timed
                return
            key = getattr(ck, "hash", None) or f"id{id(ck)}"
            rec = self.kernels.get(key)
            if rec is None:
                with self.lock:
                    rec = self.kernels.setdefault(key, {"hash": key, "name": name, "cubin_sha256": _cubin_sha(ck),
                                                        "launches": 0, "times": array.array("d")})
            rec["launches"] += 1
            self.local.cur = rec
        except Exception as e:  # never break the timed program
            self.warn(f"timing a launch failed: {type(e).__name__}: {e}")

    def _event(self):
        return self.events.event()

    def enter(self, _metadata=None):
        if getattr(self.local, "cur", None) is None:
            return
        try:
            start = self._event()
            start.record()
            self.local.start = start
        except Exception as e:
            self.local.start = None
            self.warn(f"timing a launch failed: {type(e).__name__}: {e}")

    def exit(self, _metadata=None):
        rec = getattr(self.local, "cur", None)
        start = getattr(self.local, "start", None)
        self.local.cur = self.local.start = None
        if rec is None or start is None:
            return
        try:
            end = self._event()
            end.record()
            with self.lock:
                self.events.push(lambda us, rec=rec: _keep_time(rec, us), start, end)
                if len(self.events) >= DRAIN_AT:
                    self.events.drain(block=self.events.over_limit())
        except Exception as e:
            self.warn(f"timing a launch failed: {type(e).__name__}: {e}")

    def result(self):
        kernels = [{"hash": r["hash"], "name": r["name"], "cubin_sha256": r["cubin_sha256"],
                    "launches": r["launches"], "times_us": [round(t, 4) for t in r["times"]]}
                   for r in self.kernels.values()]
        return {"format": TIMES_FORMAT, "version": VERSION, "pid": os.getpid(), "argv": list(sys.argv),
                "installed": self.installed, "problem": self.problem, "graph_launches": self.graph_launches,
                "kernels": kernels, "warnings": list(self.warnings)}

    def finish(self):
        if self.finished:
            return None
        self.finished = True
        if self.torch is not None:
            try:
                self.torch.cuda.synchronize()
                with self.lock:
                    self.events.drain(block=True)
            except Exception as e:
                self.warn(f"waiting for the GPU at exit failed: {e}")
        try:
            data = self.result()
            os.makedirs(self.out_dir, exist_ok=True)
            path = os.path.join(self.out_dir, f"{os.getpid()}.times.json")
            with open(path + ".tmp", "w") as f:
                json.dump(data, f)
            os.replace(path + ".tmp", path)
            return data
        except Exception as e:  # at exit: say it, never raise into the program's shutdown
            print(f"sassx_capture: writing the kernel times failed: {type(e).__name__}: {e}", file=sys.stderr)
            return None


def _keep_time(rec, us):
    if len(rec["times"]) < MAX_TIMES:
        rec["times"].append(us)


def _cubin_sha(ck):
    try:
        blob = (getattr(ck, "asm", None) or {}).get("cubin")
        return hashlib.sha256(bytes(blob)).hexdigest() if blob else None
    except Exception:
        return None
