#!/usr/bin/env bash
# Runs the yield-bit class probe on a GPU machine (bench/yield/classes/README.md). Run from the
# repository root with the variants written beforehand (make_variants.py) in VARIANT_DIR (default
# .deps/yield-classes). Writes classes-raw.json, device.json and log.txt to OUT_DIR (default $OUT, else
# ./yield-classes-out). Needs python3 with CuPy and nvidia-smi; no compiler. Extra arguments go to
# run_classes.py (e.g. --only 'res_*').
set -euo pipefail
VARIANT_DIR=${1:-.deps/yield-classes}
OUT_DIR=${2:-${OUT:-./yield-classes-out}}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p "$OUT_DIR"
if [ ! -f "$VARIANT_DIR/manifest.json" ]; then
  echo "run_device.sh: no $VARIANT_DIR/manifest.json (run make_variants.py first)" >&2
  exit 1
fi

FIELDS=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw
smi() { nvidia-smi --query-gpu=$FIELDS --format=csv,noheader; }
before=$(smi)
python3 -c 'import cupy' 2>/dev/null || { echo "run_device.sh: python3 has no CuPy" >&2; exit 1; }
export PYTHONUNBUFFERED=1
start=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
rc=0
python3 bench/yield/classes/run_classes.py all "$VARIANT_DIR" "$OUT_DIR/classes-raw.json" "$@" 2>&1 | tee "$OUT_DIR/log.txt" || rc=$?
after=$(smi)
end=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
python3 - "$OUT_DIR/device.json" "$start" "$end" "$before" "$after" "$(uname -r)" "$FIELDS" <<'PY'
import json, sys
out, start, end, before, after, kernel, fields = sys.argv[1:8]
json.dump({"start": start, "end": end, "nvidia_smi_before": before, "nvidia_smi_after": after, "kernel": kernel,
           "nvidia_smi_fields": fields}, open(out, "w"), indent=1)
PY
echo "before: $before"
echo "after:  $after"
exit $rc
