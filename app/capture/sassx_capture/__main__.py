"""Command line: `python -m sassx_capture [capture] -o DIR -- PROGRAM...` and `python -m sassx_capture time`."""
import argparse
import json
import sys

USAGE = """python -m sassx_capture [capture] -o DIR [options] -- PROGRAM [ARGS...]
       python -m sassx_capture time [--runs N] [--pattern REGEX] [--json] [--baseline FILE] -- PROGRAM [ARGS...]
       python -m sassx_capture time --before CMD --after CMD [--runs N] [--pattern REGEX] [--json]
                                    [--kernel-times | --tune-dir DIR] -- PROGRAM [ARGS...]
       python -m sassx_capture specs DIR      (rewrite DIR's capture.json and specs from DIR/raw)
       python -m sassx_capture run [--tuned DIR] [--print-env] -- PROGRAM [ARGS...]"""


def split_program(argv):
    if "--" not in argv:
        return argv, []
    i = argv.index("--")
    return argv[:i], argv[i + 1:]


def capture_main(argv):
    from .runner import run_capture
    opts, program = split_program(argv)
    ap = argparse.ArgumentParser(prog="python -m sassx_capture", usage=USAGE)
    ap.add_argument("-o", "--out", required=True, help="capture directory")
    ap.add_argument("--int-inputs", choices=("recorded", "range", "skip"), default="recorded",
                    help="integer tensors the kernel reads: the recorded values (default), random ones in the "
                    "recorded range, or skip the kernel")
    ap.add_argument("--max-values-mib", type=float, default=64.0,
                    help="most recorded values per spec, in MiB (default 64); a kernel needing more is skipped")
    ap.add_argument("--max-snapshot-gib", type=float, default=8.0,
                    help="most argument bytes copied to the host at a kernel's first launch (default 8)")
    ap.add_argument("--no-profiler", action="store_true",
                    help="no torch.profiler: the total GPU time counts Triton kernels only (without the driver hook)")
    ap.add_argument("--no-driver", action="store_true",
                    help="Triton kernels only: no driver hook (libsassx_hook.so), which otherwise lists and "
                    "captures every kernel the program launches")
    args = ap.parse_args(opts)
    if not program:
        ap.error("no program after --")
    return run_capture(args.out, program, int_inputs=args.int_inputs, max_snapshot_gib=args.max_snapshot_gib,
                       profiler=not args.no_profiler, max_values_mib=args.max_values_mib,
                       driver_hook=not args.no_driver)


def run_main(argv):
    """`run --tuned DIR -- PROGRAM`: the program with DIR's tuned kernels in place of its own."""
    import os
    import subprocess
    from . import driver
    opts, program = split_program(argv)
    ap = argparse.ArgumentParser(prog="python -m sassx_capture run", usage=USAGE)
    ap.add_argument("--tuned", metavar="DIR", help="a tuned directory (sassx-cli tune DIR --write-back writes "
                    "DIR/tuned): its kernels run in place of the program's own; without it the hook passes "
                    "everything through")
    ap.add_argument("--print-env", action="store_true",
                    help="print the environment a job script sets instead (export lines) and run nothing")
    args = ap.parse_args(opts)
    if not program and not args.print_env:
        ap.error("no program after --")
    hook, why = driver.find_hook()
    if not hook:
        print(f"sassx_capture: {why}", file=sys.stderr)
        return 1
    if args.tuned and not os.path.isfile(os.path.join(args.tuned, "manifest.json")):
        print(f"sassx_capture: --tuned {args.tuned}: no manifest.json (sassx-cli tune DIR --write-back writes "
              "DIR/tuned)", file=sys.stderr)
        return 1
    env = driver.hook_environment(os.environ, hook, tuned=args.tuned)
    if args.print_env:
        import shlex
        for k in (driver.ENV_INJECTION, "SASSX_CUPTI", driver.ENV_TUNED):
            if k in env:
                print(f"export {k}={shlex.quote(env[k])}")
        return 0
    try:
        return subprocess.call(program, env=env)
    except OSError as e:
        print(f"sassx_capture: cannot run {program[0]}: {e}", file=sys.stderr)
        return 1


