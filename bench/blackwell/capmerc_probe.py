#!/usr/bin/env python3
"""The capmerc question: when a Blackwell cubin's .text is edited, does the driver run the edited .text,
or does it finalise the kernel again from .nv.capmerc.text.<kernel> (a second form of the code that
ptxas writes beside .text on sm_100 and up)? And does the cubin still load with the capmerc sections
stripped?

  capmerc_probe.py make DIR --arch sm_100a [--nvcc NVCC]   (here: nvcc, no GPU)
  capmerc_probe.py run DIR OUT.json                          (the device: libcuda through ctypes)

`make` compiles a one-line kernel whose output carries a 32-bit marker immediate (out[i] = MARKER ^ i)
and writes four cubins: orig, edited (the marker's immediate in .text replaced by EDITED, capmerc kept),
orig_stripped and edited_stripped (every .nv.capmerc.* and .nv.merc.* section made SHT_NULL and its
bytes zeroed). `run` loads each with cuModuleLoadData, launches it and reads which marker came out:
MARKER means the capmerc code ran, EDITED means the edited .text ran, a load error is recorded as it is.
"""
import argparse
import ctypes
import json
import os
import struct
import subprocess
import sys

MARKER = 0x1234567
EDITED = 0x7654321
SOURCE = """extern "C" __global__ void capmerc_probe(unsigned* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 0x%08xu ^ i;
}
""" % MARKER
THREADS = 64


def sections(data):
    """[(name, type, offset, size, header_offset)] of an ELF64 little-endian file."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [(shoff + i * shentsize, struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize))
             for i in range(shnum)]
    strtab = heads[shstrndx][1][4]
    out = []
    for at, (name, typ, _flags, _addr, off, size) in heads:
        end = data.index(b"\0", strtab + name)
        out.append((data[strtab + name:end].decode(), typ, off, size, at))
    return out


def edit_text(data):
    """The cubin with MARKER's immediate in .text.capmerc_probe replaced by EDITED."""
    data = bytearray(data)
    needle, repl = struct.pack("<I", MARKER), struct.pack("<I", EDITED)
    for name, _typ, off, size, _at in sections(data):
        if name == ".text.capmerc_probe":
            pos = data.find(needle, off, off + size)
            if pos < 0:
                raise SystemExit("capmerc_probe.py: the marker immediate is not in .text (ptxas folded it?)")
            data[pos:pos + 4] = repl
            return bytes(data)
    raise SystemExit("capmerc_probe.py: no .text.capmerc_probe")


def strip_merc(data):
    """Every .nv.capmerc.* / .nv.merc.* section made SHT_NULL with its bytes zeroed; (data, names)."""
    data = bytearray(data)
    names = []
    for name, _typ, off, size, at in sections(data):
        if name.startswith(".nv.capmerc.") or name.startswith(".nv.merc."):
            data[off:off + size] = bytes(size)
            struct.pack_into("<I", data, at + 4, 0)  # sh_type
            names.append(name)
    return bytes(data), names


def make(args):
    os.makedirs(args.dir, exist_ok=True)
    src = os.path.join(args.dir, "capmerc_probe.cu")
    with open(src, "w") as f:
        f.write(SOURCE)
    orig = os.path.join(args.dir, "orig.cubin")
    subprocess.run([args.nvcc, "-cubin", "-O3", f"-arch={args.arch}", "-o", orig, src], check=True)
    data = open(orig, "rb").read()
    edited = edit_text(data)
    variants = {"orig": data, "edited": edited}
    variants["orig_stripped"], stripped = strip_merc(data)
    variants["edited_stripped"], _ = strip_merc(edited)
    for name, blob in variants.items():
        with open(os.path.join(args.dir, name + ".cubin"), "wb") as f:
            f.write(blob)
    manifest = {"arch": args.arch, "marker": MARKER, "edited": EDITED, "threads": THREADS,
                "stripped_sections": stripped, "variants": sorted(variants)}
    with open(os.path.join(args.dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"capmerc probe for {args.arch}: {len(variants)} cubins, {len(stripped)} merc sections stripped")


class Cuda:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuCtxCreate_v2(ctypes.byref(self.ctx), 0, dev), "cuCtxCreate")

    def error(self, code):
        s = ctypes.c_char_p()
        self.lib.cuGetErrorName(code, ctypes.byref(s))
        return s.value.decode() if s.value else str(code)

    def check(self, code, what):
        if code != 0:
            raise RuntimeError(f"{what}: {self.error(code)}")

    def run(self, blob):
        """The words the kernel wrote, or raises with the driver's error."""
        module, func, buf = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_uint64()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), blob), "cuModuleLoadData")
        try:
            self.check(self.lib.cuModuleGetFunction(ctypes.byref(func), module, b"capmerc_probe"),
                       "cuModuleGetFunction")
            self.check(self.lib.cuMemAlloc_v2(ctypes.byref(buf), THREADS * 4), "cuMemAlloc")
            self.check(self.lib.cuMemsetD32_v2(buf, 0xFFFFFFFF, THREADS), "cuMemsetD32")
            arg = ctypes.c_uint64(buf.value)
            params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(arg), ctypes.c_void_p))
            self.check(self.lib.cuLaunchKernel(func, 1, 1, 1, THREADS, 1, 1, 0, None, params, None),
                       "cuLaunchKernel")
            self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")
            host = (ctypes.c_uint32 * THREADS)()
            self.check(self.lib.cuMemcpyDtoH_v2(host, buf, THREADS * 4), "cuMemcpyDtoH")
            self.lib.cuMemFree_v2(buf)
            return list(host)
        finally:
            self.lib.cuModuleUnload(module)


def verdict(words):
    if words == [MARKER ^ i for i in range(THREADS)]:
        return "capmerc"  # the marker ptxas compiled: the driver did not run the edited .text
    if words == [EDITED ^ i for i in range(THREADS)]:
        return "text"
    return "other"


def run(args):
    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    cuda = Cuda()
    rows = []
    for name in manifest["variants"]:
        blob = open(os.path.join(args.dir, name + ".cubin"), "rb").read()
        row = {"variant": name}
        try:
            words = cuda.run(blob)
            row["ran"] = verdict(words)
            row["first_words"] = [hex(w) for w in words[:2]]
        except RuntimeError as e:
            row["ran"] = "error"
            row["error"] = str(e)
        rows.append(row)
        print(f"{name:16s} {row['ran']:8s} {row.get('error', '')}", flush=True)
    by = {r["variant"]: r["ran"] for r in rows}
    answer = {
        # The edited .text runs with capmerc kept only when 'edited' gives the EDITED marker.
        "edited_text_runs_with_capmerc_kept": by.get("edited") == "text",
        "edited_text_runs_with_capmerc_stripped": by.get("edited_stripped") == "text",
        "stripped_original_loads": by.get("orig_stripped") in ("text", "capmerc"),
    }
    with open(args.out, "w") as f:
        json.dump({"arch": manifest["arch"], "rows": rows, "answer": answer}, f, indent=1)
    print(json.dumps(answer))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("--arch", required=True)
    m.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("out")
    args = ap.parse_args()
    make(args) if args.cmd == "make" else run(args)


if __name__ == "__main__":
    sys.exit(main())
