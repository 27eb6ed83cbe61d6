#!/usr/bin/env python3
"""Memory instructions with a legal single move per sm_90 sample kernel (docs/legality.md): with the
checker before the measured cells (SASSX_RESOURCES_BEFORE: a resources folder whose sm_90.json has no
"measured" object), with them, and in the rescheduled space (moves with derived control codes).

  move_counts.py SASSX_CLI OUT.json CUBIN...
"""
import json
import os
import subprocess
import sys

MEMORY_CLASSES = {"load_global", "store_global", "load_shared", "store_shared", "load_local", "store_local",
                  "async_copy", "atomic"}


def cli_json(cli, args, resources=None):
    env = dict(os.environ)
    if resources:
        env["SASSX_RESOURCES"] = resources
    p = subprocess.run([cli] + args + ["--json", "--keep-stale-line-info"], capture_output=True, text=True,
                       env=env, timeout=1200)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    cli, out = sys.argv[1], sys.argv[2]
    before = os.environ.get("SASSX_RESOURCES_BEFORE")
    rows = []
    for cubin in sys.argv[3:]:
        ann = cli_json(cli, ["annotate", cubin])
        mem = [i for i in ann["instructions"] if i["class"] in MEMORY_CLASSES]
        non_wall = [i for i in mem if not i["wall"]]
        row = {"cubin": os.path.basename(cubin), "kernel": ann["kernel"], "memory_instructions": len(mem),
               "non_wall_memory_instructions": len(non_wall)}
        for tag, args, res in (("before", [], before), ("measured", [], None),
                               ("rescheduled", ["--reschedule"], None)):
            if tag == "before" and not before:
                continue
            j = cli_json(cli, ["legal", cubin] + args, res)
            row[tag] = {"moves": len(j["moves"]), "memory_instructions_with_a_move": len({m["from"] for m in j["moves"]})}
        rows.append(row)
        print(json.dumps(row), flush=True)
    json.dump(rows, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
