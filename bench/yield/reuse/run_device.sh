#!/usr/bin/env bash
# Runs the reuse-under-Y0 probe on a GPU machine (bench/yield/reuse/README.md). From the repository
# root, with the variants written beforehand by make_variants.py in VARIANT_DIR (default
# .deps/yield-reuse):
#   bash bench/yield/reuse/run_device.sh VARIANT_DIR OUT_DIR [run_reuse.py options, e.g. --classes FFMA]
# Writes to OUT_DIR (default $OUT, else ./yield-reuse-out): reuse-raw.json (run_reuse.py's raw data,
# rewritten after every variant), device.json (nvidia-smi before/after, start/end date, kernel),
# nvidia-smi.txt, env.{json,txt} and log.txt. Needs python3 with CuPy and nvidia-smi; no compiler.
set -euo pipefail
VARIANT_DIR=${1:-.deps/yield-reuse}
OUT_DIR=${2:-${OUT:-./yield-reuse-out}}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p "$OUT_DIR"
if [ ! -f "$VARIANT_DIR/manifest.json" ]; then
  echo "run_device.sh: no $VARIANT_DIR/manifest.json (run make_variants.py first)" >&2
  exit 1
fi

source "$(dirname "$0")/../../lib/device.sh"
python3 -c 'import cupy' 2>/dev/null || { echo "run_device.sh: python3 has no CuPy" >&2; exit 1; }
nvidia-smi > "$OUT_DIR/nvidia-smi.txt" 2>&1 || true
bench_env "$OUT_DIR/env" "VARIANT_DIR=$VARIANT_DIR run_reuse.py options: $*" \
  "cupy: $(python3 -c 'import cupy; print(cupy.__version__)' 2>&1)
manifest sha256: $(sha256sum "$VARIANT_DIR/manifest.json" | cut -d' ' -f1)
cubins: $(ls "$VARIANT_DIR"/*.cubin | wc -l)
probe command: python3 bench/yield/reuse/run_reuse.py all $VARIANT_DIR $OUT_DIR/reuse-raw.json $*" > /dev/null
export PYTHONUNBUFFERED=1
rc=0
python3 bench/yield/reuse/run_reuse.py all "$VARIANT_DIR" "$OUT_DIR/reuse-raw.json" "$@" 2>&1 | tee "$OUT_DIR/log.txt" || rc=$?
bench_env_end "$OUT_DIR/env" "$OUT_DIR/device.json"
exit $rc
