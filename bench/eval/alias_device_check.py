"""Aliased and recorded-values launch specs through a real sassx-worker on a GPU (docs/launch-spec.md).

    python3 bench/eval/alias_device_check.py build/app/worker/sassx-worker build/tests/core/eval/kernels

eval_add (out = a * x + y) run in place: `out` is an alias of `y`, and `x` holds recorded values (a zlib
file beside the spec).  The baseline must load, the same cubin must be judged correct and eval_add_wrong
wrong (so the shared buffer is compared), and an altered values file must be refused naming `x`.
Prints one line per check and exits 1 if any fails.
"""
import base64
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

N = 4096


def spec(values_path, values):
    return {"name": "eval_add_inplace", "kernel": "eval_add", "grid": [N // 256], "block": [256],
            "params": [
                {"name": "x", "kind": "buffer", "dtype": "f32", "count": N, "role": "input",
                 "init": {"kind": "recorded", "file": values_path, "encoding": "zlib", "bytes": len(values),
                          "sha256": hashlib.sha256(values).hexdigest()}},
                {"name": "y", "kind": "buffer", "dtype": "f32", "count": N, "role": "inout",
                 "init": {"kind": "normal", "mean": 0, "std": 1}},
                {"name": "out", "kind": "buffer", "dtype": "f32", "count": N, "alias": {"of": "y"}},
                {"name": "a", "kind": "scalar", "dtype": "f32", "value": 2.0},
                {"name": "n", "kind": "scalar", "dtype": "i32", "value": N}]}


class Worker:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.id = 0

    def ask(self, request):
        self.id += 1
        request["id"] = self.id
        self.p.stdin.write(json.dumps(request) + "\n")
        self.p.stdin.flush()
        while True:  # skips events (the worker's "ready" line)
            line = self.p.stdout.readline()
            if not line:
                return {"status": "error", "error": "the worker exited"}
            answer = json.loads(line)
            if answer.get("id") == self.id:
                return answer

    def close(self):
        try:
            self.ask({"op": "shutdown"})
        except Exception:
            pass
        self.p.wait(timeout=30)


def main(worker_path, kernels):
    cubin = lambda name: base64.b64encode(open(os.path.join(kernels, f"{name}.cubin"), "rb").read()).decode()
    values = struct.pack(f"<{N}f", *[(i % 97) * 0.25 - 12.0 for i in range(N)])
    failures = 0

    def check(what, ok, detail):
        nonlocal failures
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "eval_add_inplace.values", "x.bin.z")
        os.makedirs(os.path.dirname(path))
        with open(path, "wb") as f:
            f.write(zlib.compress(values))
        w = Worker(worker_path)
        try:
            hello = w.ask({"op": "hello"})
            check("hello", hello.get("status") == "ok", hello.get("device") or hello)
            base = {"op": "load_baseline", "cubin_b64": cubin("eval_add"), "seed": 7, "input_sets": 3,
                    "noise_rounds": 0}
            r = w.ask(dict(base, spec=spec(path, values)))
            check("load_baseline (alias + recorded)", r.get("status") == "ok", r.get("error") or r.get("launch_mode"))
            for name, want in (("eval_add", True), ("eval_add_wrong", False)):
                r = w.ask({"op": "evaluate", "cubin_b64": cubin(name), "check_only": True})
                check(f"evaluate {name}", r.get("correct") is want, r.get("error") or f"correct={r.get('correct')}")
            with open(path, "wb") as f:
                f.write(zlib.compress(values[:-4] + b"\0\0\0\0"))
            r = w.ask(dict(base, spec=spec(path, values)))
            msg = r.get("error") or ""
            check("altered values refused", r.get("status") != "ok" and "x: recorded values" in msg
                  and "SHA-256 mismatch" in msg, msg)
        finally:
            w.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
