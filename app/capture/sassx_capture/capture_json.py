"""capture.json (docs/capture.md) from the records of every captured process: pure functions, no torch.

Each process of the captured program writes one records file (recorder.py); `build_capture` merges them,
names the kernels, turns each into a launch spec (specs.py) or a skip reason, and gives every kernel its
GPU time and its share of the program's.  `write_capture` writes the directory.
"""
import json
import math
import os

from . import spec_json
from .specs import spec_from_record

FORMAT = "sassx-capture"
RECORDS_FORMAT = "sassx-capture-records"
VERSION = 1

PROFILER_SOURCE = "torch.profiler: every CUDA kernel (Triton and not) from the first Triton launch to the exit"
EVENTS_SOURCE = ("CUDA events around each Triton launch: Triton kernels only (no profiler total: "
                 "kernels of other libraries are not counted)")


def merge_kernels(processes):
    """Records by kernel hash, in order of first launch; launches and event times summed over processes."""
    merged, order = {}, []
    for proc in processes:
        for rec in proc.get("kernels", []):
            key = rec.get("hash") or rec.get("name")
            if key not in merged:
                merged[key] = dict(rec)
                merged[key]["launches"] = 0
                merged[key]["event_time_us"] = 0.0
                order.append(key)
            merged[key]["launches"] += int(rec.get("launches", 0))
            merged[key]["event_time_us"] += float(rec.get("event_time_us") or 0.0)
    return [merged[k] for k in order]


def unique_names(records):
    """The kernel symbol, suffixed _2, _3 ... when several compiled kernels share it."""
    seen, names = {}, []
    for rec in records:
        sym = rec.get("name") or "kernel"
        seen[sym] = seen.get(sym, 0) + 1
        names.append(sym if seen[sym] == 1 else f"{sym}_{seen[sym]}")
    return names


def kernel_times(records, processes):
    """(GPU time of each record in µs, total µs, source).  With profiler figures for every process, each
    kernel gets its symbol's profiled time (split among kernels sharing a symbol by their event times, or
    launches) and the total is every kernel profiled; otherwise the event times and their sum."""
    profiled = all(p.get("total_gpu_time_us") is not None and p.get("profiler_kernel_us") is not None
                   for p in processes) and bool(processes)
    events = [float(r.get("event_time_us") or 0.0) for r in records]
    if not profiled:
        return events, sum(events), EVENTS_SOURCE
    by_symbol = {}
    for p in processes:
        for sym, us in p["profiler_kernel_us"].items():
            by_symbol[sym] = by_symbol.get(sym, 0.0) + float(us)
    total = sum(float(p["total_gpu_time_us"]) for p in processes)
    groups = {}
    for i, r in enumerate(records):
        groups.setdefault(r.get("name"), []).append(i)
    times = list(events)
    for sym, idx in groups.items():
        if sym not in by_symbol:
            continue  # launched outside the profiled window: its event time stands
        weights = [events[i] for i in idx]
        if sum(weights) <= 0:
            weights = [float(records[i].get("launches", 0)) for i in idx]
        if sum(weights) <= 0:
            weights = [1.0] * len(idx)
        for i, w in zip(idx, weights):
            times[i] = by_symbol[sym] * w / sum(weights)
    return times, max(total, sum(times)), PROFILER_SOURCE


def share(t, total):
    """t/total rounded down to 1e-6, so that shares never sum above 1."""
    return math.floor(t / total * 1e6) / 1e6 if total > 0 else 0.0


def build_capture(processes, program, cubins, int_inputs="skip", device=None, date=None):
    """-> (capture dict, {spec file: spec}, {cubin file: bytes}).  `cubins` maps kernel hash -> cubin bytes."""
    records = merge_kernels(processes)
    names = unique_names(records)
    # processes that launched no recorded kernel (compile workers, say) hold no times
    active = [p for p in processes if p.get("kernels")]
    times, total, source = kernel_times(records, active)
    kernels, skipped, spec_files, cubin_files = [], [], {}, {}
    for rec, name, t in zip(records, names, times):
        cubin = cubins.get(rec.get("hash"))
        cubin_name = f"{name}.sm_{rec.get('arch', 'unknown')}.cubin"
        spec, reason = spec_from_record(rec, name, cubin, cubin_name, int_inputs)
        if spec is not None and cubin is None:
            spec, reason = None, "the cubin was not recorded"
        entry_share = share(t, total)
        if spec is None:
            skipped.append({"name": name, "reason": reason, "launches": rec.get("launches", 0),
                            "gpu_time_us": round(t, 3), "time_share": entry_share})
            continue
        spec_name = f"{name}.launch.json"
        spec_files[spec_name] = spec
        cubin_files[cubin_name] = cubin
        kernels.append({"name": name, "spec": spec_name, "cubin": cubin_name, "launches": rec.get("launches", 0),
                        "gpu_time_us": round(t, 3), "time_share": entry_share,
                        "triton_cache_dir": rec.get("cache_entry")})
    kernels.sort(key=lambda k: -k["gpu_time_us"])
    devices = sorted({p.get("device") for p in active if p.get("device")})
    capture = {"format": FORMAT, "version": VERSION, "program": list(program),
               "device": device or (devices[0] if devices else None), "date": date,
               "total_gpu_time_us": round(total, 3), "time_source": source,
               "kernels": kernels, "skipped": skipped}
    warnings = [w for p in processes for w in p.get("warnings", [])]
    if warnings:
        capture["warnings"] = warnings
    return capture, spec_files, cubin_files


def read_records(raw_dir):
    """(processes, cubins by hash, problems) from a capture's raw/ directory."""
    processes, cubins, problems = [], {}, []
    if not os.path.isdir(raw_dir):
        return processes, cubins, [f"no {raw_dir}: no captured process wrote its records"]
    for fn in sorted(os.listdir(raw_dir)):
        path = os.path.join(raw_dir, fn)
        if fn.endswith(".records.json"):
            try:
                with open(path) as f:
                    proc = json.load(f)
                if proc.get("format") != RECORDS_FORMAT or proc.get("version") != VERSION:
                    problems.append(f"{fn}: not {RECORDS_FORMAT} version {VERSION}")
                    continue
                processes.append(proc)
            except (OSError, ValueError) as e:
                problems.append(f"{fn}: {e}")
        elif fn.endswith(".cubin"):
            with open(path, "rb") as f:
                cubins[fn[:-len(".cubin")]] = f.read()
    return processes, cubins, problems


def write_capture(out_dir, capture, spec_files, cubin_files):
    for fn, blob in cubin_files.items():
        with open(os.path.join(out_dir, fn), "wb") as f:
            f.write(blob)
    for fn, spec in spec_files.items():
        spec_json.dump(spec, os.path.join(out_dir, fn))
    tmp = os.path.join(out_dir, "capture.json.tmp")
    with open(tmp, "w") as f:
        json.dump(capture, f, indent=1)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, "capture.json"))
