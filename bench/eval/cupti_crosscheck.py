"""Cross-check of the worker's CUPTI metrics (range profiler, `--metrics-backend cupti`) against
Nsight Compute on the same one-launch runner (`--metrics-backend ncu`) and against ncu on an
independent CuPy launch of the same cubin. Also records what one metrics call costs with each.
Usage: cupti_crosscheck.py BENCH_EXE OUT_PREFIX SPEC.json...   (run on the GPU machine)"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_crosscheck import METRICS, ncu_cupy, tolerance  # noqa: E402


def worker_metrics(bench, spec_path, backend):
    p = subprocess.run([bench, "metrics", spec_path, "--metrics-backend", backend], capture_output=True, text=True,
                       timeout=300)
    j = json.loads(p.stdout)
    if "error" in j or not j.get("metrics"):
        raise RuntimeError(f"{backend}: " + j.get("error", p.stderr[-800:]))
    kinds = {m["source"]["kind"] for m in j["metrics"]}
    if kinds != {backend}:
        raise RuntimeError(f"{backend} run returned figures labelled {kinds}")
    return {m["name"]: m["value"] for m in j["metrics"]}, j


def compare(a, b):
    rows, agree = [], True
    for name in METRICS:
        if name not in a or name not in b:
            rows.append({"metric": name, "cupti": a.get(name), "other": b.get(name), "ok": None})
            agree = False
            continue
        kind, tol = tolerance(name)
        diff = abs(a[name] - b[name]) if kind == "abs" else abs(a[name] - b[name]) / max(abs(b[name]), 1e-9)
        ok = diff <= tol
        agree &= ok
        rows.append({"metric": name, "cupti": a[name], "other": b[name], "diff": diff, "kind": kind, "ok": ok})
    return rows, agree


def fmt_diff(r):
    if r.get("diff") is None:
        return ""
    return f"{r['diff']:.2f} pt" if r["kind"] == "abs" else f"{100 * r['diff']:.1f}%"


def main():
    bench, prefix, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    report = {"tolerances": "percent metrics: 3 points absolute; bytes: 5% relative; duration: 10% relative",
              "kernels": []}
    for spec_path in specs:
        entry = {"spec": os.path.basename(spec_path)}
        try:
            cupti, cj = worker_metrics(bench, spec_path, "cupti")
            ncu, nj = worker_metrics(bench, spec_path, "ncu")
            entry["device"] = cj["baseline_source"]["device"]
            entry["wall_s"] = {"cupti": cj["metrics_wall_s"], "ncu": nj["metrics_wall_s"]}
            entry["vs_ncu_same_runner"], entry["agree_same_runner"] = compare(cupti, ncu)
            try:
                entry["vs_ncu_cupy"], entry["agree_cupy"] = compare(cupti, ncu_cupy(spec_path))
            except Exception as e:  # CuPy may not launch every spec (e.g. >48 KiB dynamic smem)
                entry["cupy_error"] = str(e)[:600]
        except Exception as e:  # keep going: one broken spec must not hide the others
            entry["error"] = str(e)[:1500]
        report["kernels"].append(entry)
        print(json.dumps(entry)[:2000], flush=True)
    json.dump(report, open(prefix + ".json", "w"), indent=2)
    with open(prefix + ".md", "w") as md:
        md.write("# CUPTI cross-check: sassx's CUPTI metrics vs Nsight Compute\n\n"
                 "`cupti`: the worker's range-profiler path (user replay; before each pass the inputs are restored "
                 "and the L2 flushed). `ncu (runner)`: `ncu --clock-control none` on the same one-launch runner. "
                 "`ncu (CuPy)`: ncu on an independent CuPy launch with NumPy inputs. " + report["tolerances"] + ".\n\n")
        for k in report["kernels"]:
            md.write(f"## {k['spec']}\n\n")
            if "error" in k:
                md.write(f"error: {k['error']}\n\n")
                continue
            md.write(f"device: {k['device']}; one metrics call: CUPTI {k['wall_s']['cupti']:.2f} s, "
                     f"ncu {k['wall_s']['ncu']:.2f} s\n\n")
            cupy = {r["metric"]: r for r in k.get("vs_ncu_cupy", [])}
            md.write("| metric | CUPTI | ncu (runner) | diff | ok | ncu (CuPy) | diff | ok |\n|---|---|---|---|---|---|---|---|\n")
            for r in k["vs_ncu_same_runner"]:
                c = cupy.get(r["metric"], {})
                md.write(f"| {r['metric']} | {r['cupti']} | {r['other']} | {fmt_diff(r)} | {r['ok']} | "
                         f"{c.get('other', '')} | {fmt_diff(c) if c else ''} | {c.get('ok', '')} |\n")
            if "cupy_error" in k:
                md.write(f"\nCuPy launch: {k['cupy_error']}\n")
            md.write("\n")


if __name__ == "__main__":
    main()
