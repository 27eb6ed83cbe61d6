"""Kernels captured at the CUDA driver by libsassx_hook.so (docs/driver-capture.md): finding the hook and
CUPTI, the environment that injects it, and turning what each process's hook wrote into capture.json
entries, launch specs and skip reasons.  Pure functions past `hook_environment`: tested without a GPU on
recorded hook output (tests/app/capture).

The hook sees every kernel the program launches, Triton's too.  A Triton kernel (its cubin is one the
Triton recorder recorded) keeps its Triton record, which knows dtypes and the cache entry; the hook adds
its GPU time.  Every other kernel is listed with its origin (the shared library that loaded it, or an
image compiled at run time), its share of GPU time and, where it was not captured, why.
"""
import glob
import hashlib
import json
import os
import re
import shutil
import site

from . import spec_json
from .process_files import read_process_files

DRIVER_DIR = "driver"  # under the capture's raw/: what the hook writes
RECORDS_FORMAT = "sassx-driver-records"
ENV_INJECTION = "CUDA_INJECTION64_PATH"
ENV_CAPTURE = "SASSX_HOOK_CAPTURE"
ENV_TUNED = "SASSX_TUNED"
ENV_TIME_KEYS = "SASSX_HOOK_TIME_KEYS"
ENV_MAX_SNAPSHOT = "SASSX_HOOK_MAX_SNAPSHOT"
HOOK_NAME = "libsassx_hook.so"
HOOK_TIME_SOURCE = ("CUDA events around every kernel launch, from the driver hook: every kernel of the "
                    "program (Triton, libraries, JIT)")


def kernel_key(image_sha256, symbol):
    """The key the hook, the tuned manifest and the timer share for a kernel captured at the driver."""
    return f"{image_sha256}/{symbol}"


def find_hook(env=None):
    """(path, None) or (None, why): $SASSX_HOOK, else the build tree beside this package."""
    env = os.environ if env is None else env
    if env.get("SASSX_HOOK"):
        p = env["SASSX_HOOK"]
        return (p, None) if os.path.isfile(p) else (None, f"$SASSX_HOOK {p} is not a file")
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    build = env.get("SASSX_BUILD_DIR") or os.path.join(root, "build")
    p = os.path.join(build, "app", "hook", HOOK_NAME)
    if os.path.isfile(p):
        return p, None
    return None, (f"{HOOK_NAME} not found (built into build/app/hook/ where the CUDA toolkit's headers are; "
                  "set SASSX_HOOK to it): only Triton kernels are captured")


def find_cupti(env=None):
    """libcupti for the hook: $SASSX_CUPTI, the nvidia-cuda-cupti wheel PyTorch installs, the toolkit's;
    None lets the hook ask the loader."""
    env = os.environ if env is None else env
    if env.get("SASSX_CUPTI"):
        return env["SASSX_CUPTI"]
    roots = []
    try:
        roots += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:
        pass
    patterns = [os.path.join(r, "nvidia", "cuda_cupti", "lib", "libcupti.so*") for r in roots]
    patterns += [os.path.join(r, "nvidia", "cu*", "lib", "libcupti.so*") for r in roots]
    cuda = env.get("CUDA_HOME") or "/usr/local/cuda"
    patterns += [os.path.join(cuda, "extras", "CUPTI", "lib64", "libcupti.so*"),
                 os.path.join(cuda, "lib64", "libcupti.so*")]
    for pat in patterns:
        found = sorted(glob.glob(pat), key=lambda p: (-len(p), p))
        if found:
            return found[0]
    return None


def hook_environment(env, hook, capture_dir=None, time_keys=None, tuned=None, max_snapshot_bytes=None):
    """`env` with the hook injected.  The time directory is the launch timer's (bootstrap.ENV_TIME_DIR),
    set by the caller; `time_keys` narrows the hook's timing to those kernels."""
    env = dict(env)
    env[ENV_INJECTION] = hook
    # Every module loaded when the program loads it, not at a kernel's first launch: the hook must know a
    # kernel's cubin before that launch to record, time or replace it (the user's own setting wins).
    env.setdefault("CUDA_MODULE_LOADING", "EAGER")
    if capture_dir:
        # XLA otherwise takes most of the GPU as one allocation at start, and each kernel's arguments would
        # span all of it; its "platform" allocator gives every buffer its own (capture runs only).
        env.setdefault("XLA_PYTHON_CLIENT_ALLOCATOR", "platform")
    cupti = find_cupti(env)
    if cupti:
        env["SASSX_CUPTI"] = cupti
    if capture_dir:
        env[ENV_CAPTURE] = capture_dir
    if time_keys is not None:
        env[ENV_TIME_KEYS] = json.dumps(sorted(time_keys))
    if tuned:
        env[ENV_TUNED] = os.path.abspath(tuned)
    if max_snapshot_bytes:
        env[ENV_MAX_SNAPSHOT] = str(int(max_snapshot_bytes))
    return env


