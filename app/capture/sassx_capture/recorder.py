"""The runtime side of the capture: Triton launch hooks in the captured process (needs torch and triton).

Triton's launch hooks receive only a small metadata dict, not the arguments, so the recorder wraps
CompiledKernel.launch_metadata, which every launch path calls with the grid and the arguments (Triton's
own JIT launcher, CompiledKernel[grid](...) and Inductor's generated launchers), and uses the
enter/exit hooks (triton.knobs.runtime in Triton >= 3.4, CompiledKernel's class attributes before) for
what must happen around the launch itself:

- the first launch of each distinct compiled kernel (Triton's kernel hash: source, specialisation and
  options) is recorded: metadata, grid, every argument (tensors by dtype, shape, strides and extent;
  scalars by value), and each tensor's bytes copied to the host before and after the launch, which says
  what the kernel wrote and gives the value statistics the spec's `init` is fitted to (specs.py);
- every launch is timed with CUDA events; the program's total GPU time comes from torch.profiler,
  started at the first Triton launch (docs/capture.md, "Time shares").

Launches inside CUDA-graph capture are counted and not recorded (a graph replay calls no hook).

Every process that imported triton writes its records file at exit, kernels or not: besides the kernels it
says whether the hooks were installed and what each hook saw (launch_metadata calls, enter-hook calls,
launches the enter hook saw that never passed launch_metadata, launches through Inductor's static
launcher, which calls neither), so that an empty capture can say why (runner.py, `explain_empty`).
"""
import atexit
import datetime
import hashlib
import json
import os
import sys
import threading
import zlib

from .capture_json import RECORDS_FORMAT, VERSION
from .event_queue import EventQueue

STATS_SAMPLE = 1 << 24  # values read for an input's statistics (evenly spaced)
MAX_PENDING = 100000    # timed launches waiting for their events before the recorder waits for the GPU
DIGEST_LIMIT = 256 << 20  # bytes: larger extents get no before/after digest ("changed" is exact anyway)
MAX_VALUES_BYTES = 64 << 20  # recorded integer inputs per kernel (--max-values-mib)


def _add_event_time(rec, us):
    rec["event_time_us"] += us


def _meta(md, key, default=None):
    if isinstance(md, dict):
        return md.get(key, default)
    return getattr(md, key, default)


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


