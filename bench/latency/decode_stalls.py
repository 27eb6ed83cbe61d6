#!/usr/bin/env python3
"""Which stall counts 1-11 nvdisasm decodes on every instruction of the sample cubins (docs/legality.md,
"Rescheduling"): for each stall s, every instruction whose own stall is 1-11 gets s (its yield bit and
reuse flags kept) in a scratch copy of the cubin, which is only disassembled, never run. nvdisasm decodes
stall, yield and reuse as one field and names each combination it cannot decode ("undefined value").

  decode_stalls.py OUT.json CUBIN...
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "yield"))
from decode_check import find_nvdisasm, sections  # noqa: E402

UNDEFINED = re.compile(r"undefined value")


def main():
    nvdisasm = find_nvdisasm()
    out, cubins = sys.argv[1], sys.argv[2:]
    rows = []
    for path in cubins:
        orig = open(path, "rb").read()
        for stall in range(1, 12):
            data = bytearray(orig)
            edited = 0
            for _, off, size in (x for x in sections(orig) if x[0].startswith(".text.")):
                for at in range(off + 8, off + size, 16):
                    hi = int.from_bytes(data[at:at + 8], "little")
                    own = (hi >> 41) & 0xF
                    if own == 0 or own > 11:
                        continue
                    hi = (hi & ~(0xF << 41)) | (stall << 41)
                    data[at:at + 8] = hi.to_bytes(8, "little")
                    edited += 1
            with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
                f.write(data)
                f.flush()
                p = subprocess.run([nvdisasm, "-c", f.name], capture_output=True, text=True)
            undefined = len(UNDEFINED.findall(p.stderr + p.stdout))
            rows.append({"cubin": os.path.basename(path), "stall": stall, "instructions_edited": edited,
                         "nvdisasm_rc": p.returncode, "undefined": undefined,
                         "stderr": p.stderr.strip().splitlines()[:3]})
            print(rows[-1]["cubin"], stall, edited, p.returncode, undefined, flush=True)
    json.dump({"nvdisasm": nvdisasm, "rows": rows}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
