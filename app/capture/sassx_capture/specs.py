"""Launch specs (docs/launch-spec.md) from recorded launch metadata: pure functions, no torch or GPU.

The runtime (recorder.py) writes one *record* per distinct compiled kernel, from its first launch;
docs/capture.md gives the format.  `spec_from_record` turns a record into a spec or into the one-line
reason why its launch cannot be reproduced.  Everything here is plain data in, plain data out, so the
CI tests run it on recorded metadata.
"""
import math
import os

from . import cubin_params

# Triton signature type of a scalar -> launch-spec dtype (the launcher packs i1/u1 as one byte).
SIG_SCALAR_DTYPE = {"i1": "i8", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64", "u1": "u8", "u8": "u8",
                    "u16": "u16", "u32": "u32", "u64": "u64", "fp16": "f16", "bf16": "bf16", "fp32": "f32",
                    "f32": "f32", "fp64": "f64"}

# torch dtype name (without "torch.") -> launch-spec dtype.  bool tensors are bytes holding 0 or 1.
TENSOR_DTYPE = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "int8": "i8",
                "uint8": "u8", "int16": "i16", "uint16": "u16", "int32": "i32", "uint32": "u32",
                "int64": "i64", "uint64": "u64", "bool": "u8"}
FLOAT_DTYPES = {"f16", "bf16", "f32", "f64"}

# A uniform distribution has std/(max-min) = 1/sqrt(12) = 0.289; a normal one of n >= 100 samples has
# at most about 0.2 (its range grows like 2*sqrt(2 ln n) standard deviations).
UNIFORM_RATIO = 0.25

INT_INPUT_POLICIES = ("skip", "range")


class NotReproducible(Exception):
    """A launch the spec format cannot express; the message is the one-line reason."""


def dtype_name(d):
    d = str(d)
    return d[len("torch."):] if d.startswith("torch.") else d


def nice(x, scale):
    """x rounded to two significant digits of `scale` (the spread it is drawn with), without -0.0."""
    if scale <= 0 or not math.isfinite(scale):
        return float(x)
    e = math.floor(math.log10(scale)) - 1
    v = round(round(x / 10.0 ** e) * 10.0 ** e, max(0, -e))
    return 0.0 if v == 0 else float(v)


def fit_float_init(stats):
    """The `init` whose draws look like the recorded values: zeros, a constant, uniform or normal."""
    if stats.get("zero") or not stats.get("finite"):
        return {"kind": "zeros"}
    lo, hi = float(stats["min"]), float(stats["max"])
    if lo == hi:
        return {"kind": "constant", "value": lo}
    mean, std = float(stats["mean"]), float(stats["std"])
    if std / (hi - lo) > UNIFORM_RATIO:
        span = hi - lo
        low, high = nice(lo, span), nice(hi, span)
        if low >= high:
            low, high = lo, hi
        return {"kind": "uniform", "low": low, "high": high}
    s = nice(std, std)
    return {"kind": "normal", "mean": nice(mean, std), "std": s if s > 0 else std}


def int_init(arg, stats, int_inputs):
    """The `init` of an integer buffer that the kernel reads, or NotReproducible."""
    if stats.get("zero"):
        return {"kind": "zeros"}
    lo, hi = int(stats["min"]), int(stats["max"])
    if lo == hi:
        return {"kind": "constant", "value": lo}
    if dtype_name(arg.get("dtype")) == "bool" or int_inputs == "range":
        return {"kind": "randint", "low": lo, "high": hi + 1}
    raise NotReproducible(
        f"integer argument {arg['name']} holds {lo}..{hi}, maybe indices: a launch spec cannot hold the "
        "recorded values and random ones could address out of bounds (--int-inputs range draws in that range)")


def buffer_role(arg):
    """input, output or inout from the first launch's before/after comparison (Inductor's names help:
    out_ptrN is written, in_out_ptrN read and written)."""
    name = arg.get("name", "")
    changed = bool(arg.get("changed"))
    if name.startswith("in_out_ptr"):
        return "inout"
    if not changed:
        return "input"
    if name.startswith("out_ptr") or arg.get("stats", {}).get("zero"):
        return "output"
    return "inout"


