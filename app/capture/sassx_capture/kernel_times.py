"""Each captured kernel's time inside the program, before and after (`time --before/--after --kernel-times`).

Every timed run of the program runs with the launch timer (launch_timer.py) in its Python processes; a
run's figure for a kernel is the median of its launches' GPU times in that run.  Runs pair up as the step
time's do (ABBA), and the in-program speed-up of a kernel is the median over pairs of before/after (> 1 =
faster after) with the same distribution-free order-statistic interval (timing.median_interval): a pair
whose runs both launched the kernel counts; a run that did not launch it is named.  The interval resolves
a difference when it excludes 1.0.  The noise floor is half the before-state's interval of run figures
over its median, as for the step time.

Kernels are identified by Triton's kernel hash, named as the capture names them (capture.json's `hash`,
else its Triton cache entry, else its symbol when only one captured kernel has it).  The document written
to DIR/program-time.json (`--tune-dir DIR`) is what `sassx-cli tune DIR` shows as "in-program" beside
the isolated speed-up (docs/capture.md, "Kernel times inside the program").
"""
import base64
import datetime
import json
import os
import re
import shutil
import statistics
import tempfile

from .launch_timer import TIMES_FORMAT, VERSION as TIMES_VERSION
from .timing import median_interval

FORMAT = "sassx-program-time"
VERSION = 1
TIMING = ("CUDA events around each launch, recorded from Triton's launch hooks inside the program; a run's "
          "figure is the median of its launches")
STATES = ("before", "after")


def read_times(time_dir):
    """(processes, problems) from the <pid>.times.json files a run's processes wrote."""
    processes, problems = [], []
    try:
        names = sorted(os.listdir(time_dir))
    except OSError:
        return processes, problems
    for fn in names:
        if not fn.endswith(".times.json"):
            continue
        try:
            with open(os.path.join(time_dir, fn)) as f:
                proc = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{fn}: {e}")
            continue
        if proc.get("format") != TIMES_FORMAT or proc.get("version") != TIMES_VERSION:
            problems.append(f"{fn}: not {TIMES_FORMAT} version {TIMES_VERSION}")
            continue
        processes.append(proc)
    return processes, problems


def run_summary(processes):
    """One run: {"installed", "graph_launches", "kernels": {hash: {"name", "launches", "timed", "median_us",
    "cubins"}}}, the launches of a kernel in several processes together."""
    kernels, times = {}, {}
    for proc in processes:
        for k in proc.get("kernels", []):
            key = k.get("hash") or k.get("name")
            rec = kernels.setdefault(key, {"name": k.get("name"), "launches": 0, "cubins": []})
            rec["launches"] += int(k.get("launches") or 0)
            if k.get("cubin_sha256") and k["cubin_sha256"] not in rec["cubins"]:
                rec["cubins"].append(k["cubin_sha256"])
            times.setdefault(key, []).extend(float(t) for t in k.get("times_us") or [])
    for key, rec in kernels.items():
        rec["timed"] = len(times[key])
        rec["median_us"] = statistics.median(times[key]) if times[key] else None
    return {"installed": any(p.get("installed") for p in processes),
            "graph_launches": sum(int(p.get("graph_launches") or 0) for p in processes), "kernels": kernels}


def _base32(h):
    try:
        return base64.b32encode(bytes.fromhex(h)).decode("ascii").rstrip("=")
    except (ValueError, TypeError):
        return None


def capture_names(hashes, capture_kernels):
    """{hash: capture name} for the timed kernels (hash -> symbol) that the capture's kernels are."""
    by_hash, names = {}, {}
    for k in capture_kernels or []:
        if k.get("hash"):
            by_hash[k["hash"]] = k["name"]
        entry = os.path.basename(os.path.normpath(k.get("triton_cache_dir") or "")) if k.get("triton_cache_dir") \
            else None
        if entry:
            by_hash.setdefault(("entry", entry), k["name"])
    captured = [k["name"] for k in capture_kernels or []]
    for h, symbol in hashes.items():
        name = by_hash.get(h) or by_hash.get(("entry", h)) or by_hash.get(("entry", _base32(h)))
        if name is None and symbol in captured and \
                not any(re.fullmatch(re.escape(symbol) + r"_[0-9]+", n) for n in captured) and \
                sum(1 for s in hashes.values() if s == symbol) == 1:
            name = symbol  # an older capture.json without hashes: a symbol only one kernel has
        if name is not None and name not in names.values():
            names[h] = name
    return names


