#!/usr/bin/env python3
"""Launch-spec helpers shared by samples/ scripts (see docs/launch-spec.md).

dump(spec, path): writes a spec with one top-level field and one parameter per line
(app/capture/sassx_capture/spec_json.py, re-exported here).
host_array(param, rng): the numpy array a buffer parameter's `init` describes.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "app", "capture"))

from sassx_capture.spec_json import KEY_ORDER, dump, dumps  # noqa: E402,F401  (one implementation)

NP_DTYPE = {"f16": "float16", "bf16": None, "f32": "float32", "f64": "float64", "i8": "int8",
            "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32", "u32": "uint32",
            "i64": "int64", "u64": "uint64"}


def host_array(p, rng):
    import numpy as np
    dt = NP_DTYPE[p["dtype"]]
    if dt is None:
        raise ValueError("bf16 buffers: not supported by this helper")
    n = p["count"]
    init = p.get("init", {"kind": "zeros"})
    kind = init["kind"]
    if kind == "zeros":
        return np.zeros(n, dtype=dt)
    if kind == "constant":
        return np.full(n, init["value"], dtype=dt)
    if kind == "uniform":
        return rng.uniform(init["low"], init["high"], n).astype(np.float32).astype(dt)
    if kind == "normal":
        return rng.normal(init["mean"], init["std"], n).astype(np.float32).astype(dt)
    if kind == "randint":
        return rng.integers(init["low"], init["high"], n).astype(dt)
    if kind == "iota":
        return np.arange(n).astype(dt)
    raise ValueError(f"unknown init kind {kind}")


if __name__ == "__main__":  # re-format spec files in place
    import sys
    for path in sys.argv[1:]:
        dump(json.load(open(path)), path)
