#!/usr/bin/env python3
"""The bench library (bench/lib/device.sh, bench/lib/benchlib.py), on the CPU:

  - sourced with a fake nvidia-smi first on PATH, bench_env writes env.json with the date, command,
    settings, every GPU's name, driver and clocks and the driver's CUDA version, and bench_env_end the
    probes' device.json; with an nvidia-smi that fails, the record says so and the script goes on;
  - bench_pack unpacks a carried pack (the pack's tarball, then its lib.tar.xz) and exports the worker,
    the resources, the kernels and the pack's nvdisasm;
  - bench_merge and bench_improved do what the device scripts rely on;
  - a report (bench/eval/remeasure_coverage.py) reads its device line from env.json;
  - no bench script re-implements what the library does (the idioms it replaced, by pattern).

  check_bench_lib.py REPO_ROOT      exits 1 naming the first failed check
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
DEVICE_SH = os.path.join(ROOT, "bench", "lib", "device.sh")

FAKE_SMI = """#!/bin/sh
case "$1" in
  --query-gpu=*) printf '0, NVIDIA H200, 570.86.15, 1980 MHz, 1980 MHz, 3201 MHz, 31, 75.20 W\\n'
                 printf '1, NVIDIA H200, 570.86.15, 345 MHz, 1980 MHz, 3201 MHz, 29, 70.00 W\\n' ;;
  -L) printf 'GPU 0: NVIDIA H200\\nGPU 1: NVIDIA H200\\n' ;;
  *) echo '| NVIDIA-SMI 570.86.15    Driver Version: 570.86.15    CUDA Version: 12.8 |' ;;