def _state(values, missing, launches, timed):
    lo, hi, cov = median_interval(values)
    return {"median_us": statistics.median(values) if values else None, "interval_us": [lo, hi],
            "coverage": cov, "runs": len(values), "not_launched_in_pairs": missing, "launches": launches,
            "timed_launches": timed}


def kernel_rows(pairs, capture_kernels=None):
    """Per kernel, from `pairs` (each {"before": run_summary or None, "after": …}, None for a failed run):
    the two states' run figures, the paired speed-up, and whether it resolves a difference."""
    symbols = {}
    for p in pairs:
        for s in STATES:
            for h, k in ((p.get(s) or {}).get("kernels") or {}).items():
                symbols.setdefault(h, k["name"])
    names = capture_names(symbols, capture_kernels)
    shared = {}
    for h, sym in symbols.items():
        shared[sym] = shared.get(sym, 0) + 1
    rows = []
    for h, sym in symbols.items():
        name = names.get(h) or (sym if shared[sym] == 1 else f"{sym}#{h[:8]}")
        vals, missing, launches, timed, cubins, ratios = {s: [] for s in STATES}, {s: [] for s in STATES}, \
            {s: 0 for s in STATES}, {s: 0 for s in STATES}, {s: [] for s in STATES}, []
        for i, p in enumerate(pairs):
            got = {}
            for s in STATES:
                run = p.get(s)
                if run is None:
                    continue  # the run failed: it says nothing about the kernel
                k = run["kernels"].get(h)
                if k is None or k.get("median_us") is None:
                    missing[s].append(i + 1)
                    continue
                got[s] = k["median_us"]
                vals[s].append(k["median_us"])
                launches[s] += k["launches"]
                timed[s] += k["timed"]
                cubins[s] += [c for c in k["cubins"] if c not in cubins[s]]
            if len(got) == 2 and got["after"] > 0:
                ratios.append(got["before"] / got["after"])
        row = {"name": name, "hash": h, "symbol": sym, "in_capture": h in names,
               "before": _state(vals["before"], missing["before"], launches["before"], timed["before"]),
               "after": _state(vals["after"], missing["after"], launches["after"], timed["after"]),
               "cubin_changed": bool(cubins["before"] and cubins["after"] and cubins["before"] != cubins["after"]),
               "cubins": cubins, "speedup": _speedup(ratios, vals["before"])}
        row["status"] = ("timed" if row["speedup"] else
                         "not launched" if not vals["before"] and not vals["after"] else
                         "not launched before" if not vals["before"] else
                         "not launched after" if not vals["after"] else "never launched in both runs of a pair")
        rows.append(row)
    for k in capture_kernels or []:
        if k["name"] not in names.values():
            rows.append({"name": k["name"], "hash": k.get("hash"), "symbol": None, "in_capture": True,
                         "status": "not launched", "speedup": None})
    rows.sort(key=lambda r: (not r["in_capture"], r["status"] != "timed", r["name"]))
    return rows


def _speedup(ratios, before):
    if not ratios:
        return None
    lo, hi, cov = median_interval(ratios)
    blo, bhi, _ = median_interval(before)
    bmed = statistics.median(before)
    return {"median": statistics.median(ratios), "interval": [lo, hi], "coverage": cov, "pairs": len(ratios),
            "resolved": lo > 1.0 or hi < 1.0,
            "noise_floor": (bhi - blo) / 2 / bmed if bmed else None}


def verdict(speedup):
    lo, hi = speedup["interval"]
    return ("not resolved (the interval contains 1.0)" if lo <= 1.0 <= hi else
            "faster after" if lo > 1.0 else "slower after")


