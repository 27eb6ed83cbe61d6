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

# Integer tensors the kernel reads (indices, labels with an ignore index, masks, block indices): the values
# recorded at the first launch (default), random ones in the recorded range, or no spec at all.
INT_INPUT_POLICIES = ("recorded", "range", "skip")
MAX_VALUES_BYTES = 64 << 20  # recorded values per spec (--max-values-mib)


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


def values_file(spec_name, param_name):
    """Where a spec's recorded values of one parameter live, relative to the spec."""
    return f"{spec_name}.values/{param_name}.bin.z"


def int_init(arg, stats, int_inputs, spec_name="spec"):
    """The `init` of an integer buffer that the kernel reads, or NotReproducible."""
    if stats.get("zero"):
        return {"kind": "zeros"}
    lo, hi = int(stats["min"]), int(stats["max"])
    if lo == hi:
        return {"kind": "constant", "value": lo}
    if int_inputs == "range":
        return {"kind": "randint", "low": lo, "high": hi + 1}
    values = arg.get("values")
    if int_inputs == "recorded" and isinstance(values, dict):
        return {"kind": "recorded", "file": values_file(spec_name, arg["name"]), "encoding": "zlib",
                "bytes": int(values["bytes"]), "sha256": values["sha256"]}
    if dtype_name(arg.get("dtype")) == "bool":
        return {"kind": "randint", "low": lo, "high": hi + 1}
    if int_inputs == "recorded":
        why = arg.get("values_problem") or "its values were not recorded"
        raise NotReproducible(f"integer argument {arg['name']} holds {lo}..{hi}, maybe indices: {why} "
                              "(--int-inputs range draws in that range instead)")
    raise NotReproducible(
        f"integer argument {arg['name']} holds {lo}..{hi}, maybe indices: --int-inputs skip leaves it out "
        "(recorded uses the values of the first launch, range draws in that range)")


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


def _written(arg):
    return bool(arg.get("changed")) or arg.get("name", "").startswith("in_out_ptr")


def alias_groups(tensors):
    """Groups of tensor arguments whose elements overlap, as lists of (param index, arg) with the
    lowest address first (ties: the larger extent, then signature order)."""
    spans = sorted(((a["data_ptr"], a["data_ptr"] + max(1, a.get("span_bytes", a["extent_bytes"])), i, a)
                    for i, a in tensors), key=lambda s: (s[0], -s[3]["extent_bytes"], s[2]))
    groups, end = [], None
    for start, stop, i, a in spans:
        if groups and start < end:
            groups[-1].append((i, a))
            end = max(end, stop)
        else:
            groups.append([(i, a)])
            end = stop
    return [g for g in groups if len(g) > 1]


def apply_aliases(params, tensors, int_inputs, spec_name):
    """Overlapping tensor arguments one of which the kernel writes share one allocation in the spec: the
    lowest-addressed one owns it (inout, since the kernel reads and writes that memory) and the others are
    aliases into it at their byte offsets.  Read-only overlaps keep separate buffers (same values either
    way)."""
    for group in alias_groups(tensors):
        if not any(_written(a) for _i, a in group) and not group[0][1].get("changed_beyond"):
            continue
        root_i, root = group[0]
        root_end = root["data_ptr"] + root["extent_bytes"]
        for i, a in group[1:]:
            if a["data_ptr"] + params[i]["count"] * cubin_params.DTYPE_SIZE[params[i]["dtype"]] > root_end:
                raise NotReproducible(f"arguments {root['name']} and {a['name']} share memory and the kernel writes "
                                      f"it, but {a['name']} reaches past the end of {root['name']}'s storage")
            params[i] = {"name": a["name"], "kind": "buffer", "dtype": params[i]["dtype"],
                         "count": params[i]["count"],
                         "alias": {"of": root["name"], "offset": a["data_ptr"] - root["data_ptr"]}}
        params[root_i] = buffer_param(root, int_inputs, spec_name, role="inout")


def buffer_param(arg, int_inputs, spec_name="spec", role=None):
    dt = TENSOR_DTYPE.get(dtype_name(arg.get("dtype")))
    if dt is None:
        raise NotReproducible(f"argument {arg['name']} has dtype {dtype_name(arg.get('dtype'))}, "
                              "which launch specs do not have")
    if arg.get("snapshot"):
        raise NotReproducible(f"argument {arg['name']}: {arg['snapshot']}")
    esize = cubin_params.DTYPE_SIZE[dt]
    count = max(1, int(arg["extent_bytes"]) // esize)
    role = role or buffer_role(arg)
    stats = arg.get("stats") or {}
    if role == "output":
        init = {"kind": "zeros"}
    elif dt in FLOAT_DTYPES:
        init = fit_float_init(stats)
    else:
        init = int_init(arg, stats, int_inputs, spec_name)
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


def runtime_params(record, int_inputs, spec_name="spec"):
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
                tensors.append((len(params), arg))
                params.append(buffer_param(arg, int_inputs, spec_name))
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
    apply_aliases(params, tensors, int_inputs, spec_name)
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


def recorded_params(spec):
    """Names of the spec's parameters initialised from recorded values."""
    return [p["name"] for p in spec["params"] if p.get("init", {}).get("kind") == "recorded"]


def spec_from_record(record, name, cubin=None, cubin_name=None, int_inputs="recorded",
                     max_values_bytes=MAX_VALUES_BYTES):
    """(spec, None) or (None, reason).  `cubin` (bytes) sets the number of Triton's trailing scratch
    parameters and checks every parameter's size against its KPARAM_INFO.  Recorded values (integer
    inputs) are named `NAME.values/<param>.bin.z` beside the spec; `max_values_bytes` bounds them."""
    try:
        check_launch(record)
        params, constexprs = runtime_params(record, int_inputs, name)
        recorded = sum(p["init"]["bytes"] for p in params if p.get("init", {}).get("kind") == "recorded")
        if recorded > max_values_bytes:
            raise NotReproducible(f"its integer inputs need {recorded / 2**20:.1f} MiB of recorded values, over the "
                                  f"limit of {max_values_bytes / 2**20:.1f} MiB per spec (--max-values-mib)")
        n_extra = int(record.get("scratch_params", 0))
        if cubin is not None:
            try:
                _k, cparams, _total = cubin_params.kernel_params(cubin, record["name"])
            except (ValueError, IndexError) as e:
                raise NotReproducible(f"cubin: {e}")
            n_extra = len(cparams) - len(params)
            if n_extra < 0 or any(size != 8 for _o, _off, size in cparams[len(params):]):
                raise NotReproducible(f"the cubin has {len(cparams)} parameters, the launch {len(params)}")
        bytes_moved = sum(cubin_params.DTYPE_SIZE[p["dtype"]] * p["count"] for p in params
                          if p["kind"] == "buffer" and "alias" not in p)
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
