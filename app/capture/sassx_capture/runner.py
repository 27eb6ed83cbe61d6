"""`python -m sassx_capture -o DIR -- PROGRAM ...`: run the program with the recorder in every Python
process it starts, then write DIR/capture.json, the launch specs and the cubins (docs/capture.md)."""
import datetime
import json
import os
import shutil
import subprocess
import sys

from . import bootstrap, driver
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


def run_capture(out_dir, program, int_inputs="recorded", max_snapshot_gib=8.0, profiler=True, max_values_mib=64.0,
                driver_hook=True):
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
    max_values_bytes = int(max_values_mib * 2**20)
    env_hook = None
    if driver_hook:
        hook, why = driver.find_hook()
        if hook:
            driver_dir = os.path.join(raw_dir, driver.DRIVER_DIR)
            os.makedirs(driver_dir)
            env_hook = dict(capture_dir=driver_dir, max_snapshot_bytes=int(max_snapshot_gib * 2**30))
            # One CUPTI subscriber per process: the hook times every kernel, so no profiler runs beside it.
            profiler = False
        else:
            print(f"sassx_capture: {why}", file=sys.stderr)
    options = {"max_snapshot_bytes": int(max_snapshot_gib * 2**30), "profiler": profiler,
               "max_values_bytes": max_values_bytes}
    env = child_environment(raw_dir, options)
    if env_hook:
        env = driver.hook_environment(env, hook, **env_hook)
    try:
        rc = subprocess.call(program, env=env)
    except OSError as e:
        print(f"sassx_capture: cannot run {program[0]}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        rc = 130
    processes, cubins, problems = read_records(raw_dir)
    driver_processes, driver_problems = driver.read_driver_records(os.path.join(raw_dir, driver.DRIVER_DIR))
    for p in problems + driver_problems:
        print(f"sassx_capture: {p}", file=sys.stderr)
    if not any(p.get("kernels") for p in processes + driver_processes):
        print(f"sassx_capture: nothing captured: {explain_empty(processes, rc)}", file=sys.stderr)
        return rc or 1
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    capture, specs, cubin_files, values = build_capture(processes, program, cubins, int_inputs=int_inputs, date=date,
                                                        raw_dir=raw_dir, max_values_bytes=max_values_bytes,
                                                        driver_processes=driver_processes)
    write_capture(out_dir, capture, specs, cubin_files, values)
    print(summary(capture, out_dir))
    if rc:
        print(f"sassx_capture: the program exited with status {rc}: the capture holds what ran before",
              file=sys.stderr)
    return rc


def _kernels_text(counts, most=4):
    names = sorted(counts, key=lambda n: (-counts[n], n))
    text = ", ".join(names[:most])
    return text + (f" and {len(names) - most} more" if len(names) > most else "")


def explain_empty(processes, rc):
    """Why no kernel was recorded, from what each process's hooks saw (recorder.hooks_report), in terms a
    user can act on."""
    status = f"; the program exited with status {rc}" if rc else ""
    if not processes:
        why = ("no Python process of the program imported triton (the recorder starts in each Python process "
               "the program runs, when it imports triton; a process that ends through os._exit or a signal "
               "writes nothing)")
        return why + status
    hooks = [p.get("hooks") or {} for p in processes]
    n = len(processes)
    installed = sum(1 for h in hooks if h.get("installed"))
    problems = sorted({h["problem"] for h in hooks if h.get("problem")})
    sum_of = lambda key: sum(int(h.get(key) or 0) for h in hooks)  # noqa: E731
    merged = lambda key: {k: sum(int((h.get(key) or {}).get(k, 0)) for h in hooks)  # noqa: E731
                          for h0 in hooks for k in (h0.get(key) or {})}
    hook_only, static = merged("hook_only_launches"), merged("static_launcher_launches")
    graph = sum_of("graph_launches")
    reasons = []
    if not installed:
        reasons.append(f"triton was imported in {n} process{'es' if n > 1 else ''} but the hooks were not "
                       "installed" + (f": {'; '.join(problems)}" if problems else ""))
    if static:
        reasons.append(f"Inductor's static launcher ran {sum(static.values())} launches of {len(static)} "
                       f"kernels ({_kernels_text(static)}) past Triton's hooks: capture with "
                       "torch._inductor.config.use_static_cuda_launcher = False (the capture sets "
                       "TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0; the program overrode it)")
    if hook_only:
        reasons.append(f"Triton's launch hook saw {sum(hook_only.values())} launches of {len(hook_only)} kernels "
                       f"({_kernels_text(hook_only)}) that never called CompiledKernel.launch_metadata, so "
                       "their arguments could not be read")
    if graph:
        reasons.append(f"{graph} Triton launches happened during CUDA-graph capture, and graph replays call no "
                       "hook: capture without CUDA graphs (e.g. torch.compile mode='default')")
    if installed and not (static or hook_only or graph):
        seen = sum_of("launch_metadata_calls") + sum_of("enter_hook_calls")
        if seen:
            reasons.append(f"Triton's hooks saw {seen} calls in {installed} process"
                           f"{'es' if installed > 1 else ''}, but no launch was recorded")
        else:
            reasons.append(f"triton was imported in {n} process{'es' if n > 1 else ''} and its launch hooks "
                           "were installed, but no Triton kernel was launched after that")
    return "; ".join(reasons) + status


def summary(capture, out_dir):
    lines = [f"captured {len(capture['kernels'])} kernels ({len(capture['skipped'])} skipped) into "
             f"{out_dir}/capture.json; total GPU time {capture['total_gpu_time_us'] / 1000:.3f} ms "
             f"({capture['time_source'].split(':')[0]})"]
    for k in capture["kernels"]:
        notes = []
        if k.get("recorded_values"):
            notes.append("recorded values: " + ", ".join(k["recorded_values"]))
        if k.get("aliases"):
            notes.append("aliased: " + ", ".join(k["aliases"]))
        lines.append(f"  {k['time_share'] * 100:6.2f}%  {k['gpu_time_us']:12.1f} us  {k['launches']:6d} launches  "
                     f"{k['name']}" + (f"  ({'; '.join(notes)})" if notes else ""))
    for s in capture["skipped"]:
        share = f"{s['time_share'] * 100:.2f}% " if s.get("time_share") else ""
        where = f" ({s['origin']}: {s['library']})" if s.get("library") else ""
        lines.append(f"  skipped {share}{s['name']}{where}: {s['reason']}")
    r = capture.get("reach")
    if r:
        lines.append(f"sassx can tune {r['captured'] * 100:.1f}% of the GPU time; NVIDIA's closed-source libraries "
                     f"hold {r['closed_source'] * 100:.1f}%; {r['other_skipped'] * 100:.1f}% was not captured "
                     "for the reasons above")
    return "\n".join(lines)