def kernels_report(rows):
    """The text report's kernel lines (under the step time's)."""
    if not rows:
        return "in-program kernel times: no watched kernel was launched in any run"
    lines = ["in-program kernel times (median per launch over each run's launches; speed-up before/after, "
             ">1 = faster after, paired over interleaved runs):",
             f"  {'kernel':<40} {'before us':>10} {'after us':>10}  {'speed-up [interval] coverage':<36} "
             f"{'noise':>6} {'launches b/a':>14}  {'cubin':<7} verdict"]
    for r in rows:
        s = r["speedup"]
        if s is None:
            where = ""
            for st in STATES:
                miss = (r.get(st) or {}).get("not_launched_in_pairs")
                if miss:
                    where += f"; {st}: not launched in pair(s) {', '.join(map(str, miss))}"
            lines.append(f"  {r['name']:<40} {r['status']}{where}")
            continue
        b, a = r["before"], r["after"]
        cell = f"{s['median']:.4f}x [{s['interval'][0]:.4f}, {s['interval'][1]:.4f}] {s['coverage'] * 100:.1f}%"
        noise = f"{s['noise_floor'] * 100:.2f}%" if s["noise_floor"] is not None else "-"
        launches = f"{b['launches']}/{a['launches']}"
        line = (f"  {r['name']:<40} {b['median_us']:>10.3f} {a['median_us']:>10.3f}  {cell:<36} {noise:>6} "
                f"{launches:>14}  {'changed' if r['cubin_changed'] else 'same':<7} {verdict(s)}")
        for st in STATES:
            if r[st]["not_launched_in_pairs"]:
                line += f"; {st}: not launched in pair(s) {', '.join(map(str, r[st]['not_launched_in_pairs']))}"
        lines.append(line + ("" if r["in_capture"] else "; not a kernel of the capture"))
    return "\n".join(lines)


def program_time_document(result, date=None):
    """DIR/program-time.json: the step time's and every kernel's in-program figures of one interleaved run."""
    def state(x):
        return {"median": x["median"], "interval": x["interval"], "coverage": x["coverage"], "runs": len(x["values"])}

    s, b = result["speedup"], result["before"]
    step = {"source": result["source"], "pattern": result["pattern"], "before": state(b),
            "after": state(result["after"]), "speedup": None}
    if s["median"] is not None:
        lo, hi = s["interval"]
        step["speedup"] = {"median": s["median"], "interval": [lo, hi], "coverage": s["coverage"],
                           "pairs": len(s["ratios"]), "resolved": lo > 1.0 or hi < 1.0,
                           "noise_floor": (b["interval"][1] - b["interval"][0]) / 2 / b["median"]
                           if b["median"] else None}
    return {"format": FORMAT, "version": VERSION,
            "date": date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "program": result["program"], "pairs": result["pairs"], "order": result["order"],
            "before_cmd": result["before_cmd"], "after_cmd": result["after_cmd"],
            "speedup_convention": "> 1 = faster after (before time / after time)", "timing": TIMING,
            "step": step, "kernels": result.get("kernels") or [], "failures": result["failures"],
            "error": result["error"]}


class KernelTiming:
    """The runs' side of kernel timing: a fresh directory and environment per run, its summary after."""

    def __init__(self, names=None, capture_kernels=None):
        self.names = sorted(names) if names else None
        self.capture_kernels = capture_kernels
        self.root = tempfile.mkdtemp(prefix="sassx-kernel-times-")
        self.count = 0
        self.problems = []

    def environment(self, base=None):
        """(environment, directory) for one run."""
        from . import bootstrap
        from .runner import BOOT_DIR
        self.count += 1
        d = os.path.join(self.root, str(self.count))
        os.makedirs(d)
        env = dict(os.environ if base is None else base)
        env["PYTHONPATH"] = os.pathsep.join([BOOT_DIR] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                          if p])
        env[bootstrap.ENV_TIME_DIR] = d
        if self.names is not None:
            env[bootstrap.ENV_TIME_NAMES] = json.dumps(self.names)
        env.pop(bootstrap.ENV_RAW_DIR, None)
        # Inductor's static launcher calls the driver directly and never Triton's hooks.
        env["TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER"] = "0"
        return env, d

    def collect(self, d):
        processes, problems = read_times(d)
        self.problems += problems
        shutil.rmtree(d, ignore_errors=True)
        return run_summary(processes)

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)