def check_aliasing(tensors):
    """Two pointer arguments whose elements overlap, one of them written: separate buffers would change
    what the kernel computes.  Read-only overlaps are harmless and pass."""
    spans = sorted(((a["data_ptr"], a["data_ptr"] + max(1, a.get("span_bytes", a["extent_bytes"])), a)
                    for a in tensors), key=lambda s: s[:2])
    for i, (s0, e0, a) in enumerate(spans):
        for s1, e1, b in spans[i + 1:]:
            if s1 >= e0:
                break
            if a.get("changed") or b.get("changed") or a["name"].startswith("in_out_ptr") or \
                    b["name"].startswith("in_out_ptr"):
                raise NotReproducible(f"arguments {a['name']} and {b['name']} share memory and the kernel writes "
                                      "it: a launch spec gives every buffer its own allocation")


def buffer_param(arg, int_inputs):
    dt = TENSOR_DTYPE.get(dtype_name(arg.get("dtype")))
    if dt is None:
        raise NotReproducible(f"argument {arg['name']} has dtype {dtype_name(arg.get('dtype'))}, "
                              "which launch specs do not have")
    if arg.get("snapshot"):
        raise NotReproducible(f"argument {arg['name']}: {arg['snapshot']}")
    esize = cubin_params.DTYPE_SIZE[dt]
    count = max(1, int(arg["extent_bytes"]) // esize)
    role = buffer_role(arg)
    stats = arg.get("stats") or {}
    if role == "output":
        init = {"kind": "zeros"}
    elif dt in FLOAT_DTYPES:
        init = fit_float_init(stats)
    else:
        init = int_init(arg, stats, int_inputs)
    return {"name": arg["name"], "kind": "buffer", "dtype": dt, "count": count, "init": init, "role": role}


def scalar_param(arg, sig):
    value = arg.get("value")
    if isinstance(value, bool):
        value = int(value)
    if not isinstance(value, (int, float)):
        raise NotReproducible(f"argument {arg['name']} ({sig}) has no numeric value recorded")
    if isinstance(value, float) and not math.isfinite(value):
        raise NotReproducible(f"argument {arg['name']} is {value}, which a launch spec (JSON) cannot hold")
    return {"name": arg["name"], "kind": "scalar", "dtype": SIG_SCALAR_DTYPE[sig], "value": value}


def runtime_params(record, int_inputs):
    """(params, constexprs) from the record's arguments, in signature order."""
    params, constexprs, tensors = [], {}, []
    for arg in record["args"]:
        sig = arg.get("sig")
        name = arg.get("name", "?")
        kind = arg.get("kind")
        if sig == "constexpr":
            constexprs[name] = arg.get("value")
            continue
        if not isinstance(sig, str):
            raise NotReproducible(f"argument {name} has signature {sig!r} (tuples are not in launch specs)")
        if sig.startswith("*"):
            if kind == "none":
                params.append({"name": name, "kind": "null"})
            elif kind == "tensor":
                params.append(buffer_param(arg, int_inputs))
                tensors.append(arg)
            elif kind == "int":
                raise NotReproducible(f"argument {name} is a raw address (an int), not a tensor: its extent is unknown")
            else:
                raise NotReproducible(f"argument {name} is a {arg.get('type', kind)} passed as a pointer: "
                                      "its extent is unknown")
        elif sig.startswith("tensordesc") or sig == "nvTmaDesc":
            raise NotReproducible(f"argument {name} is a TMA descriptor ({sig}), which launch specs do not have")
        elif sig in SIG_SCALAR_DTYPE:
            params.append(scalar_param(arg, sig))
        else:
            raise NotReproducible(f"argument {name} has signature type {sig}, which launch specs do not have")
    check_aliasing(tensors)
    return params, constexprs


def scratch_params(record, n_extra):
    """Triton's trailing scratch pointers (global, then profile): a zeroed buffer when the kernel asks for
    scratch memory (size per program x programs, as Triton's launcher allocates it), else null."""
    grid = list(record.get("grid", [1, 1, 1])) + [1, 1]
    programs = grid[0] * grid[1] * grid[2] * int(record.get("num_ctas", 1) or 1)
    sizes = [int(record.get("global_scratch_size") or 0), int(record.get("profile_scratch_size") or 0)]
    out = []
    for i in range(n_extra):
        size = sizes[i] if i < len(sizes) else 0
        if size > 0:
            out.append({"name": f"scratch{i}", "kind": "buffer", "dtype": "u8", "count": programs * size,
                        "init": {"kind": "zeros"}, "role": "input"})
        else:
            out.append({"name": f"scratch{i}", "kind": "null"})
    return out


def triton_block(record, constexprs):
    entry = record.get("cache_entry")
    return {"version": record.get("triton_version"), "num_warps": record.get("num_warps"),
            "num_stages": record.get("num_stages"), "hash": record.get("hash"), "constexprs": constexprs,
            "cache_entries": [os.path.basename(entry.rstrip("/"))] if entry else []}


def check_launch(record):
    if record.get("problem"):
        raise NotReproducible(record["problem"])
    num_ctas = int(record.get("num_ctas") or 1)
    cluster = [int(c) for c in (record.get("cluster_dims") or [1, 1, 1])]
    if num_ctas > 1 or math.prod(cluster) > 1:
        raise NotReproducible(f"cluster launch ({num_ctas} CTAs, cluster {cluster}): launch specs have no "
                              "cluster dimensions")
    if record.get("launch_cooperative_grid"):
        raise NotReproducible("cooperative launch: launch specs have no such attribute")
    grid = list(record.get("grid") or [])
    if not 1 <= len(grid) <= 3 or any(not isinstance(g, int) or g < 1 for g in grid):
        raise NotReproducible(f"grid {grid} is not 1-3 positive numbers")


def spec_from_record(record, name, cubin=None, cubin_name=None, int_inputs="skip"):
    """(spec, None) or (None, reason).  `cubin` (bytes) sets the number of Triton's trailing scratch
    parameters and checks every parameter's size against its KPARAM_INFO."""
    try:
        check_launch(record)
        params, constexprs = runtime_params(record, int_inputs)
        n_extra = int(record.get("scratch_params", 0))
        if cubin is not None:
            try:
                _k, cparams, _total = cubin_params.kernel_params(cubin, record["name"])
            except (ValueError, IndexError) as e:
                raise NotReproducible(f"cubin: {e}")
            n_extra = len(cparams) - len(params)
            if n_extra < 0 or any(size != 8 for _o, _off, size in cparams[len(params):]):
                raise NotReproducible(f"the cubin has {len(cparams)} parameters, the launch {len(params)}")
        bytes_moved = sum(cubin_params.DTYPE_SIZE[p["dtype"]] * p["count"] for p in params if p["kind"] == "buffer")
        params += scratch_params(record, n_extra)
        grid = list(record["grid"]) + [1] * (3 - len(record["grid"]))
        spec = {"name": name, "kernel": record["name"]}
        if cubin_name:
            spec["cubin"] = cubin_name
        spec.update({"grid": grid, "block": [32 * int(record["num_warps"]), 1, 1],
                     "dynamic_shared": int(record.get("shared") or 0), "params": params, "bytes": bytes_moved,
                     "triton": triton_block(record, constexprs)})
        if cubin is not None:
            problems = cubin_params.check_spec(cubin, spec)
            if problems:
                raise NotReproducible("spec does not match the cubin: " + "; ".join(problems))
        return spec, None
    except NotReproducible as e:
        return None, str(e)
    except (KeyError, TypeError, ValueError) as e:
        return None, f"incomplete launch record ({type(e).__name__}: {e})"
