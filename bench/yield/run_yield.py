#!/usr/bin/env python3
"""Measures the stall x yield variants written by yield-variants (bench/yield/README.md) on the GPU.

  run_yield.py all VARIANT_DIR OUT.json    every variant, each in its own process (a variant that
                                           faults or hangs costs only its own row)
  run_yield.py one VARIANT_DIR FILE        one variant; prints its JSON row on stdout

Needs CuPy (the device image has it). Every launch checks its outputs against the unmodified cubin's
(orig.cubin) bit for bit, so a broken encoding shows up as mismatches, not as a timing.
"""
import json
import os
import subprocess
import sys
import time

GAP_FAMILIES = {
    # family: (kernel prefix, dtype of out, params (p0, p1))
    "ffma": ("gap_ffma_", "float32", (1.0, 0.5)),
    "fadd": ("gap_fadd_", "float32", (0.001, 1.01)),
    "iadd3": ("gap_iadd3_", "uint32", (0x9E3779B9, 0)),
}
GAP_SIZES = (64, 192)
GAP_ITERS = 64
GAP_REPS = 9
RAW_KERNELS = ("raw_ffma", "raw_iadd3", "raw_imad")
RAW_ITERS = 64
RAW_SEEDS = 5


def gap_configs(nsm):
    # (name, warps per SM sub-partition, grid, block); an SM has 4 sub-partitions and warp w of a
    # block runs on sub-partition w % 4, so a block of 128*W threads puts W warps on each.
    return [
        ("1 warp", 0, 1, 32),
        ("1/SMSP", 1, 1, 128),
        ("2/SMSP", 2, 1, 256),
        ("4/SMSP", 4, 1, 512),
        ("8/SMSP", 8, 1, 1024),
        ("16/SMSP", 16, 2 * nsm, 1024),
    ]


def raw_configs(nsm):
    return [
        ("1 warp", 1, 32),
        ("1/SMSP x all SMs", nsm, 128),
        ("16/SMSP x all SMs", 2 * nsm, 1024),
    ]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


