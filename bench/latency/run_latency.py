#!/usr/bin/env python3
"""Runs the timing-model probe variants written by latency-variants (bench/latency/README.md).

  run_latency.py all VARIANT_DIR OUT.json     every variant; workers run chunks in-process and a
                                              variant that faults or hangs costs only its own row
  run_latency.py chunk VARIANT_DIR FIRST LAST worker: variants FIRST..LAST-1, one JSON line each

Every launch poisons `out` and compares all of it bit for bit with orig.cubin's output for the same
kernel, configuration and input set. Needs CuPy.
"""
import json
import os
import subprocess
import sys
import time

SEEDS = (1, 2, 3)  # input sets: `in` = 1 << 16 random words from this seed, and the seed parameter
REPS = 2
ITERS = 64
CHUNK = 60
NWORDS = 1 << 16


def configs(nsm):
    # (name, grid, block): an SM has 4 sub-partitions and warp w of a block issues on w % 4.
    return [("1 warp", 1, 32), ("1/SMSP x all SMs", nsm, 128), ("16/SMSP x all SMs", 2 * nsm, 1024)]


class Runner:
    def __init__(self, vdir):
        import cupy as cp
        import numpy as np

        self.cp, self.np, self.vdir = cp, np, vdir
        dev = cp.cuda.Device()
        self.nsm = dev.attributes["MultiProcessorCount"]
        self.inputs = {}
        for s in SEEDS:
            rng = np.random.RandomState(s)
            self.inputs[s] = cp.asarray(rng.randint(0, 2**32, size=NWORDS, dtype=np.uint64).astype(np.uint32))
        self.orig = cp.RawModule(path=os.path.join(vdir, "orig.cubin"))
        self.refs = {}

    def launch(self, module, kernel, grid, block, seed):
        cp, np = self.cp, self.np
        f = module.get_function(kernel)
        out = cp.full(8 * grid * block, 0xFFFFFFFF, dtype=cp.uint32)
        f((grid,), (block,), (out, self.inputs[seed], np.uint32(seed * 0x9E3779B9 & 0xFFFFFFFF), np.int32(ITERS)))
        cp.cuda.runtime.deviceSynchronize()
        return out

    def ref(self, kernel, cfg, seed):
        key = (kernel, cfg[0], seed)
        if key not in self.refs:
            self.refs[key] = self.launch(self.orig, kernel, cfg[1], cfg[2], seed)
        return self.refs[key]

    def measure(self, v):
        cp = self.cp
        mod = cp.RawModule(path=os.path.join(self.vdir, v["file"]))
        rows = []
        for cfg in configs(self.nsm):
            for seed in SEEDS:
                ref = self.ref(v["kernel"], cfg, seed)
                for rep in range(REPS):
                    out = self.launch(mod, v["kernel"], cfg[1], cfg[2], seed)
                    bad = int(cp.count_nonzero(out != ref))
                    rows.append([cfg[0], seed, rep, bad])
        return rows


def chunk(vdir, first, last):
    variants = json.load(open(os.path.join(vdir, "manifest.json")))["variants"]
    r = Runner(vdir)
    for k in range(first, last):
        print("BEGIN", k, flush=True)
        rows = r.measure(variants[k])
        print("ROW", json.dumps({"i": k, "rows": rows}), flush=True)


def device_info():
    import cupy as cp

    p = cp.cuda.runtime.getDeviceProperties(0)
    return {
        "name": p["name"].decode() if isinstance(p["name"], bytes) else p["name"],
        "sm_count": p["multiProcessorCount"],
        "cc": f'{p["major"]}.{p["minor"]}',
        "driver": cp.cuda.runtime.driverGetVersion(),
        "runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cupy": cp.__version__,
    }


def run_all(vdir, out_path):
    variants = json.load(open(os.path.join(vdir, "manifest.json")))["variants"]
    results = {}
    k, t0 = 0, time.time()
    while k < len(variants):
        last = min(k + CHUNK, len(variants))
        current = None
        try:
            p = subprocess.run([sys.executable, __file__, "chunk", vdir, str(k), str(last)], capture_output=True,
                               text=True, timeout=300)
            out, err, rc = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err, rc = "timeout (300 s)", -9
        for line in out.splitlines():
            if line.startswith("BEGIN "):
                current = int(line.split()[1])
            elif line.startswith("ROW "):
                row = json.loads(line[4:])
                results[row["i"]] = {"rows": row["rows"]}
                current = None
        if rc != 0 or current is not None:
            bad = current if current is not None else k
            if bad not in results:
                lines = [l for l in err.splitlines() if "Error" in l or "error" in l or "timeout" in l]
                results[bad] = {"error": (lines or err.strip().splitlines() or ["exit %d" % rc])[-1][:300]}
            k = bad + 1
        else:
            k = last
        print(f"{k}/{len(variants)} variants, {time.time() - t0:.0f} s", flush=True)
    rows = []
    for i, v in enumerate(variants):
        r = results.get(i, {"error": "not run"})
        rows.append({"file": v["file"], "kernel": v["kernel"], "key": v["key"], "stall": v["stall"],
                     "ptxas_least": v["ptxas_least"], "crossing_hazards": v.get("crossing_hazards", 0),
                     "pairs": len(v["pairs"]), **r})
    json.dump({"device": device_info(), "seeds": SEEDS, "reps": REPS, "iters": ITERS, "variants": rows},
              open(out_path, "w"), indent=0)


def main():
    if sys.argv[1] == "all":
        run_all(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "chunk":
        chunk(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit("usage: run_latency.py all VARIANT_DIR OUT.json | chunk VARIANT_DIR FIRST LAST")


if __name__ == "__main__":
    main()
