"""Each captured kernel's time inside the program, before and after (`time --before/--after --kernel-times`).

Every timed run of the program runs with the launch timer (launch_timer.py) in its Python processes; a
run's figure for a kernel is the median of its launches' GPU times in that run.  Runs pair up as the step
time's do (ABBA), and each kernel's ratio before/after (> 1 = faster after) is taken per pair whose runs
both launched it; a run that did not launch it is named.

The kernels whose cubin is the same in every run of both states are the controls: nothing changed in
them, so their ratios measure the drift between a pair's two runs (clocks, temperature, other tenants; seen
leaning one way across a whole interleaved run).  A pair's drift is the median of its controls' ratios; a
changed kernel's ratio in that pair is divided by it (a ratio of ratios), and its speed-up is the median of
those over pairs with the distribution-free order-statistic interval (stats.median_interval).  A control is
reported as a control, never as faster or slower; a changed kernel is called faster or slower only when its
corrected interval excludes 1.0 with at least stats.MIN_COVERAGE coverage (6 pairs or more).  The noise floor
is half the before-state's interval of run figures over its median, as for the step time.

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
from .process_files import read_process_files
from .stats import MIN_COVERAGE, median_interval, pairs_needed, resolved
from .stats import verdict as stats_verdict

FORMAT = "sassx-program-time"
# 2: kernels carry a role (control, changed, unknown); a changed kernel's speed-up has the controls' drift
# removed; "resolved" needs MIN_COVERAGE.
VERSION = 2
TIMING = ("CUDA events around each launch, recorded from Triton's launch hooks inside the program; a run's "
          "figure is the median of its launches")
STATES = ("before", "after")


def read_times(time_dir):
    """(processes, problems) from the <pid>.times.json files a run's processes wrote (the launch timer's
    and the driver hook's, <pid>.driver.times.json)."""
    return read_process_files(time_dir, ".times.json", TIMES_FORMAT, TIMES_VERSION)


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
        if k.get("driver_key"):
            by_hash[k["driver_key"]] = k["name"]
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
            "timed_launches": timed, "values": values}


def kernel_rows(pairs, capture_kernels=None):
    """Per kernel, from `pairs` (each {"before": run_summary or None, "after": …}, None for a failed run):
    the two states' run figures, its role (a control when it ran the same cubin in every run), the paired
    speed-up with the controls' drift removed, and whether it resolves a difference."""
    symbols = {}
    for p in pairs:
        for s in STATES:
            for h, k in ((p.get(s) or {}).get("kernels") or {}).items():
                symbols.setdefault(h, k["name"])
    names = capture_names(symbols, capture_kernels)
    shared = {}
    for h, sym in symbols.items():
        shared[sym] = shared.get(sym, 0) + 1
    rows = [_kernel_row(pairs, h, names.get(h) or (sym if shared[sym] == 1 else f"{sym}#{h[:8]}"), sym,
                        h in names) for h, sym in symbols.items()]
    _apply_controls(rows)
    for k in capture_kernels or []:
        if k["name"] not in names.values():
            rows.append({"name": k["name"], "hash": k.get("hash"), "symbol": None, "in_capture": True,
                         "status": "not launched", "role": None, "speedup": None})
    rows.sort(key=lambda r: (not r["in_capture"], r["status"] != "timed", r["name"]))
    return rows


def _kernel_row(pairs, h, name, sym, in_capture):
    vals, missing, launches, timed, cubins = ({s: [] for s in STATES}, {s: [] for s in STATES},
                                              {s: 0 for s in STATES}, {s: 0 for s in STATES},
                                              {s: [] for s in STATES})
    pair_ratios = []
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
            pair_ratios.append([i + 1, got["before"] / got["after"]])
    row = {"name": name, "hash": h, "symbol": sym, "in_capture": in_capture,
           "before": _state(vals["before"], missing["before"], launches["before"], timed["before"]),
           "after": _state(vals["after"], missing["after"], launches["after"], timed["after"]),
           "cubin_changed": bool(cubins["before"] and cubins["after"] and cubins["before"] != cubins["after"]),
           "cubins": cubins, "pair_ratios": pair_ratios,
           "role": ("changed" if cubins["before"] and cubins["after"] and cubins["before"] != cubins["after"] else
                    "control" if cubins["before"] and cubins["before"] == cubins["after"] else "unknown"),
           "speedup": None}
    row["status"] = ("timed" if pair_ratios else
                     "not launched" if not vals["before"] and not vals["after"] else
                     "not launched before" if not vals["before"] else
                     "not launched after" if not vals["after"] else "never launched in both runs of a pair")
    return row


