#!/usr/bin/env python3
"""What the test suite ran, from ctest's log: the totals with skips counted as skips, the list of what
skipped and why, and a failure when a test skipped for a reason ./run.sh exists to remove (nvdisasm, the
samples, the compilers), so that a suite that CI must run cannot pass by skipping.

  test_report.py BUILD_DIR     reads BUILD_DIR/Testing/Temporary/LastTest.log; exits 1 on such a skip

Allowed skips are the ones a machine without a GPU or an optional library must make (no CUDA driver or
GPU, no CUPTI or ncu, no libtorch plug-in) and the data-dependent ones
the tests name.
"""
import os
import re
import sys

# Reasons that mean the set-up did not do its job: these tests must run wherever ./run.sh ran.
MUST_RUN = re.compile(r"nvdisasm not installed|no nvdisasm|not built|was not built|not compiled|"
                      r"no sample cubins|no ptxas|readelf|Xvfb not available|"
                      r"slurm-wlm and munge packages", re.I)


def parse(log):
    tests, current = [], None
    for line in open(log, errors="replace"):
        m = re.match(r"\d+/\d+ Testing: (\S+)", line)
        if m:
            current = {"name": m.group(1), "status": "?", "skips": [], "totals": None}
            tests.append(current)
            continue
        if current is None:
            continue
        if line.startswith("SKIP   : "):
            current["skips"].append(line[9:].strip())
        m = re.match(r"Totals: (\d+) passed, (\d+) failed, (\d+) skipped", line)
        if m:
            current["totals"] = tuple(int(x) for x in m.groups())
        if line.startswith("Skip regular expression found in output"):
            current["status"] = "skipped"
            continue
        # A test with PASS_REGULAR_EXPRESSION ends in "Test Pass Reason:" or "Test Fail Reason:"
        # instead of "Test Passed." / "Test Failed.".
        if line.startswith("Test Pass Reason") and current["status"] != "skipped":
            current["status"] = "passed"
            continue
        if line.startswith("Test Fail Reason"):
            current["status"] = "failed"
            continue
        m = re.match(r"Test (Passed|Failed|Skipped)\.?", line.strip())
        if m and current["status"] != "skipped":
            current["status"] = m.group(1).lower()
        elif line.startswith("Test Failed") or "***Failed" in line or "***Timeout" in line:
            current["status"] = "failed"
    return tests


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    log = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    if not os.path.exists(log):
        print(f"test_report.py: no {log} (did ctest run?)")
        return 1
    tests = parse(log)
    passed = [t for t in tests if t["status"] == "passed"]
    skipped = [t for t in tests if t["status"] == "skipped"]
    failed = [t for t in tests if t["status"] not in ("passed", "skipped")]
    partly = [t for t in passed if t["skips"]]
    must = [(t["name"], s) for t in tests for s in t["skips"] if MUST_RUN.search(s)]
    if skipped:
        print(f"Skipped tests ({len(skipped)}): every test function skipped")
        for t in skipped:
            print(f"  {t['name']}: {t['skips'][0] if t['skips'] else 'no reason printed'}")
    if partly:
        print("Tests that ran with some functions skipped:")
        for t in partly:
            for s in t["skips"]:
                print(f"  {t['name']}: {s}")
    if failed:
        print("Failed: " + ", ".join(t["name"] for t in failed))
    if must:
        print("Skipped for a reason ./run.sh exists to remove (these tests must run here):")
        for name, s in must:
            print(f"  {name}: {s}")
    # A test that skipped something it must run counts as failed, not as passed or skipped.
    mustNames = {name for name, _ in must}
    nPassed = sum(1 for t in passed if t["name"] not in mustNames)
    nSkipped = sum(1 for t in skipped if t["name"] not in mustNames)
    nFailed = len(failed) + len(mustNames - {t["name"] for t in failed})
    print(f"{nPassed} passed, {nFailed} failed, {nSkipped} skipped")
    return 1 if failed or must else 0


if __name__ == "__main__":
    sys.exit(main())
