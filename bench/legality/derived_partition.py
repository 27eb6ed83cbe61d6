#!/usr/bin/env python3
"""Which lowered stalls make ptxas' order with minimal derived control codes slower (docs/legality.md).

`sassx-cli move --reschedule --minimal-stalls` lowers every reschedulable stall to the least the
timing model allows and raises a few where a bound needs it. On some kernels that runs slower than
ptxas' own codes: the stalls also space issue for throughput. This splits the lowered stalls by the
class of the instruction that carries them (and by what follows it) and writes, per part, ptxas' codes
with only that part lowered (every raise kept, so each distance is at least the minimal variant's and
the checker accepts it): <sample>.part-<name>.cubin, to time with `sassx-cli bench`.

  derived_partition.py CLI DATA_DIR SAMPLE OUT_DIR
"""
import json
import os
import subprocess
import sys

MEMORY = {"load_global", "store_global", "load_shared", "store_shared", "load_local", "store_local",
          "async_copy", "atomic", "load_const"}
FIXED = {"fma", "alu", "uniform", "conversion", "nop"}


def parts_of(cls, next_cls):
    out = []
    if cls in MEMORY:
        out.append("memory")
    elif cls == "tensor":
        out.append("tensor")
    elif cls in FIXED:
        out.append("fixed")
        out.append("fixed-before-memory" if next_cls in MEMORY else "fixed-before-fixed"
                   if next_cls in FIXED else "fixed-before-other")
    else:
        out.append("other-variable")
    return out


def main():
    cli, data, sample, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    cubin = os.path.join(data, f"{sample}.sm_90.cubin")
    kernel = json.load(open(os.path.join(data, f"{sample}.launch.json")))["kernel"]
    common = ["--kernel", kernel, "--keep-stale-line-info"]
    ann = json.loads(subprocess.run([cli, "annotate", cubin, "--json"] + common, capture_output=True,
                                    text=True, check=True).stdout)
    ins = ann["instructions"]
    derived = json.loads(open(os.path.join(data, f"{sample}.derived.jsonl")).readline())
    raises, lowered = [], {}
    for e in derived["edits"]:
        c = e.get("control")
        if not c or "stall" not in c:
            continue
        i = c["at"]  # ptxas' order: position == instruction index
        old = ins[i]["control"]["stall"]
        if c["stall"] > old:
            raises.append((i, c["stall"]))
        elif c["stall"] < old:
            nxt = ins[i + 1]["class"] if i + 1 < len(ins) else ""
            for p in parts_of(ins[i]["class"], nxt) + ["all"]:
                lowered.setdefault(p, []).append((i, c["stall"]))
    lowered["raises-only"] = []
    summary = {"sample": sample, "raises": len(raises), "parts": {}}
    for name, edits in sorted(lowered.items()):
        args = [cli, "move", cubin] + common + ["-o", os.path.join(out, f"{sample}.part-{name}.cubin")]
        for i, s in raises + edits:
            args += ["--edit", f"{i}:stall={s}"]
        p = subprocess.run(args, capture_output=True, text=True)
        summary["parts"][name] = {"lowered": len(edits), "written": p.returncode == 0,
                                  "message": (p.stdout + p.stderr).strip().splitlines()[-1:]}
    # In place: the single stall decreases the checker offers (`legal --control stall`), applied one by one
    # while the block stays legal; no cycle moves anywhere else.
    cands = json.loads(subprocess.run([cli, "legal", cubin, "--control", "stall", "--json"] + common,
                                      capture_output=True, text=True, check=True).stdout)["control_edits"]
    kept = []
    path = os.path.join(out, f"{sample}.part-in-place.cubin")
    for c in cands:
        trial = kept + [(c["control"]["at"], c["control"]["stall"])]
        args = [cli, "move", cubin] + common + ["-o", path]
        for i, st in trial:
            args += ["--edit", f"{i}:stall={st}"]
        if subprocess.run(args, capture_output=True, text=True).returncode == 0:
            kept = trial
    args = [cli, "move", cubin] + common + ["-o", path]
    for i, st in kept:
        args += ["--edit", f"{i}:stall={st}"]
    subprocess.run(args, capture_output=True, text=True, check=bool(kept))
    summary["parts"]["in-place"] = {"lowered": len(kept), "candidates": len(cands), "written": bool(kept)}
    json.dump(summary, open(os.path.join(out, f"{sample}.parts.json"), "w"), indent=1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
