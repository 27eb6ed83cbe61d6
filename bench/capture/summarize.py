"""Compact summary of run_device.sh's captures: `python3 summarize.py WORKDIR OUT.json`.

Per run: the program, rc, wall seconds, the kernels captured (name, launches, time share) and skipped
(name, reason), what the hooks of the processes saw (summed), and the tool's own messages."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402


def hooks_total(raw):
    tot = {"processes": 0, "installed": 0, "launch_metadata_calls": 0, "enter_hook_calls": 0,
           "graph_launches": 0, "hook_only_launches": 0, "static_launcher_launches": 0}
    if not os.path.isdir(raw):
        return tot
    for fn in os.listdir(raw):
        if not fn.endswith(".records.json"):
            continue
        with open(os.path.join(raw, fn)) as f:
            h = json.load(f).get("hooks") or {}
        tot["processes"] += 1
        tot["installed"] += bool(h.get("installed"))
        for k in ("launch_metadata_calls", "enter_hook_calls", "graph_launches"):
            tot[k] += int(h.get(k) or 0)
        for k in ("hook_only_launches", "static_launcher_launches"):
            tot[k] += sum((h.get(k) or {}).values())
    return tot


def main(work, out):
    runs = []
    for run in sorted(os.listdir(work)):
        d = os.path.join(work, run)
        if not os.path.isfile(os.path.join(d, "rc")):
            continue
        read = lambda fn: open(os.path.join(d, fn)).read().strip()  # noqa: E731
        entry = {"run": run, "what": read("what"), "rc": int(read("rc")), "seconds": round(float(read("seconds")), 1),
                 "hooks": hooks_total(os.path.join(d, "cap", "raw")),
                 "messages": [l for l in read("stderr.txt").splitlines() if l.startswith("sassx_capture")][:12]}
        cap = os.path.join(d, "cap", "capture.json")
        if os.path.isfile(cap):
            with open(cap) as f:
                c = json.load(f)
            entry["kernels"] = [{"name": k["name"], "launches": k["launches"], "share": k["time_share"]}
                                for k in c["kernels"]]
            entry["skipped"] = [{"name": s["name"], "launches": s["launches"], "reason": s["reason"][:160]}
                                for s in c["skipped"]]
            entry["total_gpu_ms"] = round(c["total_gpu_time_us"] / 1000, 3)
        runs.append(entry)
    record = benchlib.read_env(work)
    if record:  # run_device.sh's env.json: torch's and Triton's versions are its extra line
        versions = " ".join(record.get("extra", [])[:1] + [benchlib.device_name(record)])
        summary = {"versions": versions, "env": benchlib.header(record), "runs": runs}
    else:
        versions = open(os.path.join(work, "versions.txt")).read().strip()
        summary = {"versions": versions, "runs": runs}
    with open(out, "w") as f:
        json.dump(summary, f, separators=(",", ":"))
    print(versions)
    print(f"{'run':24s} {'rc':>3s} {'s':>6s} {'procs':>5s} {'md_calls':>8s} {'enter':>6s} {'captured':>8s} {'skipped':>7s}")
    for r in runs:
        h = r["hooks"]
        print(f"{r['run']:24s} {r['rc']:3d} {r['seconds']:6.1f} {h['processes']:5d} {h['launch_metadata_calls']:8d} "
              f"{h['enter_hook_calls']:6d} {len(r.get('kernels', [])):8d} {len(r.get('skipped', [])):7d}")
        for k in r.get("kernels", []):
            print(f"    + {k['name']} x{k['launches']} ({k['share'] * 100:.1f}%)")
        for s in r.get("skipped", []):
            print(f"    - {s['name']} x{s['launches']}: {s['reason'][:100]}")
        if not r.get("kernels"):
            for m in r["messages"][-2:]:
                print(f"    ! {m[:300]}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
