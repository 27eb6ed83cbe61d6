"""Independent launcher for the ncu cross-check: runs a launch spec's kernel once through CuPy
(not through sassx), so that Nsight Compute can profile the same cubin launched by other code.
Inputs come from NumPy (other values than sassx's generator, same distributions); `recorded` inits are
the recorded bytes, checked against their size and SHA-256.

It reads the spec (docs/launch-spec.md) itself: buffers and their aliases, scalars, nulls, by-value
`bytes` parameters with their `pointers`, and `memory` entries. What it cannot launch is refused in one
line on stderr with exit status 2, before any GPU work: a thread-block `cluster` (CuPy's RawKernel
launch passes no launch attributes, so the kernel would run without its cluster), and a malformed spec.
Usage: launch_cupy.py SPEC.json CUBIN"""
import hashlib
import json
import os
import struct
import sys
import zlib

DTYPE_SIZES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4,
               "i64": 8, "u64": 8}


class Refusal(Exception):
    """A spec this launcher cannot run; its message is the one line printed."""


def entry_label(where, i, e):
    name = e.get("name") if isinstance(e, dict) else None
    return "%s[%d] (%s)" % (where, i, name or "unnamed")


def check_launchable(spec):
    """Refuses what no CuPy launch can do faithfully."""
    if spec.get("cluster") is not None:
        raise Refusal("the spec launches with a thread-block cluster %s, and CuPy's RawKernel launch "
                      "passes no cluster dimension (the kernel would run without it)" % json.dumps(spec["cluster"]))
    for key in ("kernel", "grid", "block", "params"):
        if key not in spec:
            raise Refusal("the spec has no \"%s\"" % key)


def slots(spec):
    """Parameters then memory entries, each with its label, in the spec's slot order."""
    out = [(entry_label("params", i, p), p) for i, p in enumerate(spec["params"])]
    memory = spec.get("memory", [])
    if not isinstance(memory, list):
        raise Refusal("\"memory\" must be an array")
    for i, m in enumerate(memory):
        if not isinstance(m, dict) or not m.get("name"):
            raise Refusal("%s: a memory entry needs a name" % entry_label("memory", i, m))
        if m.get("kind", "buffer") != "buffer" or "alias" in m:
            raise Refusal("%s: a memory entry is a buffer that owns its allocation" % entry_label("memory", i, m))
        out.append((entry_label("memory", i, m), dict(m, kind="buffer")))
    return out


def resolver(entries):
    """name -> (root name, byte offset into the root), following alias chains."""
    by_name = {}
    for label, e in entries:
        if e.get("name"):
            if e["name"] in by_name:
                raise Refusal("%s: the name %s is used twice" % (label, e["name"]))
            by_name[e["name"]] = (label, e)

    def resolve(name, label):
        chain, offset = [], 0
        while True:
            if name not in by_name:
                raise Refusal("%s: %s names no parameter or memory entry" % (label, name))
            e = by_name[name][1]
            if e.get("kind") != "buffer":
                raise Refusal("%s: %s is not a buffer" % (label, name))
            if name in chain:
                raise Refusal("%s: an alias cycle (%s)" % (label, " -> ".join(chain + [name])))
            chain.append(name)
            alias = e.get("alias")
            if not alias:
                return name, offset
            offset += int(alias.get("offset", 0))
            name = alias["of"]

    return resolve


def read_recorded(label, init, spec_dir):
    """The recorded bytes of a `recorded` init, checked as the worker checks them."""
    path = init["file"] if os.path.isabs(init["file"]) else os.path.join(spec_dir, init["file"])
    try:
        data = open(path, "rb").read()
    except OSError as e:
        raise Refusal("%s: cannot read recorded values %s (%s)" % (label, path, e.strerror))
    if init.get("encoding", "zlib") == "zlib":
        try:
            data = zlib.decompress(data)
        except zlib.error as e:
            raise Refusal("%s: recorded values %s are not one zlib stream (%s)" % (label, path, e))
    if len(data) != int(init["bytes"]) or hashlib.sha256(data).hexdigest() != init["sha256"]:
        raise Refusal("%s: recorded values %s do not match their size and sha256" % (label, path))
    return data


def bytes_param(label, p):
    """A `bytes` parameter: its exact bytes and its pointers [(at, to, offset)]."""
    size = p.get("size")
    try:
        raw = bytearray.fromhex(p.get("hex", ""))
    except ValueError:
        raise Refusal("%s: \"hex\" is not hex" % label)
    if not isinstance(size, int) or size < 1 or len(raw) != size:
        raise Refusal("%s: \"hex\" must hold exactly \"size\" bytes" % label)
    pointers = []
    for q in p.get("pointers", []):
        at = int(q.get("at", -1))
        if at < 0 or at % 8 or at + 8 > size:
            raise Refusal("%s: a pointer at %d does not fit 8-aligned in its %d bytes" % (label, at, size))
        pointers.append((at, q["to"], int(q.get("offset", 0))))
    return raw, pointers


def key(label, e):
    """What pointers, aliases and the allocations call an entry: its name, else its label."""
    return e.get("name") or label


