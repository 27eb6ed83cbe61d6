#!/usr/bin/env python3
"""GPU evidence for sassx's legality model (docs/legality.md).

For every sample: rebuild each variant cubin from the byte patches `sassx-cli variants` wrote (the exact
bytes sassx's rewriter produced), run it on K fresh random input sets and compare every output buffer
bitwise with the original kernel's outputs on the same inputs. Outputs are poisoned (0xFF bytes) before
each launch so unwritten elements are caught. Each variant runs in a worker process: a fault kills the
CUDA context, so the worker reports what it can, exits, and a fresh one takes over (several workers run
side by side to amortise restarts). A variant that does not finish in --timeout seconds is a hang.

usage: run_variants.py --data DIR --out results.json [--inputs 3] [--workers 4]
DIR holds <sample>.sm_90.cubin, <sample>.launch.json and <sample>.<rule>.jsonl (rule: sassx, sip).
"""
import argparse
import warnings
import datetime
import glob
import json
import multiprocessing as mp
import os
import queue
import sys
import tempfile
import time

POISON = 0xFF


def device_arrays(cp, spec, seed):
    """Input/output device buffers for one input set, generated on the GPU from `seed`."""
    import numpy as np
    rs = cp.random.RandomState(seed)
    np_dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8,
                "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64,
                "u64": np.uint64}
    bufs, args, outputs = {}, [], []
    for p in spec["params"]:
        kind = p["kind"]
        if kind == "null":
            args.append(np.uint64(0))
            continue
        if kind == "scalar":
            args.append(np.dtype(np_dtype[p["dtype"]]).type(p["value"]))
            continue
        dt, n = np_dtype[p["dtype"]], int(p["count"])
        init = p.get("init", {"kind": "zeros"})
        k = init["kind"]
        if k == "zeros":
            a = cp.zeros(n, dtype=dt)
        elif k == "constant":
            a = cp.full(n, init["value"], dtype=dt)
        elif k == "uniform":
            a = rs.uniform(init["low"], init["high"], n, dtype=cp.float32).astype(dt)
        elif k == "normal":
            a = rs.normal(init["mean"], init["std"], n, dtype=cp.float32).astype(dt)
        elif k == "randint":
            a = rs.randint(init["low"], init["high"], n).astype(dt)
        elif k == "iota":
            a = cp.arange(n).astype(dt)
        else:
            raise ValueError("unknown init " + k)
        bufs[p["name"]] = a
        args.append(a)
        if p.get("role") in ("output", "inout"):
            outputs.append((p["name"], a, a.copy()))  # (name, buffer, initial value for inout)
    return args, outputs


