#!/usr/bin/env python3
"""Compile and run the Triton samples once on a GPU, then save their cubins and launch specs.

    python3 samples/triton/capture.py [--out samples/triton/captured]

Writes <name>.sm_<cc>.cubin and <name>.launch.json per kernel (see docs/samples.md).  The
parameter list is the kernel's runtime parameters (constexprs are baked into the cubin), then
Triton's trailing scratch pointers as {"kind": "null"}, and is checked against the cubin's
KPARAM_INFO.  Needs torch and triton with a CUDA GPU.
"""
import argparse
import inspect
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # samples/: cubin_params, launch_spec
sys.path.insert(0, HERE)

import cubin_params  # noqa: E402
import launch_spec  # noqa: E402


def meta_get(meta, key, default=None):
    if isinstance(meta, dict):
        return meta.get(key, default)
    return getattr(meta, key, default)


def runtime_param_names(jit_fn):
    """Names of the JIT function's non-constexpr parameters, in order."""
    params = getattr(jit_fn, "params", None)
    if params:
        return [p.name for p in params if not getattr(p, "is_constexpr", False)]
    sig = inspect.signature(jit_fn.fn)
    return [n for n, p in sig.parameters.items() if "constexpr" not in str(p.annotation)]


def capture(name, module, out_dir, cache_dir):
    import torch
    ck, grid, out, ref = module.run()
    err = (out - ref).abs().max().item()
    scale = ref.abs().max().item()
    print(f"{name}: triton output vs torch reference: max abs err {err:.3e} (max |ref| {scale:.3e})")

    meta = ck.metadata
    kernel = meta_get(meta, "name")
    num_warps = meta_get(meta, "num_warps")
    shared = meta_get(meta, "shared")
    target = meta_get(meta, "target")
    arch = meta_get(target, "arch") if target is not None else None
    if arch is None:
        cap = torch.cuda.get_device_capability()
        arch = cap[0] * 10 + cap[1]
    cubin = ck.asm["cubin"]
    cubin_name = f"{name}.sm_{arch}.cubin"
    with open(os.path.join(out_dir, cubin_name), "wb") as f:
        f.write(cubin)

    params, work = module.spec_params()
    names = runtime_param_names(getattr(module, name))
    if [p["name"] for p in params] != names:
        raise SystemExit(f"{name}: spec params {[p['name'] for p in params]} != kernel signature {names}")
    _k, cparams, _total = cubin_params.kernel_params(cubin, kernel)
    extra = len(cparams) - len(params)
    if extra < 0 or any(size != 8 for _o, _off, size in cparams[len(params):]):
        raise SystemExit(f"{name}: cubin has {len(cparams)} params {cparams}, signature {len(params)}")
    for i in range(extra):
        params.append({"name": f"scratch{i}", "kind": "null"})

    spec = {
        "name": name,
        "kernel": kernel,
        "cubin": cubin_name,
        "grid": list(grid),
        "block": [32 * num_warps, 1, 1],
        "dynamic_shared": shared,
        "params": params,
    }
    spec.update(work)
    tri = {"version": __import__("triton").__version__, "num_warps": num_warps,
           "num_stages": meta_get(meta, "num_stages"), "hash": meta_get(meta, "hash"),
           "constexprs": {k: v for k, v in module.CONFIG.items() if k not in ("num_warps", "num_stages")}}
    entries = sorted(os.listdir(cache_dir)) if os.path.isdir(cache_dir) else []
    tri["cache_entries"] = [e for e in entries
                            if os.path.exists(os.path.join(cache_dir, e, kernel + ".cubin"))]
    spec["triton"] = tri
    problems = cubin_params.check_spec(cubin, spec)
    if problems:
        raise SystemExit(f"{name}: spec does not match cubin: {problems}")
    launch_spec.dump(spec, os.path.join(out_dir, f"{name}.launch.json"))
    print(f"{name}: kernel {kernel}, {len(cparams)} params ({extra} scratch), block {spec['block']}, "
          f"grid {spec['grid']}, shared {shared}, cubin {len(cubin)} bytes -> {cubin_name}")
    return spec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "captured"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cache_dir = os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="sassx-triton-cache-"))
    import attention
    import gemm_leakyrelu
    ok = True
    for name, module in (("gemm_leakyrelu", gemm_leakyrelu), ("attention_fwd", attention)):
        try:
            capture(name, module, args.out, cache_dir)
        except SystemExit as e:
            print(f"FAILED {e}")
            ok = False
        except Exception as e:  # keep capturing the others
            import traceback
            traceback.print_exc()
            print(f"FAILED {name}: {e!r}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
