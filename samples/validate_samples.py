#!/usr/bin/env python3
"""Validate the samples' launch specs on a GPU: launch each cubin as its spec says (CuPy),
compare the output with a reference, check determinism (two launches, bitwise), and time it.

    python3 samples/validate_samples.py [--cubin-dir DIR] [--nvcc nvcc] [--only NAME ...]

Specs: samples/cuda/*.launch.json and samples/triton/captured/*.launch.json.  A spec's cubin
is looked up next to the spec, then in --cubin-dir (e.g. build/samples); CUDA samples missing
there are compiled with nvcc for the GPU's arch.  Without a GPU, --dry-run checks the specs
against the cubins' KPARAM_INFO only.  Output: a plain-text report on stdout.
"""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cubin_params  # noqa: E402
import launch_spec  # noqa: E402

SEED = 1234


# ---- references (cupy arrays in, fp32/fp64 cupy array out) -----------------------------------
def _leaky(x, alpha):
    import cupy as cp
    return cp.where(x > 0, x, x * alpha)


def ref_hgemm(a, s):
    M, N, K = s["M"], s["N"], s["K"]
    A = a["A"].reshape(M, K).astype("float32")
    B = a["B"].reshape(N, K).astype("float32")
    return "C", _leaky(A @ B.T, s["alpha"])


def ref_sgemm(a, s):
    M, N, K = s["M"], s["N"], s["K"]
    A = a["A"].reshape(M, K).astype("float64")
    B = a["B"].reshape(K, N).astype("float64")
    return "C", _leaky(A @ B, s["alpha"])


def _attention(q, k, v, scale):
    import cupy as cp
    q, k, v = (t.astype("float32") for t in (q, k, v))
    out = cp.empty_like(q)
    for h in range(q.shape[0]):  # per head keeps the score matrix small
        sc = (q[h] @ k[h].T) * scale
        sc -= sc.max(axis=1, keepdims=True)
        p = cp.exp(sc)
        p /= p.sum(axis=1, keepdims=True)
        out[h] = p @ v[h]
    return out


def ref_flash(a, s):
    S = s["seq_len"]
    shape = (-1, S, 64)
    return "O", _attention(a["Q"].reshape(shape), a["K"].reshape(shape), a["V"].reshape(shape),
                           s["softmax_scale"])


def ref_rmsnorm(a, s):
    import cupy as cp
    x = a["x"].reshape(s["rows"], -1).astype("float32")
    w = a["w"].astype("float32")
    r = cp.sqrt((x * x).mean(axis=1, keepdims=True) + s["eps"])
    return "y", x / r * w


def ref_scan(a, s):
    import cupy as cp
    ch, steps = s["channels"], s["steps"]
    x = a["x"].reshape(steps, ch).astype("float64")
    c = a["coef"].astype("float64")
    A, C, B = c[0:8], c[8:16], c[16:].reshape(16, 8)
    h = cp.zeros((8, ch), dtype="float64")
    y = cp.empty((steps, ch), dtype="float64")
    for t in range(steps):
        h = A[:, None] * h + B[t % 16][:, None] * x[t][None, :]
        y[t] = (C[:, None] * h).sum(axis=0)
    return "y", y


def ref_triton_gemm(a, s):
    M, N, K = s["M"], s["N"], s["K"]
    A = a["a_ptr"].reshape(M, K).astype("float32")
    B = a["b_ptr"].reshape(K, N).astype("float32")
    return "c_ptr", _leaky(A @ B, s["alpha"])


def ref_triton_attention(a, s):
    S = s["seq_len"]
    shape = (-1, S, 64)
    return "o_ptr", _attention(a["q_ptr"].reshape(shape), a["k_ptr"].reshape(shape),
                               a["v_ptr"].reshape(shape), s["sm_scale"])


def ref_trio(a, s):
    x = a["x"].astype("float64")
    return "y", x * x + a["b"].astype("float64")


