"""Which launch paths the driver hook sees and substitutes, on a GPU (docs/driver-capture.md, "Status").

Builds the probe (probe_host.cu, and probe_kernel.cu as an original and a "tuned" cubin that writes
another value), runs it under the hook in capture mode (what it lists: origins, specs, skips), then with a
tuned directory mapping every image holding sassx_probe_mark to the tuned cubin, and reports for each path
(runtime <<<>>>, driver cuModuleGetFunction + cuLaunchKernel, cuLaunchKernelEx) whether the tuned cubin
ran, whether the hook's timing named the tuned cubin, and that without a tuned directory every output is
the original's. Writes OUT/probe.json.

Usage: python3 bench/driver/probe.py HOOK.so OUT [--arch sm_90]
"""
import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "app", "capture"))
from sassx_capture import driver  # noqa: E402


def sh(cmd, env=None):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def outputs(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hook")
    ap.add_argument("out")
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args()
    work = os.path.join(a.out, "probe")
    os.makedirs(work, exist_ok=True)
    orig, tuned, host = (os.path.join(work, n) for n in ("original.cubin", "tuned.cubin", "probe_host"))
    for mark, dst in ((1, orig), (2, tuned)):
        rc, _o, e = sh(["nvcc", f"-arch={a.arch}", "-cubin", f"-DMARK={mark}", "-o", dst,
                        os.path.join(HERE, "probe_kernel.cu")])
        if rc:
            sys.exit(f"nvcc: {e}")
    hosts = {"static": host, "shared": host + "_shared"}
    for cudart, path in hosts.items():
        rc, _o, e = sh(["nvcc", f"-arch={a.arch}", f"-cudart={cudart}", "-o", path,
                        os.path.join(HERE, "probe_host.cu"), "-lcuda"])
        if rc:
            sys.exit(f"nvcc: {e}")

    def run_both(env=None):
        """(worst rc, outputs keyed "<path>" for the static runtime's run, "<path>/shared" for the other's,
        stderr of both)."""
        rcs, outs, errs = [], {}, ""
        for cudart, path in hosts.items():
            rc, o, e = sh([path, orig], env)
            rcs.append(rc)
            errs += e
            outs.update({(k if cudart == "static" else k + "/shared"): v for k, v in outputs(o).items()})
        return max(rcs), outs, errs
    result = {"arch": a.arch}
    rc, o, e = run_both()
    result["plain"] = {"rc": rc, "outputs": o}
    cap = os.path.join(work, "capture")
    os.makedirs(cap, exist_ok=True)
    env = driver.hook_environment(os.environ, a.hook, capture_dir=cap)
    rc, o, e = run_both(env)
    result["capture"] = {"rc": rc, "outputs": o, "stderr": e[-2000:]}
    listings = [json.load(open(p)) for p in glob.glob(os.path.join(cap, "*.driver.json"))]
    result["listing"] = [{k: v for k, v in kern.items() if k != "ran_sha256"}
                         for p in listings for kern in p.get("kernels", [])]
    result["images"] = [img for p in listings for img in p.get("images", [])]
    result["runtime_inner_launches"] = [p.get("runtime_inner_launches") for p in listings]
    shas = sorted({k["image_sha256"] for p in listings for k in p.get("kernels", [])
                   if k.get("symbol") == "sassx_probe_mark" and k.get("image_sha256")})
    tuned_dir = os.path.join(work, "tuned")
    os.makedirs(tuned_dir, exist_ok=True)
    blob = open(tuned, "rb").read()
    manifest = {"format": "sassx-tuned", "version": 1, "kernels": [
        {"name": f"probe{i}", "kernel": "sassx_probe_mark", "image_sha256": s, "cubin": tuned,
         "cubin_sha256": hashlib.sha256(blob).hexdigest()} for i, s in enumerate(shas)]}
    json.dump(manifest, open(os.path.join(tuned_dir, "manifest.json"), "w"), indent=1)
    times = os.path.join(work, "times")
    os.makedirs(times, exist_ok=True)
    env = driver.hook_environment(dict(os.environ, SASSX_CAPTURE_TIME_DIR=times), a.hook, tuned=tuned_dir)
    rc, o, e = run_both(env)
    result["tuned"] = {"rc": rc, "outputs": o, "stderr": e[-2000:], "images_mapped": len(shas)}
    result["times"] = [json.load(open(p)) for p in glob.glob(os.path.join(times, "*.driver.times.json"))]
    env = driver.hook_environment(os.environ, a.hook)  # the hook loaded, asked for nothing: pass-through
    rc, o, e = run_both(env)
    result["pass_through"] = {"rc": rc, "outputs": o}
    result["substituted"] = {path: result["tuned"]["outputs"].get(path) == "2"
                             for path in sorted(result["tuned"]["outputs"])}
    json.dump(result, open(os.path.join(a.out, "probe.json"), "w"), indent=1)
    print(json.dumps(result["substituted"]), "inner:", result["runtime_inner_launches"], "plain:", result["plain"]["outputs"],
          "pass-through:", result["pass_through"]["outputs"])


if __name__ == "__main__":
    main()