def plan(spec, spec_dir):
    """The launch without a GPU: the allocations to make [(label, entry)] and per parameter how its
    argument is built: ("root", name), ("at", root, offset), ("scalar", dtype, value), ("null",) or
    ("bytes", raw, [(at, root, offset)])."""
    check_launchable(spec)
    entries = slots(spec)
    resolve = resolver(entries)
    roots = []
    for label, e in entries:
        if e.get("kind") == "buffer" and not e.get("alias"):
            if e.get("dtype") not in DTYPE_SIZES or not isinstance(e.get("count"), int) or e["count"] < 1:
                raise Refusal("%s: a buffer needs a known dtype and a positive count" % label)
            roots.append((label, e))
    args = []
    for label, p in entries[:len(spec["params"])]:
        kind = p.get("kind")
        if kind == "buffer" and not p.get("alias"):
            args.append(("root", key(label, p)))
        elif kind == "buffer":
            root, offset = resolve(p["alias"]["of"], label)
            args.append(("at", root, offset + int(p["alias"].get("offset", 0))))
        elif kind == "scalar":
            if p.get("dtype") not in DTYPE_SIZES:
                raise Refusal("%s: unknown dtype %s" % (label, p.get("dtype")))
            args.append(("scalar", p["dtype"], p["value"]))
        elif kind == "null":
            args.append(("null",))
        elif kind == "bytes":
            raw, pointers = bytes_param(label, p)
            resolved = []
            for at, to, offset in pointers:
                root, base = resolve(to, label)
                resolved.append((at, root, base + offset))
            args.append(("bytes", raw, resolved))
        else:
            raise Refusal("%s: unknown kind %s (buffer, scalar, null, bytes)" % (label, kind))
    return roots, args


def patched(raw, pointers, address):
    """`raw` with each pointer's device address (its root's address plus the offset) written over it."""
    out = bytearray(raw)
    for at, root, offset in pointers:
        struct.pack_into("<Q", out, at, address[root] + offset)
    return bytes(out)


def host_buffer(np, label, e, rng, spec_dir):
    n = e["count"]
    init = e.get("init", {"kind": "zeros"})
    kind = init["kind"]
    if kind == "recorded":
        data = read_recorded(label, init, spec_dir)
        if len(data) != n * DTYPE_SIZES[e["dtype"]]:
            raise Refusal("%s: recorded values hold %d bytes, the buffer %d" % (label, len(data), n * DTYPE_SIZES[e["dtype"]]))
        return np.frombuffer(data, dtype=np.uint8).copy()
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
    return numpy_values(np, v, e["dtype"])


def numpy_values(np, v, dtype):
    if dtype == "bf16":  # top half of float32
        return (np.asarray(v).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    types = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8,
             "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64}
    return np.asarray(v).astype(types[dtype])


def by_value(np, data):
    """Exact bytes passed by value: a NumPy scalar where one has the size, else a size-one NumPy array
    of that many bytes (CuPy passes such an array by value)."""
    scalars = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
    if len(data) in scalars:
        return np.frombuffer(data, dtype=scalars[len(data)])[0]
    return np.frombuffer(data, dtype=np.dtype((np.void, len(data)))).copy()


def launch(spec, spec_dir, cubin):
    roots, args = plan(spec, spec_dir)
    import cupy as cp
    import numpy as np

    rng = np.random.default_rng(1)
    device, address = {}, {}
    for label, e in roots:
        device[key(label, e)] = arr = cp.asarray(host_buffer(np, label, e, rng, spec_dir))
        address[key(label, e)] = int(arr.data.ptr)
    kernel_args = []
    for a in args:
        if a[0] == "root":
            kernel_args.append(device[a[1]])
        elif a[0] == "at":
            kernel_args.append(np.uint64(address[a[1]] + a[2]))
        elif a[0] == "scalar":
            kernel_args.append(numpy_values(np, [a[2]], a[1])[0])
        elif a[0] == "null":
            kernel_args.append(np.uint64(0))
        else:
            kernel_args.append(by_value(np, patched(a[1], a[2], address)))
    kernel = cp.RawModule(path=cubin).get_function(spec["kernel"])
    shared = int(spec.get("dynamic_shared", 0))
    if shared > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = shared
    pad = lambda d: tuple(list(d if isinstance(d, list) else [d]) + [1] * (3 - len(d if isinstance(d, list) else [d])))
    try:
        kernel(pad(spec["grid"]), pad(spec["block"]), tuple(kernel_args), shared_mem=shared)
    except TypeError as e:
        raise Refusal("this CuPy cannot pass a by-value parameter of that size (%s); a newer CuPy passes "
                      "size-one NumPy arrays by value" % e)
    cp.cuda.runtime.deviceSynchronize()


def main():
    if len(sys.argv) != 3:
        print("usage: launch_cupy.py SPEC.json CUBIN", file=sys.stderr)
        return 2
    spec_path, cubin = sys.argv[1], sys.argv[2]
    try:
        try:
            spec = json.load(open(spec_path))
        except (OSError, ValueError) as e:
            raise Refusal("cannot read the spec (%s)" % e)
        if not isinstance(spec, dict):
            raise Refusal("the spec is not a JSON object")
        launch(spec, os.path.dirname(os.path.abspath(spec_path)), cubin)
    except KeyError as e:
        print("launch_cupy: %s: a malformed spec: no %s where the format needs one" % (spec_path, e),
              file=sys.stderr)
        return 2
    except Refusal as r:
        print("launch_cupy: %s: %s" % (spec_path, r), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
