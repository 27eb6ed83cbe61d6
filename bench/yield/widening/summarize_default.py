#!/usr/bin/env python3
"""Table of bench/yield/widening/default_search.sh's runs: the default search per kernel, before (reuse
flags under Y0 refused: SASSX_YIELD_RULE=reuse-printed) and after the widening, with the best's fresh
benches and how many of the best's edits keep reuse flags under Y0.

  summarize_default.py RESULT_DIR [SAMPLES_DIR]   prints the markdown table

With SAMPLES_DIR (the sample cubins), each best cubin is compared word by word with the original's: the
count of words with Y0 and reuse flags (which ptxas never writes) is the number of kept-reuse edits.
"""
import glob
import json
import os
import struct
import sys


def kept_reuse_words(cubin):
    """Instruction words of every .text section with the yield bit clear and reuse flags set."""
    data = open(cubin, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    names_off = sections[shstrndx][4]
    count = 0
    for s in sections:
        name = data[names_off + s[0]:data.index(b"\0", names_off + s[0])].decode()
        if not name.startswith(".text."):
            continue
        for o in range(s[4], s[4] + s[5], 16):
            hi, = struct.unpack_from("<Q", data, o + 8)
            if not (hi >> 45) & 1 and (hi >> 58) & 7:
                count += 1
    return count


def main(root):
    print("| kernel | rule | space | legal edits | evaluations | noise floor | search's best | fresh bench 1 "
          "| fresh bench 2 | words with reuse kept under Y0 | stop |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for d in sorted(glob.glob(os.path.join(root, "*.before")) + glob.glob(os.path.join(root, "*.after"))):
        kernel, mode = os.path.basename(d).rsplit(".", 1)
        rep = os.path.join(d, "report.json")
        if not os.path.exists(rep):
            print(f"| {kernel} | {mode} | – | – | – | – | no report | – | – | – | – |")
            continue
        r = json.load(open(rep))
        floor = r["baseline"]["noise_floor"] * 100
        best = "none" if not r["improved"] else r["summary"].split(" (")[0].replace("best ", "")
        benches = []
        for b in sorted(glob.glob(os.path.join(d, "bench*.json"))):
            try:
                s = json.load(open(b))["speedup"]
                benches.append(f"{s['median']:.4f}× [{s['low']:.4f}, {s['high']:.4f}]")
            except (ValueError, KeyError):
                benches.append("failed")
        benches += ["–"] * (2 - len(benches))
        cubin = os.path.join(d, "best.cubin")
        kept = str(kept_reuse_words(cubin)) if os.path.exists(cubin) and r["improved"] else "–"
        space = r.get("config", {}).get("space", "?")
        stop = str(r.get("stop_detail") or r.get("stop_reason", "")).replace("|", "/")[:100]
        print(f"| {kernel} | {mode} | {space} | {r.get('legal_edits_at_start', '–')} | {r['evaluations']} "
              f"| {floor:.2f}% | {best} | {benches[0]} | {benches[1]} | {kept} | {stop} |")


if __name__ == "__main__":
    main(sys.argv[1])
