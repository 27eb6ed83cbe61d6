#!/usr/bin/env bash
# Runs the stall x yield probe on a GPU machine (bench/yield/README.md). Run from the repository root
# with the variants generated beforehand (bench/yield/generate.sh) in VARIANT_DIR (default
# .deps/yield/variants). Writes yield-raw.json, device.json, env.{json,txt} and log.txt to OUT_DIR (default $OUT, else
# ./yield-out). Needs python3 with CuPy; no compiler.
set -euo pipefail
VARIANT_DIR=${1:-.deps/yield/variants}
OUT_DIR=${2:-${OUT:-./yield-out}}
mkdir -p "$OUT_DIR"
if [ ! -f "$VARIANT_DIR/manifest.json" ]; then
  echo "run_device.sh: no $VARIANT_DIR/manifest.json (run generate.sh first)" >&2
  exit 1
fi

source "$(dirname "$0")/../lib/device.sh"
bench_env "$OUT_DIR/env" "VARIANT_DIR=$VARIANT_DIR" > /dev/null
python3 -c 'import cupy' 2>/dev/null || { echo "run_device.sh: python3 has no CuPy" >&2; exit 1; }
export PYTHONUNBUFFERED=1
python3 bench/yield/run_yield.py all "$VARIANT_DIR" "$OUT_DIR/yield-raw.json" 2>&1 | tee "$OUT_DIR/log.txt"
bench_env_end "$OUT_DIR/env" "$OUT_DIR/device.json"
