"""Read a kernel's parameter layout from a cubin's .nv.info.<kernel> section (no dependencies).

The capture writes each spec's params against the cubin's KPARAM_INFO with this; samples/cubin_params.py
re-exports it for samples/validate_samples.py.  Usage: python3 -m sassx_capture.cubin_params file.cubin [kernel]
"""
import struct
import sys

EIATTR_KPARAM_INFO = 0x17
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_PARAM_CBANK = 0x0A


def _sections(data):
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        secs.append((name, typ, off, size))
    stroff = secs[shstrndx][2]
    out = {}
    for name, typ, off, size in secs:
        end = data.index(b"\0", stroff + name)
        out[data[stroff + name:end].decode()] = data[off:off + size]
    return out


def kernels(data):
    """Names of the kernels (sections .text.<name>)."""
    return [n[len(".text."):] for n in _sections(data) if n.startswith(".text.")]


def kernel_params(data, kernel=None):
    """Return (kernel, [(ordinal, offset, size)], cbank_param_size) for one kernel."""
    secs = _sections(data)
    if kernel is None:
        names = [n[len(".text."):] for n in secs if n.startswith(".text.")]
        if len(names) != 1:
            raise ValueError(f"cubin has {len(names)} kernels; name one: {names}")
        kernel = names[0]
    info = secs.get(".nv.info." + kernel)
    if info is None:
        raise ValueError(f"no .nv.info.{kernel} section")
    params, total, pos = [], None, 0
    while pos + 4 <= len(info):
        fmt, attr, val = struct.unpack_from("<BBH", info, pos)
        pos += 4
        payload = b""
        if fmt == 4:  # length-prefixed payload
            payload = info[pos:pos + val]
            pos += val
        if attr == EIATTR_KPARAM_INFO and len(payload) >= 12:
            _index, ordinal, offset, flags = struct.unpack_from("<IHHI", payload, 0)
            size = (flags >> 18) & 0x3FFF
            params.append((ordinal, offset, size))
        elif attr == EIATTR_CBANK_PARAM_SIZE:
            total = val
    params.sort()
    return kernel, params, total


DTYPE_SIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "u8": 1, "i16": 2, "u16": 2,
              "i32": 4, "u32": 4, "i64": 8, "u64": 8}


def spec_param_sizes(spec):
    sizes = []
    for p in spec["params"]:
        sizes.append(8 if p["kind"] in ("buffer", "null") else DTYPE_SIZE[p["dtype"]])
    return sizes


def check_spec(data, spec):
    """Compare a launch spec's params with the cubin's KPARAM_INFO. Returns a list of problems."""
    kernel, params, total = kernel_params(data, spec["kernel"])
    want = spec_param_sizes(spec)
    problems = []
    if len(params) != len(want):
        problems.append(f"param count: cubin {len(params)}, spec {len(want)}")
    for i, ((_o, _off, size), w) in enumerate(zip(params, want)):
        if size != w:
            problems.append(f"param {i} ({spec['params'][i].get('name')}): cubin {size} B, spec {w} B")
    return problems


def main(argv):
    if not argv:
        print("usage: cubin_params.py FILE.cubin [KERNEL]", file=sys.stderr)
        return 2
    try:
        blob = open(argv[0], "rb").read()
        k, ps, tot = kernel_params(blob, argv[1] if len(argv) > 1 else None)
    except (OSError, ValueError, struct.error, IndexError) as e:
        print(f"cubin_params: {argv[0]}: {e}", file=sys.stderr)
        return 1
    print(f"{k}: {len(ps)} params, cbank param size {tot}")
    for o, off, size in ps:
        print(f"  #{o} offset {off} size {size}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
