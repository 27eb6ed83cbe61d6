"""Diagnostics for a captured program: run as `python -m sassx_capture -o DIR -- python diag_wrap.py PROG`.
Reports who asks for the `triton` module before it is imported, whether the capture's import hook is still
waiting, whether the recorder was installed and what it saw, and how Inductor launches."""
import os
import runpy
import sys
import traceback

LOG = []


class _Watch:
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "triton" and "triton" not in sys.modules:
            st = traceback.extract_stack()[:-1]
            frames = [f"{os.path.basename(f.filename)}:{f.lineno}:{f.name}" for f in st if "importlib" not in f.filename][-5:]
            hooks = [type(f).__name__ for f in sys.meta_path]
            LOG.append(("find_spec(triton)", frames, hooks))
        return None


def report():
    print("=== diag", sys.argv[1:], file=sys.stderr)
    for entry in LOG:
        print("  ", entry, file=sys.stderr)
    print("   meta_path now:", [type(f).__name__ for f in sys.meta_path], file=sys.stderr)
    bs = sys.modules.get("sassx_capture.bootstrap")
    rec = getattr(bs, "_recorder", None) if bs else None
    print("   recorder:", rec is not None, "kernels:", len(getattr(rec, "kernels", {}) or {}), file=sys.stderr)
    if rec is not None:
        for k in rec.kernels.values():
            print("     ", k.get("name"), k.get("launches"), k.get("problem"), file=sys.stderr)
    tr = sys.modules.get("triton")
    if tr:
        from triton.compiler.compiler import CompiledKernel
        print("   triton", tr.__version__, "launch_metadata wrapped:",
              getattr(CompiledKernel.launch_metadata, "_sassx_capture", False), file=sys.stderr)
        rt = tr.knobs.runtime
        print("   enter hook:", type(rt.launch_enter_hook).__name__, getattr(rt.launch_enter_hook, "calls", None),
              file=sys.stderr)
    t = sys.modules.get("torch")
    if t:
        print("   torch", t.__version__, file=sys.stderr)
        cfg = sys.modules.get("torch._inductor.config")
        if cfg:
            print("   use_static_cuda_launcher:", getattr(cfg, "use_static_cuda_launcher", None),
                  "compile_threads:", getattr(cfg, "compile_threads", None), file=sys.stderr)
    for m in ("torch._inductor.runtime.static_cuda_launcher", "torch._inductor.runtime.triton_heuristics"):
        print("   loaded", m, m in sys.modules, file=sys.stderr)


sys.meta_path.insert(0, _Watch())
prog = sys.argv[1]
sys.argv = sys.argv[1:]
try:
    runpy.run_path(prog, run_name="__main__")
finally:
    report()
