"""Independent launcher for the ncu cross-check: runs a launch spec's kernel once through CuPy
(not through sassx), so that Nsight Compute can profile the same cubin launched by other code.
Inputs come from NumPy (other values than sassx's generator, same distributions)."""
import json
import sys

import cupy as cp
import numpy as np

DTYPES = {"f16": np.float16, "bf16": None, "f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8,
          "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64}


def host_buffer(p, rng):
    n = p["count"]
    dt = DTYPES[p["dtype"]]
    init = p.get("init", {"kind": "zeros"})
    kind = init["kind"]
    if kind == "uniform":
        v = rng.uniform(init["low"], init["high"], n)
    elif kind == "normal":
        v = rng.normal(init["mean"], init["std"], n)
    elif kind == "randint":
        v = rng.integers(int(init["low"]), int(init["high"]), n)
    elif kind == "iota":
        v = np.arange(n)
    elif kind == "constant":
        v = np.full(n, init["value"])
    else:
        v = np.zeros(n)
    if dt is None:  # bf16: top half of float32
        return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return v.astype(dt)


def main():
    spec = json.load(open(sys.argv[1]))
    kernel = cp.RawModule(path=sys.argv[2]).get_function(spec["kernel"])
    shared = int(spec.get("dynamic_shared", 0))
    if shared > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = shared
    rng = np.random.default_rng(1)
    args = []
    for p in spec["params"]:
        if p["kind"] == "buffer":
            args.append(cp.asarray(host_buffer(p, rng)))
        elif p["kind"] == "scalar":
            dt = DTYPES[p["dtype"]] or np.uint16
            args.append(dt(p["value"]))
        else:
            args.append(np.uint64(0))
    pad = lambda d: tuple(list(d if isinstance(d, list) else [d]) + [1] * (3 - len(d if isinstance(d, list) else [d])))
    kernel(pad(spec["grid"]), pad(spec["block"]), tuple(args), shared_mem=shared)
    cp.cuda.runtime.deviceSynchronize()


if __name__ == "__main__":
    main()
