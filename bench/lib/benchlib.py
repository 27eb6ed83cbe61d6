#!/usr/bin/env python3
"""The bench scripts' shared Python: the record of the machine a run used (env.json), results in
compact form under a header naming the device, date and command, and what reports read back.

The device scripts reach it through bench/lib/device.sh; as a program:

  benchlib.py env BASE [--settings S] [--extra TEXT] [--pack DIR] [--command C] [--quiet]
      writes BASE.json (the record: date, command, commit, settings, GPUs with driver and clocks, CUDA,
      host) and BASE.txt (the same as lines for a reader) and prints BASE.txt
  benchlib.py env-end BASE [--device-json PATH] [--set KEY=VALUE ...]
      adds the end date and a second nvidia-smi reading to BASE.json; --device-json also writes the
      before/after form the yield and latency probes' reports read (device.json)
  benchlib.py merge DIR PREFIX DEST [--indent N] [--skip-empty]
      DIR/PREFIX*.json as one object keyed by the name between PREFIX and .json (only a few files come
      back from a device call), then removes the parts
  benchlib.py improved REPORT
      exits 0 when a search's report.json found an improvement

A machine without nvidia-smi (a CPU-only run, the ctest) gets an empty GPU list and the reason, never
an error: the record says what was there.
"""
import argparse
import csv
import datetime
import glob
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys

# Every record reads the same nvidia-smi fields, so that reports compare like with like.
SMI_FIELDS = ("index", "name", "driver_version", "clocks.sm", "clocks.max.sm", "clocks.mem",
              "temperature.gpu", "power.draw")


def _run(cmd, timeout=30):
    """stdout of cmd, or None when it cannot run or fails."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout if p.returncode == 0 else None


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def smi_rows():
    """nvidia-smi's CSV rows (one per GPU, SMI_FIELDS) and an error line when there are none."""
    if shutil.which("nvidia-smi") is None:
        return [], "nvidia-smi not found"
    out = _run(["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader"])
    if out is None:
        return [], "nvidia-smi failed"
    rows = [l.strip() for l in out.splitlines() if l.strip()]
    return rows, None if rows else "nvidia-smi listed no GPU"


def parse_gpu(row):
    """One nvidia-smi row as a dict keyed by SMI_FIELDS ('.' as '_')."""
    cells = next(csv.reader(io.StringIO(row), skipinitialspace=True), [])
    return {f.replace(".", "_"): (cells[i].strip() if i < len(cells) else None) for i, f in enumerate(SMI_FIELDS)}


def cuda_versions():
    """The driver's CUDA version (nvidia-smi's banner) and the toolkit's (nvcc), where present."""
    found = {}
    banner = _run(["nvidia-smi"]) if shutil.which("nvidia-smi") else None
    m = re.search(r"CUDA Version:\s*([0-9.]+)", banner or "")
    if m:
        found["driver"] = m.group(1)
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
    out = _run([nvcc, "--version"]) if nvcc else None
    if out and out.strip():
        found["nvcc"] = out.strip().splitlines()[-1]
    return found


def commit_of_checkout():
    head = _run(["git", "rev-parse", "--short", "HEAD"])
    if head is None:
        return None
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], capture_output=True).returncode != 0
    return head.strip() + (" (with uncommitted changes)" if dirty else "")


def host_info():
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), None)
    except OSError:
        pass
    return {"hostname": platform.node(), "kernel": platform.release(), "cpus": os.cpu_count(), "cpu": cpu,
            "python": platform.python_version()}


def capture_env(settings="", extra="", pack=None, command=None):
    """The standard record of the machine and the run (what env.json holds)."""
    rows, err = smi_rows()
    env = {"date": utc_now(), "command": command or " ".join(sys.argv), "commit": commit_of_checkout()}
    if pack:
        try:
            with open(os.path.join(pack, "commit.txt")) as f:
                env["pack_commit"] = " ".join(f.read().split())
        except OSError:
            pass
    env["settings"] = settings
    env["gpus"] = [parse_gpu(r) for r in rows]
    env["nvidia_smi_fields"] = ",".join(SMI_FIELDS)
    env["nvidia_smi"] = rows
    if err:
        env["nvidia_smi_error"] = err
    env["cuda"] = cuda_versions()
    env["host"] = host_info()
    env["extra"] = [l for l in extra.splitlines() if l.strip()]
    return env


def env_lines(env):
    """env.json as the lines of env.txt."""
    L = [f"date: {env.get('date')}", f"command: {env.get('command')}"]
    commit = env.get("commit") or "?"
    if env.get("pack_commit"):
        commit += f"; pack built at {env['pack_commit']}"
    L.append(f"commit: {commit}")
    if env.get("settings"):
        L.append(f"settings: {env['settings']}")
    L.append(f"gpus ({env.get('nvidia_smi_fields')}):" if env.get("nvidia_smi") else
             f"gpus: none ({env.get('nvidia_smi_error', '?')})")
    L += [f"  {r}" for r in env.get("nvidia_smi", [])]
    cuda = env.get("cuda", {})
    if cuda:
        L.append("cuda: " + "; ".join(f"{k} {v}" for k, v in cuda.items()))
    h = env.get("host", {})
    L.append(f"host: {h.get('hostname')}, kernel {h.get('kernel')}, {h.get('cpus')} cpus ({h.get('cpu')}), "
             f"python {h.get('python')}")
    L += env.get("extra", [])
    if env.get("end"):
        L.append(f"end: {env['end']}")
        L += [f"  after: {r}" for r in env.get("nvidia_smi_after", [])]
    return L


