"""`python -m sassx_capture -o DIR -- PROGRAM ...`: run the program with the recorder in every Python
process it starts, then write DIR/capture.json, the launch specs and the cubins (docs/capture.md)."""
import datetime
import json
import os
import shutil
import subprocess
import sys

from . import bootstrap
from .capture_json import build_capture, read_records, write_capture

BOOT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot")


def child_environment(raw_dir, options, base=None):
    env = dict(os.environ if base is None else base)
    paths = [BOOT_DIR] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env[bootstrap.ENV_RAW_DIR] = raw_dir
    env[bootstrap.ENV_OPTIONS] = json.dumps(options)
    # Inductor's static CUDA launcher calls the driver directly and never Triton's hooks.
    env["TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER"] = "0"
    return env


def run_capture(out_dir, program, int_inputs="skip", max_snapshot_gib=8.0, profiler=True):
    """Returns the process exit status (the program's when it failed)."""
    out_dir = os.path.abspath(out_dir)
    raw_dir = os.path.join(out_dir, "raw")
    try:
        os.makedirs(out_dir, exist_ok=True)
        shutil.rmtree(raw_dir, ignore_errors=True)
        os.makedirs(raw_dir)
    except OSError as e:
        print(f"sassx_capture: cannot write {out_dir}: {e}", file=sys.stderr)
        return 1
    options = {"max_snapshot_bytes": int(max_snapshot_gib * 2**30), "profiler": profiler}
    try:
        rc = subprocess.call(program, env=child_environment(raw_dir, options))
    except OSError as e:
        print(f"sassx_capture: cannot run {program[0]}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        rc = 130
    processes, cubins, problems = read_records(raw_dir)
    for p in problems:
        print(f"sassx_capture: {p}", file=sys.stderr)
    if not processes:
        why = f"the program exited with status {rc}" if rc else "no Triton kernel was launched"
        print(f"sassx_capture: nothing captured: {why}", file=sys.stderr)
        return rc or 1
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    capture, specs, cubin_files = build_capture(processes, program, cubins, int_inputs=int_inputs, date=date)
    write_capture(out_dir, capture, specs, cubin_files)
    print(summary(capture, out_dir))
    if rc:
        print(f"sassx_capture: the program exited with status {rc}: the capture holds what ran before",
              file=sys.stderr)
    return rc


def summary(capture, out_dir):
    lines = [f"captured {len(capture['kernels'])} kernels ({len(capture['skipped'])} skipped) into "
             f"{out_dir}/capture.json; total GPU time {capture['total_gpu_time_us'] / 1000:.3f} ms "
             f"({capture['time_source'].split(':')[0]})"]
    for k in capture["kernels"]:
        lines.append(f"  {k['time_share'] * 100:6.2f}%  {k['gpu_time_us']:12.1f} us  {k['launches']:6d} launches  "
                     f"{k['name']}")
    for s in capture["skipped"]:
        lines.append(f"  skipped {s['name']}: {s['reason']}")
    return "\n".join(lines)