class Recorder:
    def __init__(self, raw_dir, max_snapshot_bytes=8 << 30, use_profiler=True, write_empty=False,
                 max_values_bytes=MAX_VALUES_BYTES):
        self.raw_dir = raw_dir
        self.max_values_bytes = max_values_bytes
        self.max_snapshot_bytes = max_snapshot_bytes
        self.use_profiler = use_profiler
        self.write_empty = write_empty
        self.kernels = {}
        self.events = EventQueue(lambda: self.torch.cuda.Event(enable_timing=True), MAX_PENDING)
        self.local = threading.local()
        self.lock = threading.RLock()
        self.profiler = None
        self.warnings = []
        self.graph_launches = 0
        self.finished = False
        self.torch = None
        self.installed = False
        self.install_problem = None
        self.exit_registered = False
        self.metadata_calls = 0        # calls of the wrapped CompiledKernel.launch_metadata
        self.enter_calls = 0           # calls of the launch-enter hook
        self.hook_only = {}            # kernel name -> launches the enter hook saw without launch_metadata
        self.static_launches = {}      # kernel name -> launches through Inductor's static launcher

    def warn(self, msg):
        if msg not in self.warnings and len(self.warnings) < 50:
            self.warnings.append(msg)
            print(f"sassx_capture: {msg}", file=sys.stderr)

    # ---- installation -------------------------------------------------------------------------------
    def install(self):
        from .triton_hooks import install_launch_hooks
        problem = install_launch_hooks(self.before_launch, self.enter, self.exit)
        if problem:
            self.install_problem = problem
            self.warn(f"{problem}: nothing is captured")
            self.register_exit()
            return False
        self.installed = True
        self.register_exit()
        return True

    def register_exit(self):
        if not self.exit_registered:
            self.exit_registered = True
            atexit.register(self.finish)

    def wrap_static_launcher(self, module):
        """Counts launches through Inductor's static launcher classes in `module` (their `run` goes to the
        driver and calls no Triton hook, so these kernels cannot be recorded; the count says so)."""
        recorder = self
        for attr in dir(module):
            cls = getattr(module, attr, None)
            if not (isinstance(cls, type) and attr.startswith("StaticallyLaunched")):
                continue
            run = cls.__dict__.get("run")
            if run is None or getattr(run, "_sassx_capture", False):
                continue

            def counted(kernel, *args, _run=run, **kwargs):
                name = str(getattr(kernel, "name", None) or type(kernel).__name__)
                with recorder.lock:
                    recorder.static_launches[name] = recorder.static_launches.get(name, 0) + 1
                return _run(kernel, *args, **kwargs)

            counted._sassx_capture = True
            setattr(cls, "run", counted)

    # ---- per launch ---------------------------------------------------------------------------------
    def before_launch(self, ck, grid, args):
        prev = getattr(self.local, "cur", None)
        self.local.cur = None
        self.local.announced = True
        self.metadata_calls += 1
        try:
            if prev is not None and prev[1] is not None:
                self._after_first(*prev)  # the last launch ran without the exit hook (a stale launcher)
            if self.torch is None:
                import torch
                self.torch = torch
            torch = self.torch
            if torch.cuda.is_current_stream_capturing():
                self.graph_launches += 1
                return
            if self.use_profiler and self.profiler is None:
                self._start_profiler()
            key = getattr(ck, "hash", None) or f"id{id(ck)}"
            with self.lock:
                rec = self.kernels.get(key)
                first = None
                if rec is None:
                    try:
                        rec, first = self._first_launch(ck, key, grid, args)
                    except Exception as e:  # keep the kernel, with the reason, and never retry
                        rec = {"hash": key, "name": getattr(ck, "name", None), "launches": 0,
                               "event_time_us": 0.0, "args": [],
                               "problem": f"recording its first launch failed: {type(e).__name__}: {e}"}
                        first = None
                        self.warn(f"{rec['name']}: {rec['problem']}")
                    self.kernels[key] = rec
                rec["launches"] += 1
            self.local.cur = (rec, first)
        except Exception as e:  # never break the captured program
            self.warn(f"recording a launch failed: {type(e).__name__}: {e}")

    def enter(self, _metadata=None):
        self.enter_calls += 1
        if not getattr(self.local, "announced", False):
            name = _launch_name(_metadata)
            with self.lock:
                self.hook_only[name] = self.hook_only.get(name, 0) + 1
            return
        self.local.announced = False
        cur = getattr(self.local, "cur", None)
        if cur is None:
            return
        try:
            start = self.torch.cuda.Event(enable_timing=True)
            start.record()
            self.local.start = start
        except Exception as e:
            self.local.start = None
            self.warn(f"timing a launch failed: {e}")

    def exit(self, _metadata=None):
        cur = getattr(self.local, "cur", None)
        self.local.cur = None
        if cur is None:
            return
        rec, first = cur
        try:
            start = getattr(self.local, "start", None)
            self.local.start = None
            if start is not None:
                end = self.torch.cuda.Event(enable_timing=True)
                end.record()
                self.events.push(lambda us, rec=rec: _add_event_time(rec, us), start, end)
            if first is not None:
                self._after_first(rec, first)
            self.events.drain(block=self.events.over_limit())
        except Exception as e:
            self.warn(f"recording a launch failed: {type(e).__name__}: {e}")

    # ---- the first launch of a kernel ------------------------------------------------------------
    def _first_launch(self, ck, key, grid, args):
        md = ck.metadata
        target = _meta(md, "target")
        grid = [int(g) for g in (list(grid) + [1, 1, 1])[:3]]
        rec = {"hash": key, "name": getattr(ck, "name", None) or _meta(md, "name"),
               "triton_version": getattr(sys.modules.get("triton"), "__version__", None),
               "arch": _meta(target, "arch"),
               "num_warps": _meta(md, "num_warps"), "num_stages": _meta(md, "num_stages"),
               "num_ctas": _meta(md, "num_ctas", 1),
               "cluster_dims": [int(c) for c in (_meta(md, "cluster_dims", None) or (1, 1, 1))],
               "shared": _meta(md, "shared", 0),
               "global_scratch_size": _meta(md, "global_scratch_size", 0) or 0,
               "profile_scratch_size": _meta(md, "profile_scratch_size", 0) or 0,
               "launch_cooperative_grid": bool(_meta(md, "launch_cooperative_grid", False)),
               "grid": grid, "launches": 0, "event_time_us": 0.0, "args": []}
        cubin = self._cubin(ck)
        rec["cache_entry"] = self._cache_entry(ck, rec["name"], cubin)
        if cubin is None:
            rec["problem"] = "the compiled kernel has no cubin"
            return rec, None
        os.makedirs(self.raw_dir, exist_ok=True)
        with open(os.path.join(self.raw_dir, f"{key}.cubin"), "wb") as f:
            f.write(cubin)
        pairs, problem = self._align(ck, args)
        if problem:
            rec["problem"] = problem
            return rec, None
        rec["args"] = [self._describe(name, sig, a) for name, sig, a in pairs]
        return rec, self._snapshot(rec, [a for _n, _s, a in pairs])

    def _cubin(self, ck):
        asm = getattr(ck, "asm", None) or {}
        try:
            blob = asm["cubin"] if "cubin" in asm else None
        except Exception:
            blob = None
        return bytes(blob) if blob else None

    def _cache_entry(self, ck, name, cubin):
        """The Triton cache directory the kernel was loaded from: where its metadata group lives, else
        the entry under TRITON_CACHE_DIR (or ~/.triton/cache) holding the same cubin."""
        group = getattr(ck, "metadata_group", None)
        if isinstance(group, dict):
            for path in group.values():
                d = os.path.dirname(os.path.abspath(str(path)))
                if os.path.isfile(os.path.join(d, f"{name}.cubin")):
                    return d
        roots = [os.environ.get("TRITON_CACHE_DIR"), os.path.join(os.path.expanduser("~"), ".triton", "cache")]
        try:
            import triton
            roots.insert(1, triton.knobs.cache.dir)
        except Exception:
            pass
        for root in filter(None, roots):
            try:
                entries = os.listdir(root)
            except OSError:
                continue
            for e in entries:
                path = os.path.join(root, e, f"{name}.cubin")
                try:
                    with open(path, "rb") as f:
                        if cubin is not None and f.read() == cubin:
                            return os.path.abspath(os.path.join(root, e))
                except OSError:
                    continue
        self.warn(f"{name}: its Triton cache entry was not found (write-back needs it)")
        return None

    def _align(self, ck, args):
        """(name, signature type, value) per launch argument, or a problem.  The launch passes the
        function's arguments in order (Triton's own launch_metadata zips them with fn.arg_names); the
        signature gives each one's type, "constexpr" for those compiled in."""
        src = getattr(ck, "src", None)
        sig = getattr(src, "signature", None)
        if not isinstance(sig, dict):
            return None, "the compiled kernel has no signature to name its arguments"
        fn = getattr(src, "fn", None)
        arg_names = list(getattr(fn, "arg_names", []) or [])
        constants = getattr(src, "constants", None) or {}
        if arg_names and len(arg_names) == len(args):
            pairs = []
            for i, (name, value) in enumerate(zip(arg_names, args)):
                t = sig.get(name, sig.get(i))
                if t is None and (name in constants or (i,) in constants or i in constants):
                    t = "constexpr"
                if t is None:
                    break
                pairs.append((name, t, value))
            else:
                return pairs, None
        names = [k if isinstance(k, str) else (arg_names[k] if isinstance(k, int) and k < len(arg_names)
                                               else f"arg{k}") for k in sig]
        types = list(sig.values())
        if len(args) == len(names):
            return list(zip(names, types, args)), None
        runtime = [(n, t) for n, t in zip(names, types) if t != "constexpr"]
        if len(args) == len(runtime):
            return [(n, t, a) for (n, t), a in zip(runtime, args)], None
        return None, f"{len(args)} launch arguments for a signature of {len(names)} entries"

    def _describe(self, name, sig, a):
        torch = self.torch
        d = {"name": name, "sig": sig if isinstance(sig, str) else _jsonable(sig)}
        if sig == "constexpr":
            d.update(kind="constexpr", value=_jsonable(a))
        elif a is None:
            d["kind"] = "none"
        elif isinstance(a, torch.Tensor):
            es = a.element_size()
            st = a.untyped_storage()
            offset = a.storage_offset() * es
            extent = max(0, st.nbytes() - offset) // es * es
            span = 0 if a.numel() == 0 else \
                (1 + sum((s - 1) * abs(t) for s, t in zip(a.shape, a.stride()))) * es
            d.update(kind="tensor", dtype=str(a.dtype), shape=list(a.shape), stride=list(a.stride()),
                     storage_offset=a.storage_offset(), element_size=es, data_ptr=a.data_ptr(),
                     storage_nbytes=st.nbytes(), extent_bytes=extent, span_bytes=min(span, extent),
                     device=str(a.device))
        elif isinstance(a, bool):
            d.update(kind="bool", value=a)
        elif isinstance(a, int):
            d.update(kind="int", value=a)
        elif isinstance(a, float):
            d.update(kind="float", value=a)
        else:
            d.update(kind="other", type=type(a).__name__)
        return d

    def _raw_view(self, t, desc):
        torch = self.torch
        raw = torch.empty(0, dtype=torch.uint8, device=t.device)
        raw.set_(t.untyped_storage(), t.storage_offset() * desc["element_size"], (desc["extent_bytes"],), (1,))
        return raw

    def _snapshot(self, rec, values):
        """Host copies of every tensor argument's bytes before the launch (None when over the limit)."""
        torch = self.torch
        tensors = [(d, v) for d, v in zip(rec["args"], values) if d.get("kind") == "tensor"]
        if not tensors:
            return None
        total = sum(d["extent_bytes"] for d, _v in tensors)
        if total > self.max_snapshot_bytes:
            for d, _v in tensors:
                d["snapshot"] = (f"the arguments hold {total / 2**30:.1f} GiB, over the snapshot limit "
                                 f"({self.max_snapshot_bytes / 2**30:.1f} GiB, --max-snapshot-gib)")
            return None
        with torch.no_grad():
            torch.cuda.synchronize()
            views = [(d, self._raw_view(v, d)) for d, v in tensors if d["device"].startswith("cuda")]
            for d, v in tensors:
                if not d["device"].startswith("cuda"):
                    d["snapshot"] = f"the tensor is on {d['device']}, not the GPU"
            return [(d, raw, raw.cpu()) for d, raw in views]

    def _after_first(self, rec, first):
        torch = self.torch
        if not first:
            return
        with torch.no_grad():
            torch.cuda.synchronize()
            for d, raw, before in first:
                after = raw.cpu()
                span = d["span_bytes"]
                d["changed"] = not torch.equal(before[:span], after[:span])
                d["changed_beyond"] = not torch.equal(before[span:], after[span:])
                if before.numel() <= DIGEST_LIMIT:  # hashing runs at about 1 GB/s: not for big tensors
                    d["before_digest"] = hashlib.blake2b(before.numpy(), digest_size=16).hexdigest()
                    d["after_digest"] = hashlib.blake2b(after.numpy(), digest_size=16).hexdigest()
                d["stats"] = self._stats(before, d)
            self._record_values(rec, [(d, before) for d, _raw, before in first])

    def _record_values(self, rec, snapshots):
        """Integer and bool inputs holding more than one value: their bytes before the launch, zlib-compressed,
        into raw/<hash>.arg<i>.bin.z (specs.py uses them where no distribution fits: indices, labels with an
        ignore index, masks, block indices), up to max_values_bytes per kernel."""
        used = 0
        for d, before in snapshots:
            stats = d.get("stats") or {}
            if d["dtype"].replace("torch.", "") not in _INT_DTYPES or stats.get("zero") or \
                    stats.get("min") == stats.get("max"):
                continue
            size = len(before.numpy())  # uint8: one element a byte; no copy before the limit is checked
            if used + size > self.max_values_bytes:
                d["values_problem"] = (f"its {size / 2**20:.1f} MiB of values were not recorded (the kernel's "
                                       f"recorded values may take {self.max_values_bytes / 2**20:.1f} MiB, "
                                       "--max-values-mib)")
                continue
            data = before.numpy().tobytes()
            used += len(data)
            index = next(i for i, a in enumerate(rec["args"]) if a is d)
            fn = f"{rec['hash']}.arg{index}.bin.z"
            with open(os.path.join(self.raw_dir, fn), "wb") as f:
                f.write(zlib.compress(data, 6))
            d["values"] = {"file": fn, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}

    def _stats(self, raw, d):
        torch = self.torch
        try:
            dtype = getattr(torch, d["dtype"].replace("torch.", ""))
            es = d["element_size"]
            n = raw.numel() // es
            out = {"numel": n, "zero": bool(raw.count_nonzero().item() == 0)}
            if n == 0:
                return out
            typed = raw[:n * es].view(dtype)
            if n > STATS_SAMPLE:
                typed = typed[::(n + STATS_SAMPLE - 1) // STATS_SAMPLE]
            if dtype.is_floating_point:
                x = typed.double() if dtype == torch.float64 else typed.float()
                x = x[torch.isfinite(x)]
                out["finite"] = int(x.numel())
                if x.numel():
                    out.update(min=x.min().item(), max=x.max().item(), mean=x.double().mean().item(),
                               std=x.double().std(correction=0).item())
            else:
                x = typed.to(torch.int64)
                out.update(min=int(x.min().item()), max=int(x.max().item()))
            return out
        except Exception as e:
            self.warn(f"statistics of {d['name']} ({d['dtype']}): {e}")
            return None

    # ---- profiler and the end ----------------------------------------------------------------------
    def _start_profiler(self):
        try:
            from torch.profiler import ProfilerActivity, profile
            self.profiler = profile(activities=[ProfilerActivity.CUDA])
            self.profiler.start()
        except Exception as e:
            self.profiler = False
            self.warn(f"torch.profiler did not start ({e}): time shares count Triton kernels only")

    def _profiled(self):
        """(total µs, {kernel name: µs}) of every CUDA kernel the profiler saw, or (None, None)."""
        if not self.profiler:
            return None, None
        try:
            self.profiler.stop()
            from torch.autograd import DeviceType
            try:  # the raw activity list: much faster than building FunctionEvents
                raw = self.profiler.profiler.kineto_results
                spans = [(e.name(), e.device_type(), (e.end_ns() - e.start_ns()) / 1000.0) for e in raw.events()]
            except Exception:
                spans = [(e.name, e.device_type, float(e.time_range.end - e.time_range.start))
                         for e in self.profiler.events()]
            per_name, total = {}, 0.0
            for name, device_type, us in spans:
                if device_type != DeviceType.CUDA or name.startswith(("Memcpy", "Memset")):
                    continue
                per_name[name] = per_name.get(name, 0.0) + us
                total += us
            return total, per_name
        except Exception as e:
            self.warn(f"torch.profiler's results could not be read ({e}): time shares count Triton kernels only")
            return None, None

    def hooks_report(self):
        """What the hooks saw in this process (runner.explain_empty reads it)."""
        return {"installed": self.installed, "problem": self.install_problem,
                "launch_metadata_calls": self.metadata_calls, "enter_hook_calls": self.enter_calls,
                "graph_launches": self.graph_launches, "hook_only_launches": dict(self.hook_only),
                "static_launcher_launches": dict(self.static_launches)}

    def records(self):
        total, per_name = self._profiled()
        device = None
        try:
            device = self.torch.cuda.get_device_name() if self.torch is not None else None
        except Exception:
            pass
        if self.hook_only:
            n = sum(self.hook_only.values())
            self.warn(f"Triton's launch hook saw {n} launches of {len(self.hook_only)} kernels that did not call "
                      "CompiledKernel.launch_metadata: not recorded (" + ", ".join(sorted(self.hook_only)[:5]) + ")")
        if self.static_launches:
            n = sum(self.static_launches.values())
            self.warn(f"{n} launches of {len(self.static_launches)} kernels went through Inductor's static launcher "
                      "and were not recorded (set torch._inductor.config.use_static_cuda_launcher = False)")
        if self.graph_launches:
            self.warn(f"{self.graph_launches} Triton launches during CUDA-graph capture were not recorded "
                      "(capture without CUDA graphs, e.g. torch.compile mode='default')")
        torch_mod = sys.modules.get("torch")
        return {"format": RECORDS_FORMAT, "version": VERSION, "pid": os.getpid(), "argv": list(sys.argv),
                "triton_version": getattr(sys.modules.get("triton"), "__version__", None),
                "torch_version": str(getattr(torch_mod, "__version__", None)) if torch_mod else None,
                "hooks": self.hooks_report(),
                "device": device, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "total_gpu_time_us": total, "profiler_kernel_us": per_name,
                "kernels": list(self.kernels.values()), "warnings": list(self.warnings)}

    def finish(self):
        if self.finished:
            return None
        self.finished = True
        if not self.kernels and not self.write_empty:
            return None
        if self.torch is not None:
            try:
                self.torch.cuda.synchronize()
                self.events.drain(block=True)
            except Exception as e:
                self.warn(f"waiting for the GPU at exit failed: {e}")
        try:
            data = self.records()
            os.makedirs(self.raw_dir, exist_ok=True)
            path = os.path.join(self.raw_dir, f"{os.getpid()}.records.json")
            with open(path + ".tmp", "w") as f:
                json.dump(data, f, default=str)
            os.replace(path + ".tmp", path)
        except Exception as e:  # at exit: say it, never raise into the program's shutdown
            print(f"sassx_capture: writing the records failed: {type(e).__name__}: {e}", file=sys.stderr)
            return None
        return data


_INT_DTYPES = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"}


def _launch_name(metadata):
    """The kernel name in what launch_metadata returned (Triton's LazyDict, a dict, or None)."""
    data = getattr(metadata, "data", metadata)
    name = data.get("name") if isinstance(data, dict) else None
    return str(name) if name else "(unnamed: launch_metadata returned no name)"

