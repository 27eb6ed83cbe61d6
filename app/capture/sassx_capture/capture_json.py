"""capture.json (docs/capture.md) from the records of every captured process: pure functions, no torch.

Each process of the captured program writes one records file (recorder.py); `build_capture` merges them,
names the kernels, turns each into a launch spec (specs.py) or a skip reason, and gives every kernel its
GPU time and its share of the program's.  `write_capture` writes the directory.
"""
import json
import math
import os
import shutil

from . import driver, spec_json
from .specs import MAX_VALUES_BYTES, recorded_params, spec_from_record

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


def values_sources(rec, spec, raw_dir):
    """({values file relative to the capture directory: recorded file}, None) for a spec's recorded params,
    or (None, reason) when one of them is missing from `raw_dir` (None: not checked)."""
    by_name = {a.get("name"): a for a in rec.get("args", [])}
    out = {}
    for name in recorded_params(spec):
        init = next(p["init"] for p in spec["params"] if p["name"] == name)
        fn = (by_name.get(name, {}).get("values") or {}).get("file") or ""
        src = os.path.join(raw_dir, fn) if raw_dir is not None else fn
        if raw_dir is not None and (not fn or not os.path.isfile(src)):
            return None, f"the recorded values of {name} are missing from raw/ ({fn or 'no file named'})"
        out[init["file"]] = src
    return out, None


def build_capture(processes, program, cubins, int_inputs="recorded", device=None, date=None, raw_dir=None,
                  max_values_bytes=MAX_VALUES_BYTES, driver_processes=None):
    """-> (capture dict, {spec file: spec}, {cubin file: bytes}, {values file: raw/ source}).  `cubins` maps
    kernel hash -> cubin bytes; `raw_dir` holds the recorded values (None: not checked, for tests).
    `driver_processes`: what the driver hook wrote (driver.read_driver_records), whose files are in
    raw/driver/: every kernel of the program then gets its GPU time from the hook, and the kernels that are
    not Triton's are listed, and captured where the hook recorded them."""
    records = merge_kernels(processes)
    names = unique_names(records)
    # processes that launched no recorded kernel (compile workers, say) hold no times
    active = [p for p in processes if p.get("kernels")]
    times, total, source = kernel_times(records, active)
    hook = None
    if driver_processes:
        hook_kernels, images = driver.merge_driver(driver_processes)
        triton_sha = {h: driver.sha256_hex(b) for h, b in cubins.items() if b}
        by_image = {}
        for k in hook_kernels:
            by_image[k["image_sha256"]] = by_image.get(k["image_sha256"], 0.0) + k["gpu_time_us"]
        times = [by_image.get(triton_sha.get(r.get("hash")), t) for r, t in zip(records, times)]
        total = max(sum(k["gpu_time_us"] for k in hook_kernels), sum(times))
        source = driver.HOOK_TIME_SOURCE
        hook = (hook_kernels, images, set(triton_sha.values()))
    kernels, skipped, spec_files, cubin_files, values_files = [], [], {}, {}, {}
    for rec, name, t in zip(records, names, times):
        cubin = cubins.get(rec.get("hash"))
        cubin_name = f"{name}.sm_{rec.get('arch', 'unknown')}.cubin"
        spec, reason = spec_from_record(rec, name, cubin, cubin_name, int_inputs, max_values_bytes)
        if spec is not None and cubin is None:
            spec, reason = None, "the cubin was not recorded"
        values = {}
        if spec is not None:
            values, reason = values_sources(rec, spec, raw_dir)
            if reason:
                spec = None
        entry_share = share(t, total)
        if spec is None:
            skipped.append({"name": name, "reason": reason, "launches": rec.get("launches", 0),
                            "gpu_time_us": round(t, 3), "time_share": entry_share})
            continue
        spec_name = f"{name}.launch.json"
        spec_files[spec_name] = spec
        cubin_files[cubin_name] = cubin
        values_files.update(values)
        entry = {"name": name, "hash": rec.get("hash"), "spec": spec_name, "cubin": cubin_name,
                 "launches": rec.get("launches", 0),
                 "gpu_time_us": round(t, 3), "time_share": entry_share, "triton_cache_dir": rec.get("cache_entry")}
        if recorded_params(spec):
            entry["recorded_values"] = recorded_params(spec)
        aliases = [p["name"] for p in spec["params"] if "alias" in p]
        if aliases:
            entry["aliases"] = aliases
        kernels.append(entry)
    for k in kernels:
        k["origin"] = "triton"
    if hook:
        hook_kernels, images, triton_shas = hook
        driver_dir = os.path.join(raw_dir or "", driver.DRIVER_DIR)
        taken = set(names)
        entries, skips, files = driver.driver_entries(hook_kernels, images, driver_dir, taken, triton_shas,
                                                      lambda us: share(us, total))
        kernels += entries
        skipped += skips
        for name, (kind, what) in files.items():
            if kind == "spec":
                spec_files[name] = what
            elif name.endswith(".cubin"):
                with open(what, "rb") as f:
                    cubin_files[name] = f.read()
            else:
                values_files[name] = what
    kernels.sort(key=lambda k: -k["gpu_time_us"])
    devices = sorted({p.get("device") for p in active if p.get("device")})
    capture = {"format": FORMAT, "version": VERSION, "program": list(program),
               "device": device or (devices[0] if devices else None), "date": date,
               "total_gpu_time_us": round(total, 3), "time_source": source,
               "kernels": kernels, "skipped": skipped}
    if hook:
        capture["reach"] = reach(kernels, skipped)
    warnings = [w for p in processes for w in p.get("warnings", [])]
    if warnings:
        capture["warnings"] = warnings
    return capture, spec_files, cubin_files, values_files


def reach(kernels, skipped):
    """The shares of the program's GPU time sassx can tune (captured), may not open (NVIDIA's closed-source
    libraries) and could not capture for another reason."""
    closed = sum(s["time_share"] for s in skipped if "closed-source" in (s.get("reason") or ""))
    return {"captured": round(sum(k["time_share"] for k in kernels), 6), "closed_source": round(closed, 6),
            "other_skipped": round(sum(s["time_share"] for s in skipped) - closed, 6)}


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
        elif fn.endswith(".bin.z"):
            continue  # recorded values: build_capture finds them by name
        elif fn.endswith(".cubin"):
            with open(path, "rb") as f:
                cubins[fn[:-len(".cubin")]] = f.read()
    return processes, cubins, problems


def write_capture(out_dir, capture, spec_files, cubin_files, values_files=None):
    for rel, src in (values_files or {}).items():
        dst = os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
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
