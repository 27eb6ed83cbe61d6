#!/usr/bin/env python3
"""The GPU suite's report: device, driver, date, commit, and pass/skip/fail per test function and per CLI
check, from a run of bench/gpu_suite/run_device.sh.

  report.py RUN_DIR OUT.md     RUN_DIR: the run's gpu-suite directory (copied into bench/results)
Exits 1 when anything failed, so a script can tell.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402


def functions(path):
    """(function, status, message) per QtTest line of a -o FILE,txt log."""
    out = []
    for line in open(path, errors="replace"):
        m = re.match(r"(PASS|SKIP|FAIL!|XFAIL|XPASS|BPASS|BFAIL)\s*: \S+::(\w+)\(([^)]*)\)\s*(.*)", line)
        if m:
            status = {"PASS": "pass", "SKIP": "skip", "XFAIL": "pass"}.get(m.group(1), "fail")
            name = m.group(2) + (f"({m.group(3)})" if m.group(3) else "")
            out.append((name, status, m.group(4).strip()))
    return out


def main():
    run, dest = sys.argv[1], sys.argv[2]
    record = benchlib.read_env(run)
    if record:
        date = record["date"]
        gpus = [benchlib.gpu_summary(record, ("name", "driver_version", "clocks_sm", "clocks_max_sm"))]
        toolkit = [record["cuda"]["nvcc"]] if record.get("cuda", {}).get("nvcc") else []
    else:  # a run before env.json: the date, one nvidia-smi line per GPU of the host, nvcc's
        env = open(os.path.join(run, "env.txt")).read().strip().splitlines()
        date = env[0]
        gpus = [l for l in env[1:] if "cuda_" not in l]
        toolkit = [l for l in env[1:] if "cuda_" in l]
    commit = open(os.path.join(run, "commit.txt")).read().strip().replace("\n", " ")
    rows, counts = [], {"pass": 0, "skip": 0, "fail": 0}
    rcs = dict(l.split(" rc=") for l in open(os.path.join(run, "tests-rc.txt")).read().split("\n") if " rc=" in l)
    for test, rc in rcs.items():
        log = os.path.join(run, test + ".txt")
        fns = functions(log) if os.path.exists(log) else []
        if not fns:
            fns = [("(whole test)", "fail", f"no QtTest output, exit {rc}")]
        for name, status, msg in fns:
            if name in ("initTestCase", "cleanupTestCase") and status == "pass":
                continue
            counts[status] += 1
            rows.append((test, name, status, msg))
    cli = []
    tsv = os.path.join(run, "cli.tsv")
    for line in open(tsv) if os.path.exists(tsv) else []:
        name, status, rc, command = line.rstrip("\n").split("\t")
        counts["pass" if status == "pass" else "fail"] += 1
        cli.append((name, status, rc, command.replace(os.path.dirname(run), "…")))
    with open(dest, "w") as f:
        f.write("# GPU suite\n\n")
        f.write(f"- Date: {date}\n- Device and driver (GPU 0 ran the suite): {'; '.join(gpus) or '?'}\n")
        if toolkit:
            f.write(f"- Toolkit: {toolkit[0]}\n")
        f.write(f"- Commit: {commit}\n")
        f.write("- Command: `bench/gpu_suite/pack.sh build`, then on the device "
                "`OUT=$OUT bash bench/gpu_suite/run_device.sh`; this file: "
                f"`python3 bench/gpu_suite/report.py {os.path.relpath(run)} {os.path.relpath(dest)}`\n\n")
        f.write(f"**{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped.**\n\n")
        f.write("| test | function | result | note |\n|---|---|---|---|\n")
        for test, name, status, msg in rows:
            f.write(f"| {test} | {name} | {status} | {msg.replace('|', '/')[:160]} |\n")
        if cli:
            f.write("\n| CLI check | result | exit | command |\n|---|---|---|---|\n")
            for name, status, rc, command in cli:
                f.write(f"| {name} | {status} | {rc} | `{command}` |\n")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped -> {dest}")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
