#!/usr/bin/env python3
"""Writes the tiny hostile inputs next to this script. Each is built from scratch (no NVIDIA bytes)
so it is small, and breaks exactly one rule; test_cubin checks the error text each one must give.
Run again after changing it: python3 make_hostile.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def elf(sections, machine=190, flags=0x06005A04, ident_class=2, ident_data=1, shoff=None,
        shnum=None, shstrndx=None, shentsize=64):
    """sections: list of dicts name,type,data,link,info,entsize,size(optional override)."""
    names = b"\0"
    name_off = []
    for s in sections:
        name_off.append(len(names))
        names += s["name"].encode() + b"\0"
    secs = [{"name": ".shstrtab", "type": 3, "data": names}] + sections
    name_off = [0] + [o for o in name_off]
    # recompute: .shstrtab name is not in table; give it offset of an empty string (0)
    body = b""
    offsets = []
    pos = 64
    for s in secs:
        while (pos + len(body)) % 8:
            body += b"\0"
        offsets.append(64 + len(body))
        body += s.get("data", b"")
    table_off = 64 + len(body)
    while table_off % 8:
        body += b"\0"
        table_off += 1
    sh = b"\0" * 64  # section 0
    for i, s in enumerate(secs):
        data = s.get("data", b"")
        sh += struct.pack("<IIQQQQIIQQ", name_off[i], s["type"], 0, 0, s.get("offset", offsets[i]),
                          s.get("size", len(data)), s.get("link", 0), s.get("info", 0), 4,
                          s.get("entsize", 0))
    ident = b"\x7fELF" + bytes([ident_class, ident_data, 1, 0x41, 8]) + b"\0" * 7
    hdr = ident + struct.pack("<HHIQQQIHHHHHH", 2, machine, 1, 0, 0,
                              table_off if shoff is None else shoff, flags, 64, 0, 0, shentsize,
                              len(secs) + 1 if shnum is None else shnum,
                              1 if shstrndx is None else shstrndx)
    return hdr + body + sh


def text(name, size=32):
    return {"name": ".text." + name, "type": 1, "data": b"\0" * size}


def symtab(names_and_sections):
    strtab = b"\0"
    syms = b"\0" * 24
    for name, shndx in names_and_sections:
        off = len(strtab)
        strtab += name.encode() + b"\0"
        syms += struct.pack("<IBBHQQ", off, 0x12, 0x10, shndx, 0, 32)
    return strtab, syms


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    good_strtab, good_syms = symtab([("k", 2)])
    base = [text("k"), {"name": ".strtab", "type": 3, "data": good_strtab},
            {"name": ".symtab", "type": 2, "data": good_syms, "link": 3, "entsize": 24}]

    # The baseline every other file breaks: must parse, with kernel "k".
    write("minimal_ok.bin", elf(base))
    write("bad_magic.bin", b"\x7fELG" + b"\0" * 60)
    write("truncated_header.bin", elf(base)[:40])
    write("elf32.bin", elf(base, ident_class=1))
    write("big_endian.bin", elf(base, ident_data=2))
    write("wrong_machine.bin", elf(base, machine=62))
    write("shoff_past_end.bin", elf(base, shoff=0x7FFFFFFFFFFFFFF0))
    write("shnum_past_end.bin", elf(base, shnum=4000))
    write("shstrndx_out_of_range.bin", elf(base, shstrndx=77))
    write("shstrndx_zero.bin", elf(base, shstrndx=0))  # found by fuzz_cubin
    # Section 1 (.text.k) claims a huge size.
    s = [dict(base[0], size=0xFFFFFFFFFFFFFF00)] + base[1:]
    write("section_size_overflow.bin", elf(s))
    # Section name offset beyond .shstrtab.
    data = bytearray(elf(base))
    shoff = struct.unpack_from("<Q", data, 40)[0]
    struct.pack_into("<I", data, shoff + 2 * 64, 0x10000)
    write("name_offset_out_of_range.bin", bytes(data))
    # .nv.info.k record whose length runs past the section end.
    info = struct.pack("<BBH", 4, 0x1C, 64) + struct.pack("<I", 0x10)
    write("nvinfo_length_past_end.bin", elf(base + [{"name": ".nv.info.k", "type": 0x70000000, "data": info,
                                                      "link": 4, "info": 2}]))
    # Global .nv.info REGCOUNT naming a symbol that does not exist.
    info = struct.pack("<BBHII", 4, 0x2F, 8, 99, 32)
    write("nvinfo_symbol_out_of_range.bin", elf(base + [{"name": ".nv.info", "type": 0x70000000, "data": info,
                                                          "link": 4}]))
    # EXIT_INSTR_OFFSETS naming an offset outside the 32-byte code.
    info = struct.pack("<BBHI", 4, 0x1C, 4, 0x1000)
    write("exit_offset_outside_code.bin", elf(base + [{"name": ".nv.info.k", "type": 0x70000000, "data": info,
                                                        "link": 4, "info": 2}]))
    # Relocation whose symbol index is out of range.
    rela = struct.pack("<QQq", 0, (500 << 32) | 0x37, 0)
    write("reloc_symbol_out_of_range.bin", elf(base + [{"name": ".rela.text.k", "type": 4, "data": rela,
                                                         "link": 4, "info": 2, "entsize": 24}]))
    # Relocation patching past the end of .text.k.
    rela = struct.pack("<QQq", 0x4000, (1 << 32) | 0x37, 0)
    write("reloc_offset_outside_section.bin", elf(base + [{"name": ".rela.text.k", "type": 4, "data": rela,
                                                            "link": 4, "info": 2, "entsize": 24}]))
    # Fatbin whose container size runs past the end of the blob.
    write("fatbin_size_past_end.bin", struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 1 << 40) + b"\0" * 64)
    # Fatbin with an ELF entry whose payload is not a CUDA ELF.
    entry = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x101, 64, 8, 0, 0, 8, 1, 90, 0, 0, 0x11, 0, 0) + b"garbage!"
    write("fatbin_entry_not_elf.bin", struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry)) + entry)
    # Fatbin ELF entry flagged zstd with a corrupt stream.
    entry = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x101, 64, 8, 8, 0, 8, 1, 90, 0, 0, 0x8011, 0, 4096) + \
        b"\x28\xb5\x2f\xfd\0\0\0\0"
    write("fatbin_zstd_corrupt.bin", struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry)) + entry)
    # Host ELF (x86-64) without any fatbin section.
    write("host_without_fatbin.bin", elf([{"name": ".text", "type": 1, "data": b"\xc3"}], machine=62))


if __name__ == "__main__":
    main()