def specs_main(argv):
    import os
    from .capture_json import build_capture, read_records, write_capture
    ap = argparse.ArgumentParser(prog="python -m sassx_capture specs")
    ap.add_argument("dir")
    ap.add_argument("--int-inputs", choices=("recorded", "range", "skip"), default="recorded")
    ap.add_argument("--max-values-mib", type=float, default=64.0)
    args = ap.parse_args(argv)
    from . import driver
    processes, cubins, problems = read_records(os.path.join(args.dir, "raw"))
    driver_processes, driver_problems = driver.read_driver_records(os.path.join(args.dir, "raw", driver.DRIVER_DIR))
    for p in problems + driver_problems:
        print(f"sassx_capture: {p}", file=sys.stderr)
    if not any(p.get("kernels") for p in processes + driver_processes):
        from .runner import explain_empty
        print(f"sassx_capture: {args.dir}/raw holds no kernel: {explain_empty(processes, 0)}", file=sys.stderr)
        return 1
    old = {}
    try:
        with open(os.path.join(args.dir, "capture.json")) as f:
            old = json.load(f)
    except (OSError, ValueError):
        pass
    raw = os.path.join(args.dir, "raw")
    capture, specs, cubin_files, values = build_capture(
        processes, old.get("program") or (processes[0].get("argv", []) if processes else []), cubins, int_inputs=args.int_inputs,
        date=old.get("date"), raw_dir=raw, max_values_bytes=int(args.max_values_mib * 2**20),
        driver_processes=driver_processes)
    write_capture(args.dir, capture, specs, cubin_files, values)
    from .runner import summary
    print(summary(capture, args.dir))
    return 0


def time_main(argv):
    from .timing import compare, measure, text_report
    opts, program = split_program(argv)
    ap = argparse.ArgumentParser(prog="python -m sassx_capture time", usage=USAGE)
    ap.add_argument("--runs", type=int, default=None,
                    help="fresh runs (default 5), or with --before/--after interleaved pairs (default: the "
                    "fewest whose interval covers 95%%, 6)")
    ap.add_argument("--pattern", help="regex whose group 1 is a time the program prints, e.g. 'step_ms=([0-9.]+)'")
    ap.add_argument("--skip", type=int, default=0, help="matches to drop at the start of each run (warm-up)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--baseline", help="an earlier result (JSON from --json) to report the speed-up against")
    ap.add_argument("--echo", action="store_true", help="copy the program's output to stderr")
    ap.add_argument("--before", metavar="CMD", help="shell command that puts the program in its 'before' state")
    ap.add_argument("--after", metavar="CMD", help="shell command that puts the program in its 'after' state; "
                    "with --before: --runs interleaved pairs, the speed-up paired")
    ap.add_argument("--kernel-times", action="store_true",
                    help="with --before/--after: also time every Triton kernel's launches inside the program")
    ap.add_argument("--tune-dir", metavar="DIR",
                    help="with --before/--after: time the launches of DIR's captured kernels inside the program "
                    "and write DIR/program-time.json, which `sassx-cli tune DIR` shows beside the isolated figures")
    args = ap.parse_args(opts)
    if not program:
        ap.error("no program after --")
    if (args.kernel_times or args.tune_dir) and args.before is None:
        ap.error("--kernel-times and --tune-dir need --before/--after (the kernel speed-ups are paired)")
    if args.runs is not None and args.runs < 1:
        ap.error("--runs must be at least 1")
    if (args.before is None) != (args.after is None):
        ap.error("--before and --after go together")
    if args.before is not None:
        if args.baseline:
            ap.error("--baseline does not go with --before/--after (the comparison is paired)")
        return interleaved_main(program, args)
    baseline = None
    if args.baseline:
        try:
            with open(args.baseline) as f:
                baseline = json.load(f)
        except (OSError, ValueError) as e:
            print(f"sassx_capture: --baseline {args.baseline}: {e}", file=sys.stderr)
            return 1
    try:
        result = measure(program, args.runs or 5, args.pattern, args.skip, args.echo)
    except OSError as e:
        print(f"sassx_capture: cannot run {program[0]}: {e}", file=sys.stderr)
        return 1
    speed = compare(result, baseline) if baseline else None
    if speed:
        result["speedup"] = speed
    print(json.dumps(result, indent=1) if args.json else text_report(result, speed))
    for f in result["failures"]:
        print(f"sassx_capture: {f}", file=sys.stderr)
    return 0 if result["values"] and not result["failures"] else 1


