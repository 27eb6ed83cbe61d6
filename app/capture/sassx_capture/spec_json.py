"""Launch-spec JSON layout (docs/launch-spec.md): one top-level field and one parameter per line, so that
specs diff well.  samples/launch_spec.py re-exports dump/dumps."""
import json

KEY_ORDER = ["name", "kernel", "cubin", "grid", "block", "dynamic_shared", "params", "flops", "bytes",
             "tolerance", "triton"]


def dumps(spec):
    keys = [k for k in KEY_ORDER if k in spec] + [k for k in spec if k not in KEY_ORDER]
    lines = []
    for k in keys:
        if k == "params":
            ps = [f"    {json.dumps(p)}" for p in spec["params"]]
            lines.append('  "params": [\n' + ",\n".join(ps) + "\n  ]")
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(spec[k])}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def dump(spec, path):
    with open(path, "w") as f:
        f.write(dumps(spec))