esac
"""

# What the library replaced: a device script doing one of these again is a copy to fold back into it.
# (pattern, what it is); checked in bench/**/*.sh outside bench/lib, bench/results and bench/blackwell.
COPIES = [
    (r"nvidia-smi\s+--query-gpu", "an nvidia-smi environment record (bench_env)"),
    (r"\{\s*date -u", "a hand-made env.txt block (bench_env)"),
    (r"/proc/cpuinfo|\blscpu\b", "a hand-made machine line (bench_env)"),
    (r"device_record\.sh|\bdevice_(before|after)\b", "the old yield device record (bench_env, bench_env_end)"),
    (r"export\s+SASSX_WORKER=", "worker exports (bench_pack)"),
    (r"SASSX_NVDISASM=\$\{?\w+\}?/bin/nvdisasm", "the pack's nvdisasm export (bench_pack)"),
    (r"tar\s+-?x[Jz]f\s+\S*\.deps/\S+\.(tar\.xz|tar\.gz|tgz)\s+-C\s+\.deps", "unpacking a pack (bench_unpack)"),
    (r"tar\s+-?x[Jz]f\s+\"?\$\{?\w+\}?/(lib\.tar\.xz|data\.tgz)", "unpacking a pack's parts (bench_unpack)"),
    (r"\['improved'\] else 1", "reading a report's improved flag (bench_improved)"),
    (r"json\.dump\(merged", "merging per-run JSON files (bench_merge)"),
]
SHELL_ONLY_IN_PACK_LIB = [(r"getsitepackages", "looking for the wheel's nvdisasm (pack_nvdisasm)")]


def fail(msg):
    print(f"check_bench_lib: {msg}")
    sys.exit(1)


def bash(script, cwd, path_first=None, env_extra=None):
    env = dict(os.environ)
    if path_first:
        env["PATH"] = path_first + os.pathsep + env["PATH"]
    env.update(env_extra or {})
    p = subprocess.run(["bash", "-c", f"set -euo pipefail; source '{DEVICE_SH}'; {script}"], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"bash exited {p.returncode}: {script}\n{p.stdout}{p.stderr}")
    return p.stdout


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def check_env(tmp):
    fake = os.path.join(tmp, "fakebin")
    os.makedirs(fake)
    write_exe(os.path.join(fake, "nvidia-smi"), FAKE_SMI)
    out = os.path.join(tmp, "run")
    printed = bash(f"bench_env '{out}/env' 'N=3 BUDGET=90 --processes 5' 'torch 2.9'; "
                   f"bench_env_end '{out}/env' '{out}/device.json' variants=v.tgz", ROOT, fake)
    env = json.load(open(os.path.join(out, "env.json")))
    datetime.datetime.strptime(env["date"], "%Y-%m-%dT%H:%M:%SZ")
    datetime.datetime.strptime(env["end"], "%Y-%m-%dT%H:%M:%SZ")
    if "bench_env" not in env["command"]:
        fail(f"env.json's command is not the shell's command line: {env['command']!r}")
    if env["settings"] != "N=3 BUDGET=90 --processes 5" or env["extra"] != ["torch 2.9"]:
        fail(f"settings or extra lost: {env['settings']!r} {env['extra']!r}")
    gpus = env["gpus"]
    if [g["name"] for g in gpus] != ["NVIDIA H200"] * 2 or gpus[1]["clocks_sm"] != "345 MHz" \
            or gpus[0]["driver_version"] != "570.86.15" or gpus[0]["power_draw"] != "75.20 W":
        fail(f"GPUs not read from nvidia-smi: {gpus}")
    if env["cuda"].get("driver") != "12.8":
        fail(f"the driver's CUDA version is not nvidia-smi's: {env['cuda']}")
    in_git = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True).returncode == 0
    if in_git and not re.match(r"[0-9a-f]{7,}", env.get("commit") or ""):
        fail(f"no commit in env.json: {env.get('commit')!r}")
    txt = open(os.path.join(out, "env.txt")).read()
    if "settings: N=3 BUDGET=90" not in txt or "NVIDIA H200, 570.86.15, 345 MHz" not in txt or "date: " not in printed:
        fail("env.txt does not carry the record's lines")
    dev = json.load(open(os.path.join(out, "device.json")))
    for key in ("start", "end", "nvidia_smi_before", "nvidia_smi_after", "kernel", "nvidia_smi_fields"):
        if key not in dev:
            fail(f"device.json lacks {key}")
    if dev["variants"] != "v.tgz" or dev["nvidia_smi_before"].count("NVIDIA H200") != 2:
        fail(f"device.json: {dev}")

    # An nvidia-smi that fails: the record says why and the script goes on (set -e included).
    broken = os.path.join(tmp, "brokenbin")
    os.makedirs(broken)
    write_exe(os.path.join(broken, "nvidia-smi"), "#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
    bash(f"bench_env '{tmp}/cpu/env' 'CPU only' > /dev/null; echo went on > '{tmp}/cpu/after'", ROOT, broken)
    cpu = json.load(open(os.path.join(tmp, "cpu", "env.json")))
    if cpu["gpus"] or cpu.get("nvidia_smi_error") != "nvidia-smi failed" or not os.path.exists(f"{tmp}/cpu/after"):
        fail(f"a failing nvidia-smi is not recorded as such: {cpu.get('gpus')} {cpu.get('nvidia_smi_error')}")
    return out


def check_pack(tmp):
    work = os.path.join(tmp, "checkout")
    stage = os.path.join(tmp, "stage", "suite")
    os.makedirs(os.path.join(stage, "bin"))
    os.makedirs(os.path.join(stage, "kernels"))
    os.makedirs(os.path.join(tmp, "stage", "lib"))
    for exe in ("sassx-worker", "nvdisasm"):
        write_exe(os.path.join(stage, "bin", exe), "#!/bin/sh\n")
    open(os.path.join(tmp, "stage", "lib", "libQt6Core.so.6"), "w").write("lib")
    with tarfile.open(os.path.join(stage, "lib.tar.xz"), "w:xz") as t:
        t.add(os.path.join(tmp, "stage", "lib"), "lib")
    os.makedirs(os.path.join(work, ".deps"))
    with tarfile.open(os.path.join(work, ".deps", "suite.tar.xz"), "w:xz") as t:
        t.add(stage, "suite")
    out = bash('bench_pack "$PWD/.deps/suite"; echo "$SASSX_WORKER|$SASSX_RESOURCES|$SASSX_EVAL_KERNELS_DIR|'
               '$SASSX_NVDISASM|$PATH"', work)
    worker, resources, kernels, nvdisasm, path = out.strip().split("|")
    d = os.path.join(work, ".deps", "suite")
    if (worker, resources, kernels, nvdisasm) != (f"{d}/bin/sassx-worker", f"{work}/resources", f"{d}/kernels",
                                                  f"{d}/bin/nvdisasm"):
        fail(f"bench_pack's exports: {out.strip()}")
    if not path.endswith(":/usr/local/cuda/bin"):
        fail("bench_pack does not put the toolkit's bin after PATH")
    if not os.path.isfile(os.path.join(d, "lib", "libQt6Core.so.6")):
        fail("bench_pack did not unpack the pack's lib.tar.xz")
    first = bash('bench_pack "$PWD/.deps/suite" bin-first; echo "$PATH"', work).strip()
    if not first.startswith(f"{d}/bin:"):
        fail("bench_pack bin-first does not put the pack's bin first")


def check_merge_improved(tmp):
    d = os.path.join(tmp, "merge")
    os.makedirs(d)
    for name, value in (("tp-a", {"x": 1}), ("tp-b", {"x": 2}), ("other", {"y": 0})):
        json.dump(value, open(os.path.join(d, name + ".json"), "w"))
    json.dump({"improved": True}, open(os.path.join(d, "yes.json"), "w"))
    json.dump({"improved": False}, open(os.path.join(d, "no.json"), "w"))
    out = bash(f"bench_merge '{d}' tp- '{d}/all.json' --indent 2; bench_merge '{d}' none- '{d}/none.json' --skip-empty; "
               f"bench_improved '{d}/yes.json' && echo yes; bench_improved '{d}/no.json' || echo no; "
               f"bench_improved '{d}/missing.json' || echo missing", ROOT)
    if json.load(open(os.path.join(d, "all.json"))) != {"a": {"x": 1}, "b": {"x": 2}}:
        fail("bench_merge did not key the parts by name")
    if os.path.exists(os.path.join(d, "tp-a.json")) or not os.path.exists(os.path.join(d, "other.json")):
        fail("bench_merge removed the wrong files")
    if os.path.exists(os.path.join(d, "none.json")):
        fail("bench_merge --skip-empty wrote an empty file")
    if out.split() != ["yes", "no", "missing"]:
        fail(f"bench_improved: {out.split()}")


def check_results(tmp, run):
    """write_json and write_csv put the record's device, date and command above the data; read_csv reads both."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
    import benchlib
    env = benchlib.read_env(run)
    if env is None or benchlib.read_env(tmp) is not None:
        fail("read_env does not tell a run with env.json from one without")
    benchlib.write_json(os.path.join(tmp, "r.json"), {"speedup": 1.02}, env)
    j = json.load(open(os.path.join(tmp, "r.json")))
    if j["data"] != {"speedup": 1.02} or j["env"]["device"] != "NVIDIA H200" or j["env"]["date"] != env["date"] \
            or "bench_env" not in j["env"]["command"]:
        fail(f"write_json's header: {j.get('env')}")
    rows = [{"kernel": "rmsnorm", "speedup": "1.0100"}, {"kernel": "sgemm, leaky", "speedup": "0.9900"}]
    benchlib.write_csv(os.path.join(tmp, "r.csv"), rows, ["kernel", "speedup"], env)
    head, back = benchlib.read_csv(os.path.join(tmp, "r.csv"))
    if back != rows or head.get("device") != "NVIDIA H200" or head.get("driver") != "570.86.15":
        fail(f"write_csv/read_csv round trip: {head} {back}")


