"""Triton's launch hooks, shared by the recorder (capture) and the launch timer (`time --kernel-times`).

CompiledKernel.launch_metadata is wrapped because it is the one call every launch path makes with the
compiled kernel itself (its hash, name and cubin) and the arguments; the enter/exit hooks
(triton.knobs.runtime in Triton >= 3.4, CompiledKernel's class attributes before) bracket the launch.
Triton calls launch_metadata only while an enter hook is installed, so both go in together.
"""


def install_launch_hooks(before_launch, enter, exit_):
    """Wraps launch_metadata to call `before_launch(ck, grid, args)` first and adds `enter`/`exit_` to the
    launch hooks.  Returns None once installed (or already), else why not, in words."""
    import triton
    from triton.compiler import compiler as tc
    ck_cls = tc.CompiledKernel
    orig = getattr(ck_cls, "launch_metadata", None)
    if orig is None:
        return f"Triton {triton.__version__} has no CompiledKernel.launch_metadata (Triton >= 3.0 needed)"
    if getattr(orig, "_sassx_capture", False):
        return None

    def launch_metadata(ck, grid, stream, *args):
        before_launch(ck, grid, args)
        return orig(ck, grid, stream, *args)

    launch_metadata._sassx_capture = True
    ck_cls.launch_metadata = launch_metadata
    knobs = getattr(triton, "knobs", None)
    runtime = getattr(knobs, "runtime", None)
    target = runtime if runtime is not None and hasattr(runtime, "launch_enter_hook") else ck_cls
    for attr, fn in (("launch_enter_hook", enter), ("launch_exit_hook", exit_)):
        current = getattr(target, attr, None)
        if hasattr(current, "add"):  # Triton >= 3.5: a HookChain
            current.add(fn)
        elif current is None:
            setattr(target, attr, fn)
        else:
            setattr(target, attr, _chain(current, fn))
    return None


def _chain(first, second):
    def hook(metadata):
        first(metadata)
        second(metadata)
    return hook