class Launcher:
    def __init__(self, cp, path):
        self.cp = cp
        self.mod = cp.RawModule(path=path)
        self.funcs = {}

    def run(self, kernel, dtype, grid, block, p0, p1, iters):
        cp = self.cp
        import numpy as np

        f = self.funcs.get(kernel) or self.funcs.setdefault(kernel, self.mod.get_function(kernel))
        n = grid * block
        out = cp.full(n, 0xFFFFFFFF, dtype=cp.uint32).view(dtype)  # poison: NaN / 0xFFFFFFFF
        clocks = cp.full(3 * (n // 32), -1, dtype=cp.int64)
        if dtype == "float32":
            args = (out, clocks, np.float32(p0), np.float32(p1), np.int32(iters))
        else:
            args = (out, clocks, np.uint32(p0), np.uint32(p1), np.int32(iters))
        f((grid,), (block,), args)
        cp.cuda.runtime.deviceSynchronize()
        c = clocks.get().reshape(-1, 3)
        if (c[:, 0] < 0).any():
            raise RuntimeError(f"{kernel}: a warp wrote no clocks")
        return out.get().view("uint32"), (c[:, 1] - c[:, 0]).tolist(), c.tolist()


def sm_spans(clocks):
    """Per SM: (cycles from the first warp's start to the last warp's end, warps on it)."""
    by_sm = {}
    for t0, t1, sm in clocks:
        lo, hi, n = by_sm.get(sm, (t0, t1, 0))
        by_sm[sm] = (min(lo, t0), max(hi, t1), n + 1)
    return [(hi - lo, n) for lo, hi, n in by_sm.values()]


def measure_one(vdir, fname):
    import cupy as cp

    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    edited = {k["kernel"]: k["edited_count"] for k in manifest["kernels"]}
    nsm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    var = Launcher(cp, os.path.join(vdir, fname))
    ref = Launcher(cp, os.path.join(vdir, "orig.cubin"))
    row = {"file": fname, "gap": {}, "raw": {}}

    for fam, (prefix, dtype, (p0, p1)) in GAP_FAMILIES.items():
        k64, k192 = prefix + "64", prefix + "192"
        n_diff = edited[k192] - edited[k64]
        res = {}
        for cname, wps, grid, block in gap_configs(nsm):
            refs = {k: ref.run(k, dtype, grid, block, p0, p1, GAP_ITERS)[0] for k in (k64, k192)}
            gaps, span_gaps, per_ins, spread, warps_sm, mism = [], [], [], [], [], 0
            for _ in range(GAP_REPS):
                o64, d64, c64 = var.run(k64, dtype, grid, block, p0, p1, GAP_ITERS)
                o192, d192, c192 = var.run(k192, dtype, grid, block, p0, p1, GAP_ITERS)
                mism += int((o64 != refs[k64]).sum()) + int((o192 != refs[k192]).sum())
                m64, m192 = median(d64), median(d192)
                gaps.append((m192 - m64) / (n_diff * GAP_ITERS))
                # Span of all warps of an SM: with greedy (unfair) issue, single warps finish early and
                # their own deltas understate what the SM needs; the span does not.
                s64, s192 = sm_spans(c64), sm_spans(c192)
                span_gaps.append((median([x for x, _ in s192]) - median([x for x, _ in s64]))
                                 / (n_diff * GAP_ITERS))
                warps_sm.append(median([n for _, n in s192]))
                per_ins.append(m192 / (edited[k192] * GAP_ITERS))
                spread.append((max(d192) - min(d192)) / m192)
            res[cname] = {
                "warps_per_smsp": wps,
                "grid": grid,
                "block": block,
                "gap_median": median(gaps),
                "gap_min": min(gaps),
                "gap_max": max(gaps),
                "gaps": gaps,
                "span_gap_median": median(span_gaps),
                "span_gap_min": min(span_gaps),
                "span_gap_max": max(span_gaps),
                "warps_per_sm": median(warps_sm),
                "cycles_per_instr_192": median(per_ins),
                "warp_spread_192": median(spread),
                "mismatches": mism,
                "outputs_checked": 2 * GAP_REPS * grid * block,
            }
        row["gap"][fam] = res

    import random

    for kernel in RAW_KERNELS:
        dtype = "float32" if kernel == "raw_ffma" else "uint32"
        res = {}
        for cname, grid, block in raw_configs(nsm):
            rng = random.Random(1234)
            mism, total, cyc = 0, 0, []
            for _ in range(RAW_SEEDS):
                if dtype == "float32":
                    p0, p1 = 1.0 + rng.uniform(1e-4, 1e-3), rng.uniform(0.1, 1.0)
                else:
                    p0, p1 = rng.getrandbits(32), rng.getrandbits(32) | 1
                r, _, _ = ref.run(kernel, dtype, grid, block, p0, p1, RAW_ITERS)
                o, d, _ = var.run(kernel, dtype, grid, block, p0, p1, RAW_ITERS)
                mism += int((o != r).sum())
                total += o.size
                cyc.append(median(d) / (RAW_ITERS * 32))
            res[cname] = {
                "grid": grid,
                "block": block,
                "mismatched_threads": mism,
                "threads_checked": total,
                "cycles_per_step": median(cyc),
            }
        row["raw"][kernel] = res
    return row


def device_info():
    import cupy as cp

    p = cp.cuda.runtime.getDeviceProperties(0)
    return {
        "name": p["name"].decode() if isinstance(p["name"], bytes) else p["name"],
        "sm_count": p["multiProcessorCount"],
        "clock_rate_khz": p.get("clockRate"),
        "driver_version": cp.cuda.runtime.driverGetVersion(),
        "runtime_version": cp.cuda.runtime.runtimeGetVersion(),
        "cupy": cp.__version__,
    }


def run_all(vdir, out_path):
    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    files = ["orig.cubin"] + [v["file"] for v in manifest["variants"]]
    meta = {v["file"]: v for v in manifest["variants"]}
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "device": device_info(),
        "command": " ".join(sys.argv),
        "gap_iters": GAP_ITERS,
        "gap_reps": GAP_REPS,
        "raw_iters": RAW_ITERS,
        "raw_seeds": RAW_SEEDS,
        "manifest": manifest,
        "rows": [],
    }
    for f in files:
        t0 = time.time()
        try:
            p = subprocess.run(
                [sys.executable, __file__, "one", vdir, f], capture_output=True, text=True, timeout=240
            )
            if p.returncode == 0:
                row = json.loads(p.stdout)
            else:
                row = {"file": f, "error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
        except subprocess.TimeoutExpired:
            row = {"file": f, "error": ["timed out after 240 s"]}
        bits = meta.get(f, {"stall": None, "yield": None})
        row.update({"stall": bits["stall"], "yield": bits["yield"]})
        row["seconds"] = round(time.time() - t0, 1)
        result["rows"].append(row)
        g = row.get("gap", {}).get("fadd", {}).get("1 warp", {})
        h = row.get("gap", {}).get("fadd", {}).get("8/SMSP", {})
        print(f"{f:14s} {row['seconds']:5.1f}s  fadd gap: 1 warp {g.get('gap_median', float('nan')):6.2f}, "
              f"8/SMSP span {h.get('span_gap_median', float('nan')):6.2f}"
              + (f"  ERROR {row['error']}" if "error" in row else ""), flush=True)
        json.dump(result, open(out_path, "w"), indent=1)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "all":
        run_all(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "one":
        print(json.dumps(measure_one(sys.argv[2], sys.argv[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