def check_report(run):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "eval", "remeasure_coverage.py"), run],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or "0, NVIDIA H200, 570.86.15, 1980 MHz" not in p.stdout or "N=3 BUDGET=90" not in p.stdout:
        fail(f"remeasure_coverage.py does not read env.json: {p.stdout[:300]}{p.stderr[-300:]}")


def bench_scripts():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "bench"], capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(dp, f), ROOT) for dp, _, fs in os.walk(os.path.join(ROOT, "bench"))
                 for f in fs]
    skip = ("bench/lib/", "bench/results/", "bench/blackwell/")
    return [f for f in files if f.endswith(".sh") and not f.startswith(skip) and os.path.isfile(os.path.join(ROOT, f))]


def check_no_copies():
    found = []
    for rel in bench_scripts():
        text = open(os.path.join(ROOT, rel), errors="replace").read()
        rules = COPIES + ([] if rel == "bench/pack_lib.sh" else SHELL_ONLY_IN_PACK_LIB)
        for pattern, what in rules:
            for m in re.finditer(pattern, text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{rel}:{line}: {what}")
    if found:
        fail(f"{len(found)} bench script lines repeat what bench/lib/device.sh does:\n  " + "\n  ".join(found))


def main():
    if not os.path.isfile(DEVICE_SH):
        fail(f"no {DEVICE_SH}")
    with tempfile.TemporaryDirectory() as tmp:
        run = check_env(tmp)
        check_pack(tmp)
        check_merge_improved(tmp)
        check_results(tmp, run)
        check_report(run)
    check_no_copies()
    print("check_bench_lib: env.json, bench_pack, bench_merge, bench_improved and the reports' env.json "
          f"reading work; none of {len(bench_scripts())} bench scripts repeats them")


if __name__ == "__main__":
    main()