def worker(spec_path, cubin_path, n_inputs, tasks, results):
    import cupy as cp
    spec = json.load(open(spec_path))
    grid = tuple(spec["grid"]) + (1,) * (3 - len(spec["grid"]))
    block = tuple(spec["block"]) + (1,) * (3 - len(spec["block"]))
    dyn = int(spec.get("dynamic_shared", 0))
    roles = {p["name"]: p.get("role") for p in spec["params"]}
    sets = [device_arrays(cp, spec, 1000 + s) for s in range(n_inputs)]

    def launch(path):
        mod = cp.RawModule(path=path)
        fn = mod.get_function(spec["kernel"])
        if dyn > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = dyn
        outs = []
        for args, outputs in sets:
            for name, buf, init in outputs:
                if roles[name] == "inout":
                    buf[...] = init
                else:
                    buf.view(cp.uint8).fill(POISON)
            fn(grid, block, tuple(args), shared_mem=dyn)
            cp.cuda.Device().synchronize()
            outs.append([buf.view(cp.uint8).copy() for _, buf, _ in outputs])
        return outs

    # References live on the host and inputs are checksummed: a broken candidate that writes out of
    # bounds can corrupt device memory without faulting, and must not make later candidates look wrong.
    reference = [[o.get() for o in outs] for outs in launch(cubin_path)]

    def input_sums():
        sums = []
        for args, outputs in sets:
            out_ids = {id(buf) for _, buf, _ in outputs}
            for a in args:
                if isinstance(a, cp.ndarray) and id(a) not in out_ids:
                    sums.append(int(a.view(cp.uint32 if a.nbytes % 4 == 0 else cp.uint8).astype(cp.uint64).sum()))
        return sums

    pristine = input_sums()
    results.put(("ready", None, None))
    original = open(cubin_path, "rb").read()
    tmpdir = tempfile.mkdtemp()
    while True:
        item = tasks.get()
        if item is None:
            return
        vid, patches = item
        data = bytearray(original)
        for off, hexs in patches:
            b = bytes.fromhex(hexs)
            data[off:off + len(b)] = b
        # A fresh file name per candidate: module loaders may cache by path.
        path = os.path.join(tmpdir, "v%d.cubin" % vid)
        with open(path, "wb") as f:
            f.write(data)
        results.put(("started", vid, None))
        try:
            outs = launch(path)
        except Exception as e:  # a fault leaves the context unusable: report and let a fresh worker go on
            results.put(("fault", vid, str(e).splitlines()[0][:200]))
            results.close()
            results.join_thread()
            os._exit(3)
        bad = 0
        for ref_set, out_set in zip(reference, outs):
            for r, o in zip(ref_set, out_set):
                if not (r == o.get()).all():
                    bad += 1
        if input_sums() != pristine:
            # This candidate wrote over our inputs: it is wrong, and this worker's state is no longer clean.
            results.put(("mismatch", vid, "overwrote input buffers"))
            results.close()
            results.join_thread()
            os._exit(4)
        if bad:
            # Broken candidates can corrupt device state without faulting (even code or pool memory we do
            # not own): a mismatch counts only once it reproduces in a fresh process, so this worker
            # exits and the variant is retried first thing in a new one.
            results.put(("suspect", vid, bad))
            results.close()
            results.join_thread()
            os._exit(5)
        os.unlink(path)
        results.put(("match", vid, 0))


