import json, sys
FIELDS = [(0, 24), (0, 32), (1, 0)]
def slot_reg(ins, s):
    word, bit = FIELDS[s]
    n = (int(ins["raw"][word], 16) >> bit) & 0xFF
    name = f"R{n}"
    return name if n != 255 and name in ins["uses"] else None
for path in sys.argv[1:]:
    ann = json.load(open(path)); insts = ann["instructions"]
    # model M2: per slot an entry (reg, valid) set only by a flagged read; never invalidated otherwise.
    # A read of reg r through slot s while entry==(r) after r was written since the fill = stale.
    stale = 0; reads_hit = 0; ex=None
    for b in sorted(set(i["block"] for i in insts)):
        entry = [None, None, None]; dirty = [False]*3
        for k, I in enumerate(insts):
            if I["block"] != b: continue
            for s in range(3):
                r = slot_reg(I, s)
                if r is not None and entry[s] == r:
                    reads_hit += 1
                    if dirty[s]:
                        stale += 1; ex = ex or (k, r, "abc"[s])
            for s in range(3):
                r = slot_reg(I, s)
                if (I["control"]["reuse"] >> s) & 1 and r:
                    entry[s] = r; dirty[s] = False
            for s in range(3):
                if entry[s] and entry[s] in I["defs"]:
                    dirty[s] = True
    print(path.split('/')[-1], "hits", reads_hit, "stale-under-M2", stale, ex)