def write_env(base, env):
    with open(base + ".json", "w") as f:
        json.dump(env, f, indent=1)
    with open(base + ".txt", "w") as f:
        f.write("\n".join(env_lines(env)) + "\n")


def read_env(run_dir, name="env"):
    """RUN_DIR/NAME.json, or None where the run predates the standard record (its env.txt is free text)."""
    path = os.path.join(run_dir, name + ".json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def gpu_summary(env, fields=("index", "name", "driver_version", "clocks_sm", "clocks_max_sm")):
    """'0, NVIDIA H200, 570.86, 1980 MHz, 1980 MHz; 1, …': the GPUs of a record, for a report's line."""
    return "; ".join(", ".join(str(g.get(k)) for k in fields) for g in env.get("gpus", [])) or "?"


def device_name(env):
    """The first GPU's name (a run's GPUs are one model), or 'no GPU'."""
    gpus = env.get("gpus") or []
    return gpus[0].get("name") if gpus else "no GPU"


def header(env):
    """The device/date/command header of a compact result."""
    gpus = env.get("gpus") or [{}]
    return {"device": device_name(env), "driver": gpus[0].get("driver_version"), "date": env.get("date"),
            "command": env.get("command"), "commit": env.get("pack_commit") or env.get("commit")}


def write_json(path, data, env):
    """DATA under a device/date/command header, without indentation (the results' size budget)."""
    with open(path, "w") as f:
        json.dump({"env": header(env), "data": data}, f, separators=(",", ":"), ensure_ascii=False)


def write_csv(path, rows, fields, env):
    """ROWS (dicts) as CSV, after '# key: value' lines of the header; read_csv reads both back."""
    with open(path, "w", newline="") as f:
        for k, v in header(env).items():
            f.write(f"# {k}: {v}\n")
        w = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def read_csv(path):
    """(header dict, rows) of a write_csv file."""
    head, body = {}, []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("# ") and ": " in line:
                k, v = line[2:].rstrip("\n").split(": ", 1)
                head[k] = v
            else:
                body.append(line)
    return head, list(csv.DictReader(body))


def end_env(base, device_json=None, sets=()):
    env = read_env(os.path.dirname(base) or ".", os.path.basename(base)) or capture_env()
    rows, _ = smi_rows()
    env["end"] = utc_now()
    env["nvidia_smi_after"] = rows
    write_env(base, env)
    if device_json:
        dev = {"start": env["date"], "end": env["end"], "nvidia_smi_before": "\n".join(env.get("nvidia_smi", [])),
               "nvidia_smi_after": "\n".join(rows), "kernel": env.get("host", {}).get("kernel"),
               "nvidia_smi_fields": env.get("nvidia_smi_fields"), "command": env.get("command")}
        dev.update(dict(s.split("=", 1) for s in sets))
        with open(device_json, "w") as f:
            json.dump(dev, f, indent=1)
    print("before: " + " | ".join(env.get("nvidia_smi", [])))
    print("after:  " + " | ".join(rows))


def merge(directory, prefix, dest, indent=1, skip_empty=False):
    parts = sorted(glob.glob(os.path.join(directory, prefix + "*.json")))
    merged = {}
    for p in parts:
        with open(p) as f:
            merged[os.path.basename(p)[len(prefix):-len(".json")]] = json.load(f)
    if merged or not skip_empty:
        with open(dest, "w") as f:
            json.dump(merged, f, indent=indent)
    for p in parts:
        os.remove(p)


def improved(report):
    try:
        with open(report) as f:
            return bool(json.load(f)["improved"])
    except (OSError, ValueError, KeyError, TypeError):
        return False


def main(argv):
    ap = argparse.ArgumentParser(prog="benchlib.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    e = sub.add_parser("env")
    e.add_argument("base")
    e.add_argument("--settings", default="")
    e.add_argument("--extra", default="")
    e.add_argument("--pack")
    e.add_argument("--command")
    e.add_argument("--quiet", action="store_true")
    n = sub.add_parser("env-end")
    n.add_argument("base")
    n.add_argument("--device-json")
    n.add_argument("--set", action="append", default=[])
    m = sub.add_parser("merge")
    m.add_argument("dir")
    m.add_argument("prefix")
    m.add_argument("dest")
    m.add_argument("--indent", type=int, default=1)
    m.add_argument("--skip-empty", action="store_true")
    i = sub.add_parser("improved")
    i.add_argument("report")
    a = ap.parse_args(argv)
    try:
        if a.what == "env":
            env = capture_env(a.settings, a.extra, a.pack, a.command)
            write_env(a.base, env)
            if not a.quiet:
                print("\n".join(env_lines(env)))
        elif a.what == "env-end":
            end_env(a.base, a.device_json, a.set)
        elif a.what == "merge":
            merge(a.dir, a.prefix, a.dest, a.indent, a.skip_empty)
        elif a.what == "improved":
            return 0 if improved(a.report) else 1
    except (OSError, ValueError) as err:
        print(f"benchlib.py {a.what}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
