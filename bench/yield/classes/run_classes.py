#!/usr/bin/env python3
"""Runs the class probe's variants (make_variants.py) on the GPU (bench/yield/classes/README.md).

  run_classes.py all VARIANT_DIR OUT.json [--only PATTERN[,PATTERN...]] [--timeout S] [--dry-run]
      orig.cubin and every variant with "run": true in manifest.json, each in its own process (a
      variant that faults or hangs costs only its own row; a gap variant, which covers all classes,
      is re-run class by class when it fails). --only: fnmatch patterns on variant names (orig is
      always run). --dry-run: list what would run and exit (no GPU needed).
  run_classes.py one VARIANT_DIR FILE ROW.json [--classes A,B]
      one cubin; writes its row to ROW.json after every step (internal; used by `all`).

Every launch poisons out[] (0xFF bytes) and resets scratch[] (0xA5 bytes) and compares them with
orig.cubin's outputs from the same process, bit for bit. Needs CuPy (the device image has it).
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time

IN_WORDS = 1 << 20
GAP_PASSES = 4  # passes per gap_<class> launch (the kernel keeps the shortest)
GAP_REPS = 5  # launches per gap kernel and variant
FFMAR_ITERS = 64  # loop iterations of gap_ffmar for timing
FFMAR_RES_ITERS = 16  # ... for the results check
INPUT_SETS = 3
P0 = (0x00012345, 0x9E3779B9, 0x00000007)
SCRATCH_KERNELS = {"res_stg", "res_membar", "gap_stg_32", "gap_stg_96"}
GAP_SCRATCH_WORDS = 96 * 32


def configs(nsm):
    return [("1 warp", 1, 32), ("1 block of 256", 1, 256), ("2 blocks of 1024 per SM", 2 * nsm, 1024)]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return None if n == 0 else (s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2]))


class Device:
    def __init__(self, cp):
        import numpy as np

        self.cp, self.np = cp, np
        self.nsm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
        tmax = 2 * self.nsm * 1024
        self.out = cp.empty(4 * tmax, dtype=cp.uint32)
        self.scratch = cp.empty(max(8 * tmax, GAP_SCRATCH_WORDS), dtype=cp.uint32)
        self.clocks = cp.empty(2 * (tmax // 32), dtype=cp.int64)
        self.inputs = []
        for s in range(INPUT_SETS):
            host = np.random.RandomState(1000 + s).randint(0, 2**32, IN_WORDS, dtype=np.uint64).astype(np.uint32)
            self.inputs.append(cp.asarray(host))

    def launch(self, func, kernel, grid, block, input_set, reps):
        cp, np = self.cp, self.np
        n = grid * block
        self.out.data.memset_async(0xFF, 4 * 4 * n)
        nscr = max(8 * n, GAP_SCRATCH_WORDS) if kernel in SCRATCH_KERNELS else 0
        if nscr:
            self.scratch.data.memset_async(0xA5, 4 * nscr)
        self.clocks.data.memset_async(0xFF, 8 * 2 * max(1, n // 32))
        func((grid,), (block,), (self.out, self.clocks, self.inputs[input_set], self.scratch,
                                 np.uint32(P0[input_set]), np.int32(reps)))
        cp.cuda.runtime.deviceSynchronize()
        out = self.out[:4 * n].get()
        scr = self.scratch[:nscr].get() if nscr else None
        clk = self.clocks[:2 * max(1, n // 32)].get()
        return out, scr, clk


class Module:
    def __init__(self, cp, path):
        self.mod = cp.RawModule(path=path)
        self.funcs = {}

    def __getitem__(self, kernel):
        if kernel not in self.funcs:
            self.funcs[kernel] = self.mod.get_function(kernel)
        return self.funcs[kernel]


def mismatches(a, b):
    n = int((a[0] != b[0]).sum())
    if a[1] is not None:
        n += int((a[1] != b[1]).sum())
    return n


def measure(vdir, fname, row_path, only_classes):
    import cupy as cp

    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    meta = {v.get("file"): v for v in manifest["variants"]}.get(fname, {"name": "orig", "kind": "orig"})
    kind = meta["kind"]
    dev = Device(cp)
    ref = Module(cp, os.path.join(vdir, "orig.cubin"))
    var = Module(cp, os.path.join(vdir, fname))
    row = {"file": fname, "name": meta["name"], "kind": kind, "gap": {}, "res": {}, "ffmar": {}}
    if os.path.exists(row_path):  # continue a row (class-by-class re-runs append to it)
        row = json.load(open(row_path))

    def save():
        json.dump(row, open(row_path, "w"))

    classes = manifest["classes"]
    if kind in ("gap", "orig"):
        for cls, info in classes.items():
            if only_classes and cls not in only_classes:
                continue
            row["gap"][cls] = {"error": "started, did not finish"}
            save()
            k32, k96 = info["gap_kernels"]
            refs = {k: dev.launch(ref[k], k, 1, 32, 0, GAP_PASSES) for k in (k32, k96)}
            b32, b96, slopes, mism = [], [], [], 0
            for _ in range(GAP_REPS):
                o32 = dev.launch(var[k32], k32, 1, 32, 0, GAP_PASSES)
                o96 = dev.launch(var[k96], k96, 1, 32, 0, GAP_PASSES)
                mism += mismatches(o32, refs[k32]) + mismatches(o96, refs[k96])
                b32.append(int(o32[2][0]))
                b96.append(int(o96[2][0]))
                slopes.append((b96[-1] - b32[-1]) / 64.0)
            row["gap"][cls] = {"slopes": slopes, "gap_median": median(slopes), "gap_min": min(slopes),
                               "gap_max": max(slopes), "cycles_32": b32, "cycles_96": b96,
                               "mismatches": mism, "words_checked": GAP_REPS * 2 * 4 * 32}
            save()
    if only_classes:  # a class-by-class re-run of a gap row
        save()
        return
    if kind in ("ffmar", "orig"):
        f32, f96 = manifest["ffmar_kernels"]
        row["ffmar"] = {"error": "started, did not finish"}
        save()
        c32, c96, slopes = [], [], []
        for _ in range(GAP_REPS):
            c32.append(int(dev.launch(var[f32], f32, 1, 32, 0, FFMAR_ITERS)[2][0]))
            c96.append(int(dev.launch(var[f96], f96, 1, 32, 0, FFMAR_ITERS)[2][0]))
            slopes.append((c96[-1] - c32[-1]) / (64.0 * FFMAR_ITERS))
        res = {}
        for k in (f32, f96):
            for cname, grid, block in configs(dev.nsm):
                per_set, words = [], 0
                for s in range(INPUT_SETS):
                    r = dev.launch(ref[k], k, grid, block, s, FFMAR_RES_ITERS)
                    o = dev.launch(var[k], k, grid, block, s, FFMAR_RES_ITERS)
                    per_set.append(mismatches(o, r))
                    words += o[0].size
                res.setdefault(k, {})[cname] = {"grid": grid, "block": block, "mismatches": per_set,
                                                "words_checked": words}
        row["ffmar"] = {"gap": {"slopes": slopes, "gap_median": median(slopes), "gap_min": min(slopes),
                                "gap_max": max(slopes), "cycles_32": c32, "cycles_96": c96},
                        "res": res}
        save()
    if kind in ("res", "orig"):
        kernels = []
        for cls in (meta.get("classes") if kind == "res" else classes):
            for k in classes[cls]["res_kernels"]:
                if k not in kernels:
                    kernels.append(k)
        for k in kernels:
            row["res"][k] = {"error": "started, did not finish"}
            save()
            res = {}
            for cname, grid, block in configs(dev.nsm):
                per_set, words = [], 0
                for s in range(INPUT_SETS):
                    r = dev.launch(ref[k], k, grid, block, s, 1)
                    o = dev.launch(var[k], k, grid, block, s, 1)
                    per_set.append(mismatches(o, r))
                    words += o[0].size + (o[1].size if o[1] is not None else 0)
                res[cname] = {"grid": grid, "block": block, "mismatches": per_set, "words_checked": words}
            row["res"][k] = res
            save()
    save()


def device_info():
    import cupy as cp

    p = cp.cuda.runtime.getDeviceProperties(0)
    return {"name": p["name"].decode() if isinstance(p["name"], bytes) else p["name"],
            "sm_count": p["multiProcessorCount"], "clock_rate_khz": p.get("clockRate"),
            "driver_version": cp.cuda.runtime.driverGetVersion(),
            "runtime_version": cp.cuda.runtime.runtimeGetVersion(), "cupy": cp.__version__}


def child(vdir, fname, row_path, classes, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "one", vdir, fname, row_path]
    if classes:
        cmd += ["--classes", ",".join(classes)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        err = None if p.returncode == 0 else ((p.stderr or p.stdout).strip().splitlines() or [f"exit {p.returncode}"])[-1]
    except subprocess.TimeoutExpired:
        err = f"timed out after {timeout} s"
    row = json.load(open(row_path)) if os.path.exists(row_path) else {"file": fname, "gap": {}, "res": {}, "ffmar": {}}
    return row, err


def unfinished(row):
    return [c for c, g in row.get("gap", {}).items() if "error" in g]


def run_all(a):
    vdir = a.vdir
    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    todo = [("orig.cubin", {"name": "orig", "kind": "orig", "classes": list(manifest["classes"])})]
    pats = a.only.split(",") if a.only else None
    for v in manifest["variants"]:
        if v.get("run") and (not pats or any(fnmatch.fnmatch(v["name"], p) for p in pats)):
            todo.append((v["file"], v))
    if a.dry_run:
        for f, v in todo:
            print(f"{v['name']:22s} {v['kind']:6s} {f}")
        print(f"{len(todo)} runs")
        return
    try:
        import cupy  # noqa: F401
    except Exception as e:  # noqa: BLE001
        sys.exit(f"run_classes.py: CuPy is not importable here ({type(e).__name__}: {e}); run it on the GPU machine")
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "device": device_info(), "command": " ".join(sys.argv),
              "settings": {"gap_passes": GAP_PASSES, "gap_reps": GAP_REPS, "ffmar_iters": FFMAR_ITERS,
                           "ffmar_res_iters": FFMAR_RES_ITERS, "input_sets": INPUT_SETS, "p0": list(P0),
                           "in_words": IN_WORDS, "timeout_s": a.timeout},
              "rows": []}
    t_all = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for f, v in todo:
            t0 = time.time()
            row_path = os.path.join(tmp, f + ".json")
            row, err = child(vdir, f, row_path, None, a.timeout)
            if err:
                row["error"] = err
            if err and v["kind"] in ("gap", "orig"):
                # Re-run the classes the failure cost, each alone, so that one bad class costs one cell.
                missing = [c for c in manifest["classes"] if c not in row.get("gap", {})] + unfinished(row)
                row.setdefault("reruns", {})
                timeouts = 0
                for c in dict.fromkeys(missing):
                    if timeouts >= 2:  # a cubin that hangs whatever runs: do not pay the timeout 14 times
                        row["gap"][c] = {"error": "not re-run: two re-runs of this variant timed out"}
                        row["reruns"][c] = "skipped"
                        continue
                    one_path = os.path.join(tmp, f"{f}.{c}.json")
                    r1, e1 = child(vdir, f, one_path, [c], a.timeout)
                    timeouts += bool(e1 and e1.startswith("timed out"))
                    g = r1.get("gap", {}).get(c, {"error": "no result"})
                    if e1:
                        g = dict(g, error=e1)
                    row["gap"][c] = g
                    row["reruns"][c] = e1 or "ok"
            row.update({"name": v["name"], "kind": v["kind"], "stall": v.get("stall"), "yield": v.get("yield"),
                        "reuse": v.get("reuse"), "classes": v.get("classes"), "seconds": round(time.time() - t0, 1)})
            result["rows"].append(row)
            json.dump(result, open(a.out, "w"), indent=1)
            print(f"{v['name']:22s} {row['seconds']:5.1f}s {summary(row)}" + (f"  ERROR {err}" if err else ""), flush=True)
    result["seconds_total"] = round(time.time() - t_all, 1)
    json.dump(result, open(a.out, "w"), indent=1)
    print(f"done: {len(todo)} runs in {result['seconds_total']} s -> {a.out}")


def summary(row):
    parts = []
    for c, g in row.get("gap", {}).items():
        if "gap_median" in g:
            parts.append(f"{c} {g['gap_median']:.1f}" + ("!" if g["mismatches"] else ""))
    bad = sum(sum(x["mismatches"]) for k in row.get("res", {}).values() for x in k.values() if isinstance(x, dict)
              and "mismatches" in x)
    if row.get("res"):
        parts.append(f"res mismatches {bad}")
    f = row.get("ffmar", {})
    if "gap" in f:
        fb = sum(sum(x["mismatches"]) for k in f["res"].values() for x in k.values())
        parts.append(f"ffmar gap {f['gap']['gap_median']:.2f} mismatches {fb}")
    return ", ".join(parts)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("all", "one"):
        sys.exit(__doc__)
    ap = argparse.ArgumentParser(prog="run_classes.py " + sys.argv[1])
    if sys.argv[1] == "all":
        ap.add_argument("vdir")
        ap.add_argument("out")
        ap.add_argument("--only")
        ap.add_argument("--timeout", type=float, default=60)
        ap.add_argument("--dry-run", action="store_true")
        a = ap.parse_args(sys.argv[2:])
        if not os.path.isfile(os.path.join(a.vdir, "manifest.json")):
            sys.exit(f"run_classes.py: no {a.vdir}/manifest.json (run make_variants.py first)")
        run_all(a)
    else:
        ap.add_argument("vdir")
        ap.add_argument("file")
        ap.add_argument("row")
        ap.add_argument("--classes")
        a = ap.parse_args(sys.argv[2:])
        try:
            import cupy  # noqa: F401
        except Exception as e:  # noqa: BLE001
            sys.exit(f"run_classes.py: CuPy is not importable here ({type(e).__name__}: {e})")
        measure(a.vdir, a.file, a.row, set(a.classes.split(",")) if a.classes else None)


if __name__ == "__main__":
    main()
