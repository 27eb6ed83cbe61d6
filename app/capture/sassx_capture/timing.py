"""`python -m sassx_capture time --runs N -- PROGRAM ...`: the program's time over N fresh processes.

Each run's figure is the median of the values a `--pattern` regex captures from its output (e.g. a
step time it prints), or the run's wall time without one.  The report gives the median over runs and
a distribution-free confidence interval for it (order statistics of the runs); with `--baseline` it
adds the speed-up baseline/this (>1 = faster) with its interval and the baseline's noise floor.
"""
import math
import re
import statistics
import subprocess
import sys
import time


def median_interval(values, level=0.95):
    """(lo, hi, coverage): the widest-needed order statistics x_(k) <= median <= x_(n+1-k) whose
    coverage under any continuous distribution is >= level, or min..max with its coverage when n is too
    small for that level."""
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        return None, None, 0.0
    best = (xs[0], xs[-1], 1.0 - 2.0 * 0.5 ** n)
    for k in range(1, n // 2 + 1):  # P(x_(k) <= m <= x_(n+1-k)) = 1 - 2 P(Binom(n, 1/2) < k)
        tail = sum(math.comb(n, i) for i in range(k)) * 0.5 ** n
        coverage = 1.0 - 2.0 * tail
        if coverage < level:
            break
        best = (xs[k - 1], xs[n - k], coverage)
    return best


def values_from_output(text, pattern, skip=0):
    vals = []
    for m in re.finditer(pattern, text):
        try:
            vals.append(float(m.group(1) if m.groups() else m.group(0)))
        except ValueError:
            continue
    return vals[skip:]


def run_once(program, pattern, skip, echo):
    t0 = time.perf_counter()
    proc = subprocess.run(program, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    wall = time.perf_counter() - t0
    if echo:
        sys.stderr.write(proc.stdout)
    if proc.returncode != 0:
        last = proc.stdout.strip().splitlines()[-1:] or [""]
        return None, f"exited with status {proc.returncode}: {last[0][:200]}"
    if pattern is None:
        return wall, None
    vals = values_from_output(proc.stdout, pattern, skip)
    if not vals:
        return None, f"printed nothing matching {pattern!r}"
    return statistics.median(vals), None


def measure(program, runs, pattern=None, skip=0, echo=False):
    values, failures = [], []
    for i in range(runs):
        v, err = run_once(program, pattern, skip, echo)
        if err:
            failures.append(f"run {i + 1}: {err}")
        else:
            values.append(v)
    lo, hi, coverage = median_interval(values)
    return {"program": list(program), "runs": runs, "source": "pattern" if pattern else "wall time",
            "pattern": pattern, "unit": "as printed" if pattern else "s", "values": values,
            "median": statistics.median(values) if values else None, "interval": [lo, hi],
            "coverage": coverage, "failures": failures}


def compare(result, baseline):
    """Speed-up of `result` over `baseline` (>1 = faster): ratio of medians, its interval from the two
    intervals (conservative), and the baseline's noise floor (half its interval width over its median)."""
    b, r = baseline, result
    if not b.get("median") or not r.get("median") or None in b["interval"] + r["interval"]:
        return None
    return {"speedup": b["median"] / r["median"],
            "interval": [b["interval"][0] / r["interval"][1], b["interval"][1] / r["interval"][0]],
            "noise_floor": (b["interval"][1] - b["interval"][0]) / 2 / b["median"]}


def text_report(result, speed=None):
    if result["median"] is None:
        return "no run succeeded"
    lo, hi = result["interval"]
    unit = "s" if result["source"] == "wall time" else ""
    line = (f"median {result['median']:.6g}{unit} over {len(result['values'])} runs ({result['source']}), "
            f"interval [{lo:.6g}, {hi:.6g}] ({result['coverage'] * 100:.1f}% coverage)")
    if speed:
        line += (f"\nspeed-up {speed['speedup']:.4f}x (>1 = faster), interval [{speed['interval'][0]:.4f}, "
                 f"{speed['interval'][1]:.4f}], baseline noise floor {speed['noise_floor'] * 100:.2f}%")
    return line
