"""`python -m sassx_capture time --runs N -- PROGRAM ...`: the program's time over N fresh processes.

Each run's figure is the median of the values a `--pattern` regex captures from its output (e.g. a
step time it prints), or the run's wall time without one.  The report gives the median over runs and
a distribution-free confidence interval for it (order statistics of the runs); with `--baseline` it
adds the speed-up baseline/this (>1 = faster) with its interval and the baseline's noise floor.

`python -m sassx_capture time --before CMD --after CMD --runs N -- PROGRAM ...` compares two states of the
same program in interleaved fresh runs: each pair runs CMD-before then the program, CMD-after then the
program (in alternating order, ABBA), so that drift of the machine (clocks, temperature, other tenants)
falls on both sides alike.  The speed-up is the median of the pairs' ratios before/after with its
order-statistic interval; the unpaired medians are reported beside it.
"""
import re
import statistics
import subprocess
import sys
import time

from .kernel_times import TIMING, controls_summary, kernel_rows, kernels_report
from .stats import median_interval, verdict as stats_verdict


def values_from_output(text, pattern, skip=0):
    vals = []
    for m in re.finditer(pattern, text):
        try:
            vals.append(float(m.group(1) if m.groups() else m.group(0)))
        except ValueError:
            continue
    return vals[skip:]


def run_once(program, pattern, skip, echo, env=None):
    t0 = time.perf_counter()
    proc = subprocess.run(program, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                          env=env)
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


def _setup(cmd, echo):
    """Runs a state-switching shell command; its failure stops the comparison (a wrong state would be
    timed as the other)."""
    proc = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    if echo:
        sys.stderr.write(proc.stdout)
    if proc.returncode != 0:
        last = proc.stdout.strip().splitlines()[-1:] or [""]
        return f"{cmd!r} exited with status {proc.returncode}: {last[0][:200]}"
    return None


def measure_interleaved(program, pairs, before_cmd, after_cmd, pattern=None, skip=0, echo=False,
                        kernel_timing=None):
    """`pairs` fresh runs in each state, interleaved ABBA.  Returns the two states' results (as `measure`)
    and the paired speed-up: ratios before/after of each pair whose two runs succeeded (>1 = faster
    after).  A failing setup command ends the comparison with its message in `error`.  With
    `kernel_timing` (kernel_times.KernelTiming), every run also times its kernels' launches and the
    result has each kernel's in-program figures under "kernels"."""
    runs = {"before": [], "after": []}
    failures, ratios, error = [], [], None
    kernel_pairs = []
    setups = {"before": before_cmd, "after": after_cmd}
    for i in range(pairs):
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        got, kernels = {}, {}
        for state in order:
            error = _setup(setups[state], echo)
            if error:
                break
            env, tdir = kernel_timing.environment() if kernel_timing else (None, None)
            v, err = run_once(program, pattern, skip, echo, env)
            if kernel_timing:
                kernels[state] = None if err else kernel_timing.collect(tdir)
            if err:
                failures.append(f"pair {i + 1} ({state}): {err}")
            else:
                got[state] = v
                runs[state].append(v)
        if error:
            break
        kernel_pairs.append(kernels)
        if len(got) == 2 and got["after"] > 0:
            ratios.append(got["before"] / got["after"])

    def summary(values):
        lo, hi, cov = median_interval(values)
        return {"values": values, "median": statistics.median(values) if values else None,
                "interval": [lo, hi], "coverage": cov}

    lo, hi, cov = median_interval(ratios)
    result = {"program": list(program), "pairs": pairs, "order": "ABBA (before, after; then after, before)",
              "source": "pattern" if pattern else "wall time", "pattern": pattern,
              "before_cmd": before_cmd, "after_cmd": after_cmd,
              "before": summary(runs["before"]), "after": summary(runs["after"]),
              "speedup": {"ratios": ratios, "median": statistics.median(ratios) if ratios else None,
                          "interval": [lo, hi], "coverage": cov},
              "failures": failures, "error": error}
    if kernel_timing:
        result["kernel_timing"] = TIMING
        result["kernels"] = kernel_rows(kernel_pairs, kernel_timing.capture_kernels)
        result["controls"] = controls_summary(result["kernels"])
        if not any(k.get("installed") for p in kernel_pairs for k in p.values() if k):
            result["failures"].append("no process of any run installed the launch timer (did the program "
                                      "import triton?): no kernel was timed")
        result["failures"] += kernel_timing.problems
    return result


def interleaved_report(result):
    if result["error"]:
        return f"stopped: {result['error']}"
    text = _step_report(result)
    if "kernels" in result:
        text += "\n" + kernels_report(result["kernels"], result.get("controls"))
    return text


def _step_report(result):
    b, a, s = result["before"], result["after"], result["speedup"]
    if s["median"] is None:
        return "no pair of runs succeeded"
    lo, hi = s["interval"]
    verdict = stats_verdict(lo, hi, s["coverage"])
    return (f"before: median {b['median']:.6g} over {len(b['values'])} runs, interval "
            f"[{b['interval'][0]:.6g}, {b['interval'][1]:.6g}]\n"
            f"after:  median {a['median']:.6g} over {len(a['values'])} runs, interval "
            f"[{a['interval'][0]:.6g}, {a['interval'][1]:.6g}]\n"
            f"speed-up {s['median']:.4f}x (>1 = faster after), paired over {len(s['ratios'])} interleaved pairs, "
            f"interval [{lo:.4f}, {hi:.4f}] ({s['coverage'] * 100:.1f}% coverage), before-state noise floor "
            f"{(b['interval'][1] - b['interval'][0]) / 2 / b['median'] * 100:.2f}%: {verdict}")


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
