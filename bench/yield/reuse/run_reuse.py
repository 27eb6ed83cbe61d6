#!/usr/bin/env python3
"""Runs the reuse-under-Y0 variants (make_variants.py) on the GPU (bench/yield/reuse/README.md).

  run_reuse.py all VARIANT_DIR OUT.json [--jobs N] [--timeout S] [--only PAT[,PAT]] [--classes A,B]
                                        [--no-gap] [--dry-run]
      Phase 1 (results): every orig_<class>.cubin and every variant with "run": true in manifest.json,
      each in its own process (--jobs processes at a time, default 8): 3 input sets x {1 warp, 1 block
      of 256, 2 blocks of 1024 per SM}, every output word compared bit for bit with orig's from the
      same process (orig rows: orig against itself, the determinism check). A launch that raises a CUDA
      error is a fault; a process that makes no progress for --timeout seconds (default 30) is killed:
      a hang. Either costs that launch shape only: the shapes left run in a fresh process.
      Phase 2 (issue cost, --no-gap skips it): after phase 1, one process, nothing else on the GPU: one
      warp, the loop run for GAP_SHORT and GAP_LONG iterations, GAP_REPS times, for orig and every
      variant that neither faulted nor hung in phase 1; slope = cycles per loop iteration. Outputs are
      compared with orig's as well. After a fault or hang the cubins left run in a fresh process.
      OUT.json is rewritten after every variant. --only: fnmatch patterns on variant names (orig rows
      are always run); --classes: only these classes; --dry-run lists the runs and exits (no GPU).
  run_reuse.py res VARIANT_DIR FILE ROW.json --shapes I,J        (internal: one cubin, results)
  run_reuse.py gap VARIANT_DIR ROW.json --items CLASS=FILE,...   (internal: issue cost)

Needs CuPy (the device image has it).
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

IN_WORDS = 1 << 20
OUT_WORDS = 8  # per thread
INPUT_SETS = 3
P0 = (0x00012345, 0x9E3779B9, 0x00000007)
RES_ITERS = 64  # loop iterations in the results launches (values stay bounded: see reuse_probe.cu)
GAP_SHORT, GAP_LONG, GAP_REPS = 16, 144, 5
SHAPES = ("1 warp", "1 block of 256", "2 blocks of 1024 per SM")
PROC_SECONDS = 2.0  # a results process's usual cost on the device, for the dry run's estimate
GAP_SECONDS = 0.15  # per cubin in the gap process


def shape_dims(name, nsm):
    return {"1 warp": (1, 32), "1 block of 256": (1, 256), "2 blocks of 1024 per SM": (2 * nsm, 1024)}[name]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return None if not n else (s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2]))


# ----------------------------------------------------------------------------------------------------
# On the device (child processes)


class Device:
    def __init__(self):
        import cupy as cp
        import numpy as np

        self.cp, self.np = cp, np
        self.nsm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
        tmax = 2 * self.nsm * 1024
        self.out = cp.empty(OUT_WORDS * tmax, dtype=cp.uint32)
        self.clocks = cp.empty(tmax // 32, dtype=cp.int64)
        self.inputs = []
        for s in range(INPUT_SETS):
            host = np.random.default_rng(1000 + s).integers(0, 2**32, IN_WORDS, dtype=np.uint64).astype(np.uint32)
            self.inputs.append(cp.asarray(host))

    def module(self, path, kernel):
        return self.cp.RawModule(path=path).get_function(kernel)

    def launch(self, func, grid, block, input_set, iters):
        """Poisons out[] and clocks[], launches, waits; returns out[] (host copy) and warp 0's cycles."""
        cp, np = self.cp, self.np
        n = grid * block
        self.out.data.memset_async(0xFF, 4 * OUT_WORDS * n)
        self.clocks.data.memset_async(0xFF, 8 * max(1, n // 32))
        func((grid,), (block,), (self.out, self.clocks, self.inputs[input_set], np.uint32(P0[input_set]), np.int32(iters)))
        cp.cuda.Device().synchronize()
        return self.out[:OUT_WORDS * n].get(), int(self.clocks[:1].get()[0])


def compare(np, ref, got, limit=3):
    diff = np.nonzero(ref != got)[0]
    ex = [[int(i) // OUT_WORDS, int(i) % OUT_WORDS, f"{int(ref[i]):#010x}", f"{int(got[i]):#010x}"] for i in diff[:limit]]
    return int(diff.size), ex


def failure_kind(e):
    text = f"{type(e).__module__}.{type(e).__name__} {e}"
    return "fault" if ("CUDA" in text or "cuda" in text) else "error"


class Row:
    """A child's JSON row, written atomically after every step (the parent watches it for progress)."""

    def __init__(self, path, empty):
        self.path = path
        self.data = json.load(open(path)) if os.path.exists(path) else empty

    def save(self):
        with open(self.path + ".tmp", "w") as f:
            json.dump(self.data, f)
        os.replace(self.path + ".tmp", self.path)

    def die(self, e, where):
        """Records the exception and leaves at once (a context after a fault may hang at teardown)."""
        self.data["failure"] = {"error": failure_kind(e), "message": f"{type(e).__name__}: {e}"[:500], "at": where}
        self.save()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(3)


def child_res(vdir, fname, row_path, shapes):
    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    row = Row(row_path, {"shapes": {}})
    meta = next((v for v in manifest["variants"] if v.get("file") == fname), None)
    if meta is None:  # an orig row: orig against itself
        cls = next(c for c, e in manifest["classes"].items() if e["orig"] == fname)
        kernel, orig = manifest["classes"][cls]["kernel"], fname
    else:
        kernel, orig = meta["kernel"], meta["orig"]
    row.data["in_progress"] = {"step": "setup"}
    row.save()
    try:
        dev = Device()
        np = dev.np
        ref = dev.module(os.path.join(vdir, orig), kernel)
        var = dev.module(os.path.join(vdir, fname), kernel) if meta else ref
        for sname in shapes:
            grid, block = shape_dims(sname, dev.nsm)
            cell = {"grid": grid, "block": block, "iters": RES_ITERS, "mismatches": [], "words_checked": 0,
                    "examples": [], "seconds": 0.0}
            if meta is None:
                cell["unwritten"] = []
            for s in range(INPUT_SETS):
                t0 = time.time()
                row.data["in_progress"] = {"shape": sname, "set": s, "launch": "orig"}
                row.save()
                r, _ = dev.launch(ref, grid, block, s, RES_ITERS)
                row.data["in_progress"]["launch"] = "variant" if meta else "orig (second run)"
                row.save()
                o, _ = dev.launch(var, grid, block, s, RES_ITERS)
                n, ex = compare(np, r, o)
                cell["mismatches"].append(n)
                cell["words_checked"] += int(o.size)
                cell["examples"] = (cell["examples"] + ex)[:6]
                if meta is None:  # output words the kernel never wrote (still poison): must be none
                    cell["unwritten"].append(int((r == 0xFFFFFFFF).sum()))
                cell["seconds"] = round(cell["seconds"] + time.time() - t0, 3)
            row.data["shapes"][sname] = cell
            row.save()
    except Exception as e:  # noqa: BLE001
        row.die(e, row.data.get("in_progress"))
    row.data.pop("in_progress", None)
    row.save()


def child_gap(vdir, row_path, items):
    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    row = Row(row_path, {})
    try:
        dev = Device()
        np = dev.np
        refs = {}
        for item in items:
            cls, f = item.split("=", 1)
            entry = manifest["classes"][cls]
            row.data[item] = {"error": "started, did not finish"}
            row.save()
            if cls not in refs:
                ref = dev.module(os.path.join(vdir, entry["orig"]), entry["kernel"])
                refs[cls] = (ref, {it: dev.launch(ref, 1, 32, 0, it)[0] for it in (GAP_SHORT, GAP_LONG)})
            ref, outs = refs[cls]
            func = ref if f == entry["orig"] else dev.module(os.path.join(vdir, f), entry["kernel"])
            dev.launch(func, 1, 32, 0, GAP_SHORT)  # warm the instruction cache
            short, long_, slopes, mism = [], [], [], 0
            for _ in range(GAP_REPS):
                o1, c1 = dev.launch(func, 1, 32, 0, GAP_SHORT)
                o2, c2 = dev.launch(func, 1, 32, 0, GAP_LONG)
                mism += compare(np, outs[GAP_SHORT], o1)[0] + compare(np, outs[GAP_LONG], o2)[0]
                short.append(c1)
                long_.append(c2)
                slopes.append((c2 - c1) / (GAP_LONG - GAP_SHORT))
            row.data[item] = {"cycles_short": short, "cycles_long": long_, "slopes": slopes,
                              "per_iteration": median(slopes), "min": min(slopes), "max": max(slopes),
                              "mismatches": mism, "words_checked": GAP_REPS * 2 * 32 * OUT_WORDS}
            row.save()
    except Exception as e:  # noqa: BLE001
        cur = next((i for i in items if row.data.get(i, {}).get("error") == "started, did not finish"), None)
        row.die(e, cur)


# ----------------------------------------------------------------------------------------------------
# The driver


def run_child(args, watch, timeout):
    """Runs a child; kills it (and its process group) when `watch` has not changed for `timeout`
    seconds. Returns (returncode or 'hang', the exception line of its traceback or its last line)."""
    cmd = [sys.executable, os.path.abspath(__file__)] + args
    with tempfile.TemporaryFile("w+") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        last = time.time()
        seen = None
        while p.poll() is None:
            time.sleep(0.1)
            try:
                m = os.stat(watch).st_mtime_ns
            except FileNotFoundError:
                m = None
            if m != seen:
                seen, last = m, time.time()
            elif time.time() - last > timeout:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
                return "hang", f"no progress for {timeout:g} s"
        log.seek(0)
        lines = log.read().strip().splitlines()
    exc = [ln for ln in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b", ln)]
    return p.returncode, (exc[0] if exc else lines[-1] if lines else "")[:500]


def classify(msg):
    return "fault" if ("CUDA" in msg or "cuda" in msg) else "error"


def run_results(vdir, fname, tmp, timeout):
    """One cubin through every launch shape, a fresh process after a fault or hang."""
    row_path = os.path.join(tmp, fname + ".res.json")
    todo, children = list(SHAPES), []
    while todo:
        rc, msg = run_child(["res", vdir, fname, row_path, "--shapes", ",".join(todo)], row_path, timeout)
        row = json.load(open(row_path)) if os.path.exists(row_path) else {"shapes": {}}
        children.append({"shapes": list(todo), "rc": rc, "message": msg})
        todo = [s for s in todo if s not in row["shapes"]]
        if rc == 0:
            for s in todo:  # exited cleanly without running it: should not happen
                row["shapes"][s] = {"error": "error", "message": "the process exited without running this shape"}
            todo = []
        elif todo:
            fail = row.pop("failure", None)
            where = (fail or {}).get("at") or row.get("in_progress") or {}
            at = where.get("shape") if where.get("shape") in todo else todo[0]  # else: failed in setup
            if fail:
                kind, msg = fail["error"], fail["message"]
            else:  # killed for want of progress, or died without a word
                kind = "hang" if rc == "hang" else classify(msg)
            row["shapes"][at] = {"error": kind, "message": msg, "set": where.get("set"), "step": where.get("step"),
                                 "launch": where.get("launch")}
            todo = [s for s in todo if s != at]
        row.pop("in_progress", None)
        row.pop("failure", None)
        with open(row_path, "w") as f:
            json.dump(row, f)
    row = json.load(open(row_path))
    row["children"] = children
    return row


def run_gap(vdir, items, tmp, timeout):
    """One process for every cubin; after a fault or hang, the cubins left in a fresh process."""
    out, todo, n = {"_processes": []}, list(items), 0
    while todo:
        n += 1
        row_path = os.path.join(tmp, f"gap.{n}.json")
        rc, msg = run_child(["gap", vdir, row_path, "--items", ",".join(todo)], row_path, timeout)
        part = json.load(open(row_path)) if os.path.exists(row_path) else {}
        fail = part.pop("failure", None)
        out["_processes"].append({"items": len(todo), "rc": rc, "message": (fail or {}).get("message", msg)})
        for i in todo:
            if i in part:
                r = part[i]
                if r.get("error") == "started, did not finish":
                    if fail and fail.get("at") == i:
                        r = {"error": fail["error"], "message": fail["message"]}
                    else:
                        r = {"error": "hang" if rc == "hang" else classify(msg), "message": msg}
                out[i] = r
        if not any(i in part for i in todo):  # failed before the first cubin (setup): give up
            for i in todo:
                out[i] = {"error": (fail or {}).get("error", "hang" if rc == "hang" else classify(msg)),
                          "message": (fail or {}).get("message", msg), "note": "the gap process failed in setup"}
            break
        todo = [i for i in todo if i not in part]
        if rc == 0 and todo:
            for i in todo:
                out[i] = {"error": "error", "message": "not measured by a process that exited cleanly"}
            break
    return out


def plan(vdir, pats, classes):
    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    todo = []
    for cls, e in manifest["classes"].items():
        if classes and cls not in classes:
            continue
        todo.append({"name": f"{cls}__orig", "class": cls, "variant": "orig", "file": e["orig"]})
        for v in manifest["variants"]:
            if v["class"] == cls and v.get("run") and (not pats or any(fnmatch.fnmatch(v["name"], p) for p in pats)):
                todo.append({"name": v["name"], "class": cls, "variant": v["variant"], "file": v["file"]})
    return manifest, todo


def device_info():
    import cupy as cp

    p = cp.cuda.runtime.getDeviceProperties(0)
    name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
    return {"name": name, "sm_count": p["multiProcessorCount"], "clock_rate_khz": p.get("clockRate"),
            "driver_version": cp.cuda.runtime.driverGetVersion(), "runtime_version": cp.cuda.runtime.runtimeGetVersion(),
            "cupy": cp.__version__}


def summary(row):
    parts = []
    for s in SHAPES:
        c = row.get("shapes", {}).get(s, {})
        parts.append(c["error"] if "error" in c else str(sum(c.get("mismatches", [])) if c else "-"))
    return "/".join(parts)


def variant_failed(row):
    """A fault or hang in one of the variant's own launches (not orig's)."""
    return any(c.get("error") in ("fault", "hang") and not str(c.get("launch") or "").startswith("orig")
               for c in row.get("shapes", {}).values())


def run_all(a):
    pats = a.only.split(",") if a.only else None
    classes = set(a.classes.split(",")) if a.classes else None
    manifest, todo = plan(a.vdir, pats, classes)
    if a.dry_run:
        for t in todo:
            print(f"res  {t['name']:26s} {t['file']}  {len(SHAPES)} shapes ({', '.join(SHAPES)}) x {INPUT_SETS} sets")
        if not a.no_gap:
            print(f"gap  {len(todo)} cubins (each class's orig first) in one process, 1 warp, "
                  f"{GAP_SHORT} and {GAP_LONG} iterations x {GAP_REPS}")
        est = len(todo) * PROC_SECONDS / max(1, a.jobs) + (0 if a.no_gap else 3 + len(todo) * GAP_SECONDS)
        print(f"{len(todo)} result processes ({a.jobs} at a time) in {len({t['class'] for t in todo})} classes, "
              f"{0 if a.no_gap else 1} gap process; about {est / 60:.1f} min at {PROC_SECONDS:g} s a results process")
        return
    try:
        import cupy  # noqa: F401
    except Exception as e:  # noqa: BLE001
        sys.exit(f"run_reuse.py: CuPy is not importable here ({type(e).__name__}: {e}); run it on the GPU machine")
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "device": device_info(), "command": " ".join(sys.argv),
              "settings": {"input_sets": INPUT_SETS, "p0": list(P0), "in_words": IN_WORDS, "res_iters": RES_ITERS,
                           "shapes": list(SHAPES), "gap_short": GAP_SHORT, "gap_long": GAP_LONG, "gap_reps": GAP_REPS,
                           "timeout_s": a.timeout, "jobs": a.jobs},
              "results": {}, "gap": {}}
    lock = threading.Lock()
    t_all = time.time()

    def dump():
        with open(a.out + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(a.out + ".tmp", a.out)

    dump()
    with tempfile.TemporaryDirectory() as tmp:
        def one(t):
            t0 = time.time()
            try:
                row = run_results(a.vdir, t["file"], tmp, a.timeout)
            except Exception as e:  # noqa: BLE001  (a driver bug must not stop the other variants)
                row = {"shapes": {s: {"error": "error", "message": f"driver: {type(e).__name__}: {e}"} for s in SHAPES}}
            row.update(cls=t["class"], variant=t["variant"], file=t["file"], seconds=round(time.time() - t0, 1))
            with lock:
                result["results"][t["name"]] = row
                dump()
                print(f"{t['name']:28s} {row['seconds']:5.1f}s mismatches or failure by shape {summary(row)}", flush=True)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            list(ex.map(one, todo))
        result["seconds_results"] = round(time.time() - t_all, 1)
        dump()
        if not a.no_gap:
            t1 = time.time()
            items = [f"{t['class']}={t['file']}" for t in todo
                     if t["variant"] == "orig" or not variant_failed(result["results"][t["name"]])]
            gap = run_gap(a.vdir, items, tmp, a.timeout)
            result["gap"] = {"_processes": gap.pop("_processes")}
            for item, g in gap.items():
                cls, f = item.split("=", 1)
                result["gap"].setdefault(cls, {})[f] = g
            result["seconds_gap"] = round(time.time() - t1, 1)
            for cls in sorted(k for k in result["gap"] if not k.startswith("_")):
                g = result["gap"][cls]
                fmt = lambda x: f"{x['per_iteration']:.1f}" if "per_iteration" in x else x.get("error", "?")  # noqa: E731
                print(f"gap {cls:10s} cycles/iteration: " + ", ".join(
                    f"{'orig' if f.startswith('orig_') else f.split('__')[-1][:-6]} {fmt(x)}" for f, x in g.items()),
                    flush=True)
    result["seconds_total"] = round(time.time() - t_all, 1)
    dump()
    print(f"done: {len(todo)} result rows, gap for {sum(len(v) for k, v in result['gap'].items() if not k.startswith('_'))} "
          f"cubins, {result['seconds_total']} s -> {a.out}")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("all", "res", "gap"):
        sys.exit(__doc__)
    mode = sys.argv[1]
    ap = argparse.ArgumentParser(prog="run_reuse.py " + mode)
    ap.add_argument("vdir")
    if mode == "all":
        ap.add_argument("out")
        ap.add_argument("--jobs", type=int, default=8)
        ap.add_argument("--timeout", type=float, default=30)
        ap.add_argument("--only")
        ap.add_argument("--classes")
        ap.add_argument("--no-gap", action="store_true")
        ap.add_argument("--dry-run", action="store_true")
        a = ap.parse_args(sys.argv[2:])
        if not os.path.isfile(os.path.join(a.vdir, "manifest.json")):
            sys.exit(f"run_reuse.py: no {a.vdir}/manifest.json (run make_variants.py first)")
        run_all(a)
    elif mode == "res":
        ap.add_argument("file")
        ap.add_argument("row")
        ap.add_argument("--shapes", required=True)
        a = ap.parse_args(sys.argv[2:])
        child_res(a.vdir, a.file, a.row, a.shapes.split(","))
    else:
        ap.add_argument("row")
        ap.add_argument("--items", required=True)
        a = ap.parse_args(sys.argv[2:])
        child_gap(a.vdir, a.row, a.items.split(","))


if __name__ == "__main__":
    main()