def pair_drift(rows):
    """{pair: drift}: per pair, the median over the control kernels (same cubin before and after) of their
    before/after ratios.  Nothing changed in them, so what moves them moves every kernel of that pair: the
    machine between the two runs (clocks, temperature, other tenants, the program's own state)."""
    by_pair = {}
    for r in rows:
        if r.get("role") == "control":
            for pair, ratio in r.get("pair_ratios") or []:
                by_pair.setdefault(pair, []).append(ratio)
    return {pair: statistics.median(v) for pair, v in by_pair.items()}


def controls_summary(rows):
    """The controls' figure: how far the same pairs moved kernels that did not change (> 1: the after runs
    ran faster), with its interval over pairs; None without a control kernel."""
    drift = pair_drift(rows)
    if not drift:
        return None
    values = [drift[p] for p in sorted(drift)]
    lo, hi, cov = median_interval(values)
    return {"kernels": sum(1 for r in rows if r.get("role") == "control" and r.get("pair_ratios")),
            "pairs": len(values), "median": statistics.median(values), "interval": [lo, hi], "coverage": cov,
            "method": "per pair, the median of the control kernels' before/after ratios; a changed kernel's "
                      "ratio in a pair is divided by that pair's drift (ratio of ratios)"}


def _apply_controls(rows):
    drift = pair_drift(rows)
    for r in rows:
        if not r["pair_ratios"]:
            continue
        raw = [x for _, x in r["pair_ratios"]]
        if r["role"] == "control" or not drift:
            r["speedup"] = _speedup(raw, r["before"]["values"], control=r["role"] == "control")
            continue
        corrected = [x / drift[p] for p, x in r["pair_ratios"] if p in drift and drift[p] > 0]
        # A pair without a control in it cannot be corrected: the figure then rests on the other pairs.
        r["speedup"] = _speedup(corrected or raw, r["before"]["values"], raw=raw if corrected else None)


def _speedup(ratios, before, control=False, raw=None):
    """The median of the pairs' ratios with its interval.  A control's figure is the drift itself and
    never a verdict; a changed kernel's has the drift removed (`raw` keeps the uncorrected one) and is
    resolved only past the controls and with enough coverage (stats.resolved)."""
    lo, hi, cov = median_interval(ratios)
    blo, bhi, _ = median_interval(before)
    bmed = statistics.median(before) if before else None
    s = {"median": statistics.median(ratios), "interval": [lo, hi], "coverage": cov, "pairs": len(ratios),
         "resolved": False if control else resolved(lo, hi, cov),
         "noise_floor": (bhi - blo) / 2 / bmed if bmed else None,
         "drift_removed": raw is not None}
    if raw is not None:
        rlo, rhi, rcov = median_interval(raw)
        s["raw"] = {"median": statistics.median(raw), "interval": [rlo, rhi], "coverage": rcov}
    return s


def row_verdict(row):
    s = row["speedup"]
    if row.get("role") == "control":
        return "control (same cubin before and after: measures the drift, never faster or slower)"
    text = stats_verdict(s["interval"][0], s["interval"][1], s["coverage"])
    if not s.get("drift_removed"):
        text += "; no control kernel in these runs: drift not removed"
    return text


def controls_line(controls):
    if controls is None:
        return ("  controls: none (every timed kernel changed, or none ran in both runs of a pair): the drift "
                "between before and after runs is not removed")
    return (f"  controls: {controls['kernels']} unchanged kernel(s) moved {controls['median']:.4f}x "
            f"[{controls['interval'][0]:.4f}, {controls['interval'][1]:.4f}] {controls['coverage'] * 100:.1f}% "
            f"over {controls['pairs']} pairs (> 1: the after runs ran faster); changed kernels are corrected by it")