def captured_kernels(tune_dir):
    """(capture.json's kernels with each one's symbol, None) or (None, why not)."""
    import os
    path = os.path.join(tune_dir, "capture.json")
    try:
        with open(path) as f:
            kernels = json.load(f)["kernels"]
        for k in kernels:
            k["symbol"] = k["name"]
            try:  # the symbol is the spec's "kernel" (the capture's name may carry a _2 suffix)
                with open(os.path.join(tune_dir, k["spec"])) as f:
                    k["symbol"] = json.load(f).get("kernel") or k["name"]
            except (OSError, ValueError, KeyError, AttributeError):
                pass
    except (OSError, ValueError, KeyError, TypeError) as e:
        return None, f"--tune-dir: {path}: {type(e).__name__}: {e}"
    if not isinstance(kernels, list) or not kernels:
        return None, f"--tune-dir: {path} lists no kernel"
    return kernels, None


def interleaved_main(program, args):
    import os
    from .kernel_times import KernelTiming, program_time_document
    from .stats import MIN_COVERAGE, pairs_needed
    from .timing import interleaved_report, measure_interleaved
    timing = None
    if args.tune_dir:
        kernels, problem = captured_kernels(args.tune_dir)
        if problem:
            print(f"sassx_capture: {problem}", file=sys.stderr)
            return 1
        timing = KernelTiming({k["symbol"] for k in kernels}, kernels, tune_dir=args.tune_dir)
    elif args.kernel_times:
        timing = KernelTiming()
    if args.runs is None:
        args.runs = pairs_needed()
    elif args.runs < pairs_needed():
        print(f"sassx_capture: {args.runs} pairs cannot give {MIN_COVERAGE * 100:.0f}% coverage (that needs "
              f"{pairs_needed()}): every verdict will say the runs do not resolve it", file=sys.stderr)
    try:
        result = measure_interleaved(program, args.runs, args.before, args.after, args.pattern, args.skip,
                                     args.echo, kernel_timing=timing)
    except OSError as e:
        print(f"sassx_capture: cannot run {program[0]}: {e}", file=sys.stderr)
        return 1
    finally:
        if timing:
            timing.close()
    if args.tune_dir and result["speedup"]["ratios"]:
        path = os.path.join(args.tune_dir, "program-time.json")
        try:
            with open(path + ".tmp", "w") as f:
                json.dump(program_time_document(result), f, indent=1)
                f.write("\n")
            os.replace(path + ".tmp", path)
            print(f"sassx_capture: wrote {path}", file=sys.stderr)
        except OSError as e:
            print(f"sassx_capture: cannot write {path}: {e}", file=sys.stderr)
            return 1
    print(json.dumps(result, indent=1) if args.json else interleaved_report(result))
    for f in result["failures"]:
        print(f"sassx_capture: {f}", file=sys.stderr)
    if result["error"]:
        print(f"sassx_capture: {result['error']}", file=sys.stderr)
    return 0 if result["speedup"]["ratios"] and not result["failures"] and not result["error"] else 1


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: " + USAGE)
        return 0 if argv else 2
    if argv[0] == "time":
        return time_main(argv[1:])
    if argv[0] == "specs":
        return specs_main(argv[1:])
    if argv[0] == "run":
        return run_main(argv[1:])
    if argv[0] == "capture":
        argv = argv[1:]
    return capture_main(argv)


if __name__ == "__main__":
    sys.exit(main())
