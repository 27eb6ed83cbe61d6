"""One search's result as a Markdown table cell, shared by the device write-up scripts: the final
re-measure of the best (100 fresh interleaved rounds) with its 95% interval and the run's noise floor,
the fresh-instance benches of CONFIRM=1 (medians), and ✓ where the best was re-verified bitwise."""


def cell(v, in_noise="re-measured, in the noise", no_edit_note=False):
    """v: one entry of run_device.sh's merged JSON (or None)."""
    if v is None:
        return "–"
    r = v["report"]
    f = r["best"]["final"]
    floor = f"floor {r['baseline']['noise_floor'] * 100:.2f}%"
    if no_edit_note and r["legal_edits_at_start"] == 0:
        return "no legal edit"
    if not r["improved"]:
        if r["best"]["step"] >= 0 and "low" in f:
            sep = " " if in_noise.startswith("re-") else ", "
            return f"none ({f['speedup']:.4f}×{sep}{in_noise}; {floor})"
        return f"none ({floor})"
    s = f"**{f['speedup']:.4f}×** [{f['low']:.4f}, {f['high']:.4f}], {floor}"
    fresh = [b["speedup"]["median"] for b in v.get("fresh_instance_benches", []) if "speedup" in b]
    if fresh:
        s += "; fresh " + ", ".join(f"{x:.4f}×" for x in fresh)
    return s + (" ✓" if r["verification"].get("correct") is True else "")
