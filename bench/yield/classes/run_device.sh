#!/usr/bin/env bash
# Runs the yield-bit class probe on a GPU machine (bench/yield/classes/README.md). Run from the
# repository root with the variants written beforehand (make_variants.py) in VARIANT_DIR (default
# .deps/yield-classes). Writes classes-raw.json, device.json, env.{json,txt} and log.txt to OUT_DIR (default $OUT, else
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

source "$(dirname "$0")/../../lib/device.sh"
bench_env "$OUT_DIR/env" "VARIANT_DIR=$VARIANT_DIR run_classes.py options: $*" > /dev/null
python3 -c 'import cupy' 2>/dev/null || { echo "run_device.sh: python3 has no CuPy" >&2; exit 1; }
export PYTHONUNBUFFERED=1
rc=0
python3 bench/yield/classes/run_classes.py all "$VARIANT_DIR" "$OUT_DIR/classes-raw.json" "$@" 2>&1 | tee "$OUT_DIR/log.txt" || rc=$?
bench_env_end "$OUT_DIR/env" "$OUT_DIR/device.json"
exit $rc
