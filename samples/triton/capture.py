#!/usr/bin/env python3
"""Compile and run the Triton samples once on a GPU, then save their cubins and launch specs.

    python3 samples/triton/capture.py [--out samples/triton/captured] [--records DIR]

Writes <name>.sm_<cc>.cubin and <name>.launch.json per kernel (see docs/samples.md).  The launch is
recorded and turned into a spec by the capture package (app/capture/sassx_capture, docs/capture.md: one
implementation for both); the sample's own spec_params() is the cross-check: the captured params must
equal it, and it supplies the work figures (flops) a launch cannot tell.  --records keeps the recorded
launch metadata (the CI tests' fixtures are of that form).  Needs torch and triton with a CUDA GPU.
"""
import argparse
import inspect
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "app", "capture"))
sys.path.insert(0, HERE)

from sassx_capture import spec_json  # noqa: E402
from sassx_capture.recorder import Recorder  # noqa: E402
from sassx_capture.specs import spec_from_record  # noqa: E402


def runtime_param_names(jit_fn):
    """Names of the JIT function's non-constexpr parameters, in order."""
    params = getattr(jit_fn, "params", None)
    if params:
        return [p.name for p in params if not getattr(p, "is_constexpr", False)]
    sig = inspect.signature(jit_fn.fn)
    return [n for n, p in sig.parameters.items() if "constexpr" not in str(p.annotation)]


def capture(name, module, out_dir, recorder):
    ck, _grid, out, ref = module.run()
    err = (out - ref).abs().max().item()
    scale = ref.abs().max().item()
    print(f"{name}: triton output vs torch reference: max abs err {err:.3e} (max |ref| {scale:.3e})")

    rec = recorder.kernels.get(ck.hash)
    if rec is None:
        raise SystemExit(f"{name}: the launch was not recorded")
    cubin = ck.asm["cubin"]
    cubin_name = f"{name}.sm_{rec['arch']}.cubin"
    spec, reason = spec_from_record(rec, name, cubin, cubin_name)
    if spec is None:
        raise SystemExit(f"{name}: {reason}")

    declared, work = module.spec_params()
    names = runtime_param_names(getattr(module, name))
    runtime = [p for p in spec["params"] if not p["name"].startswith("scratch")]
    if [p["name"] for p in runtime] != names:
        raise SystemExit(f"{name}: captured params {[p['name'] for p in runtime]} != kernel signature {names}")
    if runtime != declared:
        diff = [(c, d) for c, d in zip(runtime, declared) if c != d]
        raise SystemExit(f"{name}: captured params differ from the sample's spec_params(): {diff}")
    spec.update(work)
    with open(os.path.join(out_dir, cubin_name), "wb") as f:
        f.write(cubin)
    spec_json.dump(spec, os.path.join(out_dir, f"{name}.launch.json"))
    n_scratch = len(spec["params"]) - len(runtime)
    print(f"{name}: kernel {spec['kernel']}, {len(spec['params'])} params ({n_scratch} scratch), block "
          f"{spec['block']}, grid {spec['grid']}, shared {spec['dynamic_shared']}, cubin {len(cubin)} bytes "
          f"-> {cubin_name}")
    return spec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "captured"))
    ap.add_argument("--records", help="also write each kernel's recorded launch metadata here")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="sassx-triton-cache-"))
    recorder = Recorder(tempfile.mkdtemp(prefix="sassx-capture-raw-"), use_profiler=False)
    try:
        import attention
        import gemm_leakyrelu
    except ImportError as e:
        print(f"capture.py: needs torch and triton with a CUDA GPU: {e}", file=sys.stderr)
        return 1
    if not recorder.install():
        return 1
    ok = True
    for name, module in (("gemm_leakyrelu", gemm_leakyrelu), ("attention_fwd", attention)):
        try:
            capture(name, module, args.out, recorder)
        except SystemExit as e:
            print(f"FAILED {e}")
            ok = False
        except Exception as e:  # keep capturing the others
            import traceback
            traceback.print_exc()
            print(f"FAILED {name}: {e!r}")
            ok = False
    recorder.finished = True  # nothing to write at exit: the specs are written
    if args.records:
        os.makedirs(args.records, exist_ok=True)
        for rec in recorder.kernels.values():
            with open(os.path.join(args.records, f"{rec['name']}.record.json"), "w") as f:
                json.dump(rec, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