def kernels_report(rows, controls=None):
    """The text report's kernel lines (under the step time's)."""
    if not rows:
        return "in-program kernel times: no watched kernel was launched in any run"
    lines = ["in-program kernel times (median per launch over each run's launches; speed-up before/after, "
             ">1 = faster after, paired over interleaved runs; a changed kernel's ratio divided by its pair's "
             "drift, the controls' median):", controls_line(controls if controls is not None
                                                             else controls_summary(rows)),
             f"  {'kernel':<40} {'before us':>10} {'after us':>10}  {'speed-up [interval] coverage':<36} "
             f"{'noise':>6} {'launches b/a':>14}  {'role':<7} verdict"]
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
                f"{launches:>14}  {r.get('role') or '-':<7} {row_verdict(r)}")
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
                           "pairs": len(s["ratios"]), "resolved": resolved(lo, hi, s["coverage"]),
                           "noise_floor": (b["interval"][1] - b["interval"][0]) / 2 / b["median"]
                           if b["median"] else None}
    return {"format": FORMAT, "version": VERSION,
            "date": date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "program": result["program"], "pairs": result["pairs"], "order": result["order"],
            "before_cmd": result["before_cmd"], "after_cmd": result["after_cmd"],
            "speedup_convention": "> 1 = faster after (before time / after time)", "timing": TIMING,
            "min_coverage": MIN_COVERAGE, "step": step, "kernels": result.get("kernels") or [],
            "controls": controls_summary(result.get("kernels") or []), "failures": result["failures"],
            "error": result["error"]}


def driver_timed(capture_kernels, tune_dir):
    """The keys of the kernels the driver hook times: those captured at the driver, and Triton kernels
    without a cache entry, which a write-back puts in DIR/tuned for the hook to run in place of the original
    (Triton's own hooks would not know the tuned cubin ran).  Sets each one's `driver_key`."""
    from . import driver
    keys = []
    for k in capture_kernels:
        if k.get("origin") not in (None, "triton") and k.get("hash"):
            k["driver_key"] = k["hash"]
        elif k.get("origin") == "triton" and not k.get("triton_cache_dir") and tune_dir and k.get("cubin"):
            try:
                with open(os.path.join(tune_dir, k["cubin"]), "rb") as f:
                    k["driver_key"] = driver.kernel_key(driver.sha256_hex(f.read()), k.get("symbol") or k["name"])
            except OSError:
                continue
        if k.get("driver_key"):
            keys.append(k["driver_key"])
    return keys


class KernelTiming:
    """The runs' side of kernel timing: a fresh directory and environment per run, its summary after."""

    def __init__(self, names=None, capture_kernels=None, tune_dir=None):
        self.names = sorted(names) if names else None
        self.capture_kernels = capture_kernels
        self.root = tempfile.mkdtemp(prefix="sassx-kernel-times-")
        self.count = 0
        self.problems = []
        # Kernels captured at the driver are timed by the driver hook, which also runs the tuned ones in
        # place of the originals (DIR/tuned, as the before/after commands leave it).
        self.driver_keys = sorted(driver_timed(capture_kernels or [], tune_dir))
        if self.names is not None:  # a kernel the hook times is not also timed by Triton's hooks
            hooked = {k.get("symbol") or k["name"] for k in capture_kernels or [] if k.get("driver_key")}
            # None would mean "every Triton kernel": a name no kernel has times none of them instead.
            self.names = sorted(set(self.names) - hooked) or ["<every watched kernel is timed at the driver>"]
        self.tuned_dir = os.path.join(tune_dir, "tuned") if tune_dir else None
        self.hook = None
        if self.driver_keys:
            from . import driver
            self.hook, why = driver.find_hook()
            if not self.hook:
                self.problems.append(f"{why}: the {len(self.driver_keys)} kernels captured at the driver are "
                                     "not timed")

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
        if self.hook:
            from . import driver
            tuned = self.tuned_dir if self.tuned_dir and os.path.isfile(
                os.path.join(self.tuned_dir, "manifest.json")) else None
            env = driver.hook_environment(env, self.hook, time_keys=self.driver_keys, tuned=tuned)
        return env, d

    def collect(self, d):
        processes, problems = read_times(d)
        self.problems += problems
        shutil.rmtree(d, ignore_errors=True)
        return run_summary(processes)

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)