def read_driver_records(driver_dir):
    """(processes, problems) from the <pid>.driver.json files the hook wrote."""
    return read_process_files(driver_dir, ".driver.json", RECORDS_FORMAT, 1)


def merge_driver(processes):
    """(kernels by key in order of first sight, images by sha): launches and GPU times summed over
    processes; a kernel's spec from the first process that recorded it."""
    kernels, images = {}, {}
    for proc in processes:
        for img in proc.get("images", []):
            images.setdefault(img.get("sha256"), img)
        for k in proc.get("kernels", []):
            key = k.get("key")
            m = kernels.setdefault(key, {"key": key, "symbol": k.get("symbol"), "image_sha256": k.get("image_sha256"),
                                         "launches": 0, "gpu_time_us": 0.0, "graph_captured_launches": 0,
                                         "spec": None, "skipped": None})
            m["launches"] += int(k.get("launches") or 0)
            m["gpu_time_us"] += float(k.get("gpu_time_us") or 0.0)
            m["graph_captured_launches"] += int(k.get("graph_captured_launches") or 0)
            if k.get("spec") and not m["spec"]:
                m["spec"], m["skipped"] = k["spec"], None
            elif k.get("skipped") and not m["spec"] and not m["skipped"]:
                m["skipped"] = k["skipped"]
    return list(kernels.values()), images


def safe_name(symbol):
    """A file-safe capture name for a kernel symbol (mangled C++ names hold ':' '<' ...)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", symbol or "kernel")[:80]
    return s or "kernel"


def origin_of(kernel, images):
    img = images.get(kernel.get("image_sha256")) or {}
    return img.get("origin") or "unknown", img.get("library") or None, img.get("closed_source"), img.get("arch")


def skip_reason(kernel, images):
    """Why a driver kernel has no spec: the hook's reason, else a graph-only kernel's, else none given."""
    if kernel.get("skipped"):
        return kernel["skipped"]
    if kernel.get("launches", 0) == 0 and kernel.get("graph_captured_launches"):
        return ("launched only inside CUDA graphs, which replay without a launch call: capture without CUDA "
                "graphs")
    _, _, closed, _ = origin_of(kernel, images)
    if closed:
        return f"{closed} is NVIDIA's closed-source library: its license does not allow disassembling its kernels"
    return "the hook recorded no launch spec for it"


def driver_entries(kernels, images, driver_dir, taken_names, triton_shas, share):
    """(capture entries, skipped entries, files {destination name: ("spec", spec) | ("copy", source)}) for
    the kernels the hook saw that are not Triton's.  `share(us)` gives a time share; `taken_names` the
    capture names already used (updated)."""
    entries, skipped, files = [], [], {}
    for k in kernels:
        if k.get("image_sha256") in triton_shas:
            continue  # a Triton kernel: its Triton record stands
        origin, library, closed, arch = origin_of(k, images)
        name = base = safe_name(k.get("symbol"))
        n = 1
        while name in taken_names:
            n += 1
            name = f"{base}_{n}"
        taken_names.add(name)
        common = {"name": name, "origin": origin, "library": library, "launches": k["launches"],
                  "gpu_time_us": round(k["gpu_time_us"], 3), "time_share": share(k["gpu_time_us"])}
        spec, reason = None, None
        if k.get("spec"):
            spec, reason = _load_spec(os.path.join(driver_dir, k["spec"]))
        else:
            reason = skip_reason(k, images)
        if spec is None:
            skipped.append(dict(common, reason=reason))
            continue
        cubin_name = f"{name}.{arch or 'unknown'}.cubin"
        src_cubin = os.path.join(driver_dir, spec.get("cubin") or "")
        if not os.path.isfile(src_cubin):
            skipped.append(dict(common, reason="the hook did not write the kernel's cubin"))
            continue
        files[cubin_name] = ("copy", src_cubin)
        for p in spec.get("memory", []) + spec.get("params", []):
            init = p.get("init") or {}
            if init.get("kind") == "recorded":
                dst = f"{name}.values/{p['name']}.bin.z"
                files[dst] = ("copy", os.path.join(driver_dir, init["file"]))
                init["file"] = dst
        spec["name"], spec["cubin"] = name, cubin_name
        spec_name = f"{name}.launch.json"
        files[spec_name] = ("spec", spec)
        entries.append(dict(common, hash=k["key"], symbol=k.get("symbol"), image_sha256=k.get("image_sha256"),
                            spec=spec_name, cubin=cubin_name))
    return entries, skipped, files


def _load_spec(path):
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, f"the hook's launch spec cannot be read: {e}"


def write_files(out_dir, files):
    for name, (kind, what) in files.items():
        dst = os.path.join(out_dir, name)
        os.makedirs(os.path.dirname(dst) or out_dir, exist_ok=True)
        if kind == "spec":
            spec_json.dump(what, dst)
        else:
            shutil.copyfile(what, dst)


def sha256_hex(blob):
    return hashlib.sha256(blob).hexdigest()