# name -> (reference, max allowed error relative to max |reference|)
REFERENCES = {
    "hgemm_leakyrelu": (ref_hgemm, 2e-3),
    "sgemm_leakyrelu": (ref_sgemm, 1e-5),
    "flash_attn_fwd": (ref_flash, 1e-2),
    "rmsnorm": (ref_rmsnorm, 2e-3),
    "big_unrolled": (ref_scan, 1e-4),
    "huge_unrolled": (ref_scan, 1e-4),
    "gemm_leakyrelu": (ref_triton_gemm, 2e-3),
    "attention_fwd": (ref_triton_attention, 1e-2),
    "elementwise_trio": (ref_trio, 1e-6),
}


def find_specs():
    return sorted(glob.glob(os.path.join(HERE, "cuda", "*.launch.json"))) + \
        sorted(glob.glob(os.path.join(HERE, "multi_kernel", "*.launch.json"))) + \
        sorted(glob.glob(os.path.join(HERE, "triton", "captured", "*.launch.json")))


def locate_cubin(spec_path, spec, cubin_dir, nvcc, arch, build_dir):
    name = spec["cubin"]
    cands = [os.path.join(os.path.dirname(spec_path), name)]
    if cubin_dir:
        cands.append(os.path.join(cubin_dir, name))
        cands.append(os.path.join(cubin_dir, "multi_kernel", name))
    for c in cands:
        if os.path.exists(c):
            return c, "prebuilt"
    src = os.path.join(HERE, "cuda", spec["kernel"] + ".cu")
    if nvcc and os.path.exists(src):
        out = os.path.join(build_dir, f"{spec['kernel']}.sm_{arch}.cubin")
        subprocess.run([nvcc, "-cubin", "-O3", f"-arch=sm_{arch}", "-o", out, src], check=True)
        return out, f"compiled here for sm_{arch}"
    return None, "missing"


def scalar_value(p):
    import numpy as np
    return np.dtype(launch_spec.NP_DTYPE[p["dtype"]]).type(p["value"])


