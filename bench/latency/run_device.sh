#!/usr/bin/env bash
# Runs the timing-model probe on a GPU machine (bench/latency/README.md), from the repository root.
# Usage: bench/latency/run_device.sh VARIANTS.tgz OUT_DIR
# Writes latency-raw.json.gz, device.json, env.{json,txt} and log.txt to OUT_DIR. Needs python3 with CuPy.
set -euo pipefail
TGZ=${1:?usage: run_device.sh VARIANTS.tgz OUT_DIR}
OUT_DIR=${2:-${OUT:-./latency-out}}
mkdir -p "$OUT_DIR"
work=$(mktemp -d)
tar xzf "$TGZ" -C "$work"
vdir=$(dirname "$(find "$work" -name manifest.json | head -1)")
source "$(dirname "$0")/../lib/device.sh"
bench_env "$OUT_DIR/env" "variants=$TGZ" > /dev/null
export PYTHONUNBUFFERED=1
python3 bench/latency/run_latency.py all "$vdir" "$OUT_DIR/latency-raw.json" > "$OUT_DIR/log.txt" 2>&1 || {
  tail -20 "$OUT_DIR/log.txt"; exit 1; }
tail -3 "$OUT_DIR/log.txt"
bench_env_end "$OUT_DIR/env" "$OUT_DIR/device.json" "variants=$TGZ" > /dev/null
gzip -k "$OUT_DIR/latency-raw.json"; rm "$OUT_DIR/latency-raw.json"