def run_sample(name, data_dir, rule, n_inputs, n_workers, timeout, log, budget=None):
    spec_path = os.path.join(data_dir, name + ".launch.json")
    cubin = os.path.join(data_dir, name + ".sm_90.cubin")
    lines = [json.loads(l) for l in open(os.path.join(data_dir, f"{name}.{rule}.jsonl"))]
    pending = list(range(len(lines)))[::-1]
    outcome = {}
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    workers = {}  # id -> (process, task queue, current variant, start time)
    next_id = 0

    def start():
        nonlocal next_id
        q = ctx.Queue()
        p = ctx.Process(target=worker, args=(spec_path, cubin, n_inputs, q, results), daemon=True)
        p.start()
        workers[next_id] = [p, q, None, None, False]
        next_id += 1

    for _ in range(min(n_workers, len(lines))):
        start()
    owner = {}
    retried = set()
    recovered = 0
    t0 = time.time()
    stopped = False
    while len(outcome) < len(lines):
        if budget and time.time() - t0 > budget:
            stopped = True  # report what finished; the rest is counted as not run
            break
        # feed idle, ready workers
        for wid, w in list(workers.items()):
            p, q, cur, since, ready = w[:5]
            if ready and cur is None and pending and p.is_alive():
                vid = pending.pop()
                w[2], w[3] = vid, time.time()
                owner[vid] = wid
                q.put((vid, lines[vid]["patches"]))
        try:
            kind, vid, info = results.get(timeout=0.5)
        except queue.Empty:
            kind = None
        if kind == "ready":
            for w in workers.values():
                if not w[4] and w[2] is None:
                    w[4] = True
                    break
        elif kind == "started":
            pass
        elif kind in ("match", "mismatch"):
            outcome[vid] = (kind, info)
            if len(outcome) % 100 == 0:
                log(f"  {name} {rule}: {len(outcome)}/{len(lines)} done, {time.time() - t0:.0f} s")
            if kind == "match" and vid in retried:
                recovered += 1  # failed in a used worker, passed in a fresh one
            if owner[vid] in workers:
                workers[owner[vid]][2] = None
        elif kind == "suspect":
            if vid in retried:
                outcome[vid] = ("mismatch", info)
            else:
                retried.add(vid)
                pending.append(vid)
            w = workers.pop(owner[vid], None)
            if w:
                w[0].join(5)
            start()
        elif kind in ("fault", "contaminated"):
            # Faults too are confirmed in a fresh process: an earlier candidate may have corrupted state.
            wid = owner[vid]
            if vid in retried:
                outcome[vid] = ("fault" if kind == "fault" else "mismatch", info)
            else:
                retried.add(vid)
                pending.append(vid)
            w = workers.pop(wid, None)
            if w:
                w[0].join(5)
            if pending:
                start()
        # hangs and dead workers
        for wid, w in list(workers.items()):
            p, q, cur, since, ready = w[:5]
            if cur is not None and time.time() - since > timeout:
                p.kill()
                outcome[cur] = ("hang", f"no result within {timeout} s")
                del workers[wid]
                if pending:
                    start()
            elif not p.is_alive() and cur is not None and cur not in outcome and cur not in pending:
                # Its last message may still be in the queue: give it 3 s before calling it a crash.
                if len(w) < 6:
                    w.append(time.time())
                    continue
                if time.time() - w[5] < 3:
                    continue
                outcome[cur] = ("fault", "worker died (exit %s)" % p.exitcode)
                del workers[wid]
                if pending:
                    start()
            elif not p.is_alive() and not ready:
                log(f"  worker failed to start (exit {p.exitcode})")
                del workers[wid]
                if not workers:
                    raise RuntimeError("workers cannot start")
            elif not p.is_alive() and cur is None:
                del workers[wid]  # exited on purpose after a candidate corrupted its state
                if pending:
                    start()
    for w in workers.values():
        w[1].put(None)
        if stopped:
            w[0].kill()
    counts = {"variants": len(outcome), "match": 0, "mismatch": 0, "fault": 0, "hang": 0}
    if stopped:
        counts["generated"] = len(lines)
        counts["stopped_by_time_budget"] = True
    failures = []
    for vid, (kind, info) in sorted(outcome.items()):
        counts[kind] += 1
        if kind != "match":
            failures.append({"name": lines[vid]["name"], "outcome": kind, "detail": info,
                             "legal_by_sassx": lines[vid].get("legal"), "hazard": lines[vid].get("hazard"),
                             "edits": lines[vid]["edits"]})
    counts["sassx_legal"] = sum(1 for vid in outcome if lines[vid].get("legal"))
    counts["seconds"] = round(time.time() - t0, 1)
    counts["failed_in_used_worker_but_passed_fresh"] = recovered
    every = {lines[vid]["name"]: [kind, lines[vid].get("legal")] for vid, (kind, info) in sorted(outcome.items())}
    return counts, failures, every


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--inputs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--rules", default="sassx,stalls,sip")
    ap.add_argument("--budget", type=float, default=0, help="seconds per sample and rule; stop and report what finished")
    ap.add_argument("--samples", default="", help="comma-separated sample names (default: all in --data)")
    ap.add_argument("--keep-failures", type=int, default=50, help="failures listed with their edits")
    ap.add_argument("--every-outcome", action="store_true", help="list every variant's outcome (bisection)")
    args = ap.parse_args()
    import cupy as cp
    props = cp.cuda.runtime.getDeviceProperties(0)
    report = {"device": props["name"].decode(), "date": datetime.date.today().isoformat(),
              "driver": cp.cuda.runtime.driverGetVersion(), "inputs_per_variant": args.inputs,
              "comparison": "bitwise, every output buffer, outputs poisoned with 0xFF before each launch",
              "samples": {}}
    def log(m):
        print(m, flush=True)
    names = sorted(os.path.basename(p)[:-len(".launch.json")] for p in glob.glob(os.path.join(args.data, "*.launch.json")))
    if args.samples:
        names = [n for n in names if n in args.samples.split(",")]
    for name in names:
        report["samples"][name] = {}
        for rule in args.rules.split(","):
            if not os.path.exists(os.path.join(args.data, f"{name}.{rule}.jsonl")):
                continue
            counts, failures, every = run_sample(name, args.data, rule, args.inputs, args.workers, args.timeout, log,
                                               args.budget or None)
            report["samples"][name][rule] = {"counts": counts, "failures": failures[:args.keep_failures]}
            if args.every_outcome:
                report["samples"][name][rule]["outcomes"] = every
            log(f"{name} {rule}: {counts}")
            json.dump(report, open(args.out, "w"), indent=1)
    json.dump(report, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
