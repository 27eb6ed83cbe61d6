"""Cross-check of the worker's metrics (ncu on sassx's one-kernel runner) against ncu on an
independent CuPy launch of the same cubin, plus the worker's event timing against ncu's duration.
Usage: ncu_crosscheck.py BENCH_EXE OUT_PREFIX SPEC.json...   (run on the GPU machine)"""
import csv
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = [m["name"] for m in json.load(open(os.path.join(HERE, "..", "..", "resources", "metrics", "nsight.json")))["metrics"]]
# Agreement we require: percentages within 3 points, byte counts within 5%, durations within 10%
# (different input values and launch code around the kernel; clocks are not locked).
def tolerance(name):
    if name.endswith(".pct") or "pct_of_peak" in name:
        return ("abs", 3.0)
    if name.startswith("gpu__time_duration"):
        return ("rel", 0.10)
    return ("rel", 0.05)


def ncu_cupy(spec_path):
    spec = json.load(open(spec_path))
    cubin = os.path.join(os.path.dirname(spec_path), spec["cubin"])
    cmd = [os.environ.get("SASSX_NCU", "ncu"), "--csv", "--print-units", "base", "--clock-control", "none",
           "--kernel-name-base", "mangled", "--kernel-name", spec["kernel"], "--launch-count", "1",
           "--metrics", ",".join(METRICS), sys.executable, os.path.join(HERE, "launch_cupy.py"), spec_path, cubin]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    rows = [l for l in p.stdout.splitlines() if l.startswith('"')]
    out = {}
    for r in csv.DictReader(io.StringIO("\n".join(rows))):
        try:
            out[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except (ValueError, KeyError):
            pass
    if not out:
        raise RuntimeError("ncu on cupy gave nothing: " + p.stderr[-800:] + p.stdout[-800:])
    return out


def main():
    bench, prefix, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    report = {"tolerances": "percent metrics: 3 points absolute; bytes: 5% relative; duration: 10% relative",
              "kernels": []}
    for spec_path in specs:
        entry = {"spec": os.path.basename(spec_path)}
        try:
            p = subprocess.run([bench, "metrics", spec_path], capture_output=True, text=True, timeout=300)
            ours_json = json.loads(p.stdout)
            ours = {m["name"]: m["value"] for m in ours_json.get("metrics", [])}
            if not ours:
                raise RuntimeError("worker metrics failed: " + ours_json.get("error", p.stderr[-800:]))
            theirs = ncu_cupy(spec_path)
            rows, agree = [], True
            for name in METRICS:
                if name not in ours or name not in theirs:
                    rows.append({"metric": name, "sassx_ncu": ours.get(name), "cupy_ncu": theirs.get(name), "ok": None})
                    continue
                kind, tol = tolerance(name)
                a, b = ours[name], theirs[name]
                diff = abs(a - b) if kind == "abs" else abs(a - b) / max(abs(b), 1e-9)
                ok = diff <= tol
                agree &= ok
                rows.append({"metric": name, "sassx_ncu": a, "cupy_ncu": b, "diff": diff, "kind": kind, "ok": ok})
            dur = theirs.get("gpu__time_duration.sum")
            entry.update({"rows": rows, "all_agree": agree, "device": ours_json["baseline_source"]["device"],
                          "events_median_us": ours_json["baseline_median_us"],
                          "ncu_duration_us": dur / 1000.0 if dur else None})
        except Exception as e:  # keep going: one broken spec must not hide the others
            entry["error"] = str(e)
        report["kernels"].append(entry)
        print(json.dumps(entry, indent=1)[:3000], flush=True)
    json.dump(report, open(prefix + ".json", "w"), indent=2)
    with open(prefix + ".md", "w") as md:
        md.write("# ncu cross-check: sassx worker vs an independent CuPy launch\n\n")
        md.write("Both columns are Nsight Compute (`--clock-control none`); sassx's runs the cubin through "
                 "`sassx-worker --oneshot`, the other through CuPy's RawModule with NumPy inputs. "
                 + report["tolerances"] + ".\n\n")
        for k in report["kernels"]:
            md.write(f"## {k['spec']}\n\n")
            if "error" in k:
                md.write(f"error: {k['error']}\n\n")
                continue
            md.write(f"device: {k['device']}; worker CUDA-event median {k['events_median_us']:.2f} us vs ncu "
                     f"duration {k['ncu_duration_us'] or float('nan'):.2f} us\n\n")
            md.write("| metric | sassx (ncu) | CuPy (ncu) | diff | agree |\n|---|---|---|---|---|\n")
            for r in k["rows"]:
                d = "" if r.get("diff") is None else (f"{r['diff']:.2f} pt" if r["kind"] == "abs" else f"{100*r['diff']:.1f}%")
                md.write(f"| {r['metric']} | {r['sassx_ncu']} | {r['cupy_ncu']} | {d} | {r['ok']} |\n")
            md.write("\n")


if __name__ == "__main__":
    main()
