#!/usr/bin/env python3
"""Which stall x yield variants nvdisasm can decode (bench/yield/README.md).

  decode_check.py VARIANT_DIR    writes VARIANT_DIR/decode.json and prints a summary

nvdisasm decodes the stall, yield and reuse bits of an instruction as one field ("opex"); for some
combinations it reports "undefined value". Those are encodings ptxas never emits.

Besides the 32 variants, it checks a grid: the first edited FFMA of gap_ffma_64 with every reuse mask
(0..7) x yield bit x stall (0..15), patched into a scratch copy of orig.cubin that is only disassembled,
never run.
"""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

UNDEFINED = re.compile(r"Opclass '([^']+)', undefined value (0x[0-9a-f]+) for table '([^']+)'")


def find_nvdisasm():
    for cand in (os.environ.get("SASSX_NVDISASM"),
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvdisasm"),
                 shutil.which("nvdisasm")):
        if cand and os.access(cand, os.X_OK):
            return cand
    try:
        import nvidia  # the nvidia-cuda-nvdisasm wheel
        for root in nvidia.__path__:
            for p in glob.glob(os.path.join(root, "*", "bin", "nvdisasm")):
                return p
    except ImportError:
        pass
    sys.exit("decode_check.py: nvdisasm not found (set SASSX_NVDISASM)")


def sections(data):
    """(name, file offset, size) of every section of an ELF64 file."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = secs[shstrndx][4]
    for sh_name, _, _, _, off, size in secs:
        end = data.index(b"\0", strtab + sh_name)
        yield data[strtab + sh_name:end].decode(), off, size


def text_section(data, name):
    """(file offset, size) of section `name` in an ELF64 file."""
    for sname, off, size in sections(data):
        if sname == name:
            return off, size
    raise KeyError(name)


def reuse_grid(nvdisasm, vdir, manifest):
    """rows[reuse][yield] = 16 characters, 'x' where nvdisasm calls the encoding undefined."""
    kernel = next(k for k in manifest["kernels"] if k["kernel"] == "gap_ffma_64")
    index = kernel["edited"][0]["index"]
    orig = open(os.path.join(vdir, "orig.cubin"), "rb").read()
    at = text_section(orig, ".text.gap_ffma_64")[0] + 16 * index + 8
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "grid.cubin")
        for reuse in range(8):
            for y in (0, 1):
                marks = ""
                for stall in range(16):
                    data = bytearray(orig)
                    hi = struct.unpack_from("<Q", data, at)[0]
                    hi &= ~((0x1F << 41) | (0xF << 58))
                    hi |= (stall << 41) | (y << 45) | (reuse << 58)
                    struct.pack_into("<Q", data, at, hi)
                    open(path, "wb").write(data)
                    p = subprocess.run([nvdisasm, "-hex", path], capture_output=True, text=True)
                    marks += "x" if UNDEFINED.search(p.stderr) else "."
                rows.setdefault(str(reuse), {})[str(y)] = marks
    return {"instruction": kernel["edited"][0]["text"], "rows": rows}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    vdir = sys.argv[1]
    nvdisasm = find_nvdisasm()
    manifest = json.load(open(os.path.join(vdir, "manifest.json")))
    rows = []
    for v in manifest["variants"]:
        p = subprocess.run([nvdisasm, "-hex", os.path.join(vdir, v["file"])], capture_output=True, text=True)
        undefined = {}
        for m in UNDEFINED.finditer(p.stderr):
            key = f"{m.group(1)} opex {m.group(2)}"
            undefined[key] = undefined.get(key, 0) + 1
        rows.append({"file": v["file"], "stall": v["stall"], "yield": v["yield"], "undefined": undefined})
    grid = reuse_grid(nvdisasm, vdir, manifest)
    json.dump({"nvdisasm": nvdisasm, "rows": rows, "ffma_reuse_grid": grid},
              open(os.path.join(vdir, "decode.json"), "w"), indent=1)
    for r in rows:
        total = sum(r["undefined"].values())
        what = ", ".join(sorted({k.split(" opex")[0] for k in r["undefined"]})) or "-"
        print(f"stall {r['stall']:2d} yield {r['yield']}: {total:4d} undefined ({what})")
    print(f"{grid['instruction']}: reuse mask (c b a) x yield bit, stall 0..15 ('x' = undefined)")
    for reuse, ys in grid["rows"].items():
        for y, marks in ys.items():
            print(f"  reuse {int(reuse):03b} yield {y}: {marks}")


if __name__ == "__main__":
    main()