def run_spec(spec_path, spec, cubin, log, timing_iters=20):
    import cupy as cp
    import numpy as np
    rng = np.random.default_rng(SEED)
    host, dev, args, scalars = {}, {}, [], {}
    for p in spec["params"]:
        if p["kind"] == "buffer":
            h = launch_spec.host_array(p, rng)
            host[p["name"]] = h
            d = cp.asarray(h)
            dev[p["name"]] = d
            args.append(d)
        elif p["kind"] == "scalar":
            v = scalar_value(p)
            scalars[p["name"]] = v.item()
            args.append(v)
        else:
            args.append(np.uint64(0))
    mod = cp.RawModule(path=cubin)
    fn = mod.get_function(spec["kernel"])
    dyn = int(spec.get("dynamic_shared", 0))
    drv = cp.cuda.driver
    if dyn > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
        try:
            drv.funcSetAttribute(fn.ptr, 8, dyn)
        except Exception:
            fn.max_dynamic_shared_size_bytes = dyn

    def attr(a, fallback):  # CU_FUNC_ATTRIBUTE_NUM_REGS = 4, SHARED_SIZE_BYTES = 1
        try:
            return drv.funcGetAttribute(a, fn.ptr)
        except Exception:
            return getattr(fn, fallback, "?")
    grid = tuple(spec["grid"]) + (1,) * (3 - len(spec["grid"]))
    block = tuple(spec["block"]) + (1,) * (3 - len(spec["block"]))
    log(f"  regs {attr(4, 'num_regs')}, static smem {attr(1, 'shared_size_bytes')} B, dynamic smem {dyn} B, "
        f"grid {grid}, block {block}")

    outputs = [p["name"] for p in spec["params"] if p.get("role") in ("output", "inout")]

    def reset():
        for p in spec["params"]:
            if p.get("role") in ("output", "inout"):
                dev[p["name"]].set(host[p["name"]])

    reset()
    fn(grid, block, tuple(args), shared_mem=dyn)
    cp.cuda.Device().synchronize()
    first = {n: dev[n].copy() for n in outputs}
    reset()
    fn(grid, block, tuple(args), shared_mem=dyn)
    cp.cuda.Device().synchronize()
    same = all(bool((first[n].view(cp.uint8) == dev[n].view(cp.uint8)).all()) for n in outputs)
    log(f"  deterministic (two launches bitwise equal): {'yes' if same else 'NO'}")

    ok = same
    ref = REFERENCES.get(spec["name"])
    if ref is None:
        log("  no reference for this spec: output not checked")
    else:
        fn_ref, tol = ref
        inputs = {n: dev[n] for n in dev}
        out_name, expect = fn_ref(inputs, scalars)
        got = first[out_name].astype(expect.dtype).reshape(expect.shape)
        nan = int(cp.isnan(got).sum())
        err = float(cp.abs(got - expect).max())
        scale = float(cp.abs(expect).max())
        rel = err / scale if scale > 0 else err
        good = nan == 0 and rel <= tol
        ok = ok and good
        log(f"  output {out_name}: max abs err {err:.3e}, max |ref| {scale:.3e}, rel {rel:.2e} "
            f"(tolerance {tol:.0e}), NaN {nan} -> {'PASS' if good else 'FAIL'}")
        if not good:  # where the errors are, to help fix the kernel
            bad = cp.abs(got - expect) > tol * scale
            idx = cp.argwhere(bad.reshape(expect.shape))
            log(f"  wrong elements: {int(bad.sum())} of {bad.size}; first {idx[:8].get().tolist()}")
        del expect, got

    # timing: median of individual launches (cupy events), after warm-up
    for _ in range(3):
        fn(grid, block, tuple(args), shared_mem=dyn)
    times = []
    for _ in range(timing_iters):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        fn(grid, block, tuple(args), shared_mem=dyn)
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
    times.sort()
    med = times[len(times) // 2]
    tf = spec.get("flops", 0) / (med * 1e-6) / 1e12
    gbs = spec.get("bytes", 0) / (med * 1e-6) / 1e9
    log(f"  time: median {med:.1f} us of {timing_iters} (min {times[0]:.1f}, max {times[-1]:.1f}); "
        f"{tf:.1f} TFLOP/s, {gbs:.0f} GB/s")
    del dev, args
    cp.get_default_memory_pool().free_all_blocks()
    return ok, med


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubin-dir", default=None)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: check specs against cubins only")
    args = ap.parse_args()

    def log(msg):
        print(msg, flush=True)

    arch = 90
    if not args.dry_run:
        import cupy as cp
        props = cp.cuda.runtime.getDeviceProperties(0)
        dev_name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        arch = props["major"] * 10 + props["minor"]
        log(f"sassx sample validation, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}")
        log(f"device: {dev_name} (sm_{arch}), driver {cp.cuda.runtime.driverGetVersion()}, "
            f"runtime {cp.cuda.runtime.runtimeGetVersion()}, cupy {cp.__version__}, seed {SEED}")
    build_dir = tempfile.mkdtemp(prefix="sassx-samples-")
    failures = 0
    for path in find_specs():
        spec = json.load(open(path))
        if args.only and spec["name"] not in args.only:
            continue
        rel = os.path.relpath(path, os.path.dirname(HERE))
        log(f"\n{spec['name']} ({rel}, kernel {spec['kernel']})")
        try:
            cubin, how = locate_cubin(path, spec, args.cubin_dir, None if args.dry_run else args.nvcc,
                                      arch, build_dir)
            if cubin is None:
                log("  cubin not found: SKIP")
                failures += 1
                continue
            log(f"  cubin {os.path.basename(cubin)} ({how})")
            problems = cubin_params.check_spec(open(cubin, "rb").read(), spec)
            log("  params match KPARAM_INFO: " + ("yes" if not problems else "NO: " + "; ".join(problems)))
            if problems:
                failures += 1
            if args.dry_run:
                continue
            ok, _ = run_spec(path, spec, cubin, log)
            if not ok:
                failures += 1
        except Exception as e:  # report and continue with the next spec
            import traceback
            log("  ERROR: " + "".join(traceback.format_exception_only(type(e), e)).strip())
            traceback.print_exc()
            failures += 1
    log(f"\n{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
