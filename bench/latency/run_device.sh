#!/usr/bin/env bash
# Runs the timing-model probe on a GPU machine (bench/latency/README.md), from the repository root.
# Usage: bench/latency/run_device.sh VARIANTS.tgz OUT_DIR
# Writes latency-raw.json, device.json and log.txt to OUT_DIR. Needs python3 with CuPy.
set -euo pipefail
TGZ=${1:?usage: run_device.sh VARIANTS.tgz OUT_DIR}
OUT_DIR=${2:-${OUT:-./latency-out}}
mkdir -p "$OUT_DIR"
work=$(mktemp -d)
tar xzf "$TGZ" -C "$work"
vdir=$(dirname "$(find "$work" -name manifest.json | head -1)")
FIELDS=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu
smi() { nvidia-smi --query-gpu=$FIELDS --format=csv,noheader | head -1; }
before=$(smi)
start=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
export PYTHONUNBUFFERED=1
python3 bench/latency/run_latency.py all "$vdir" "$OUT_DIR/latency-raw.json" > "$OUT_DIR/log.txt" 2>&1 || {
  tail -20 "$OUT_DIR/log.txt"; exit 1; }
tail -3 "$OUT_DIR/log.txt"
after=$(smi)
python3 - "$OUT_DIR/device.json" "$start" "$before" "$after" "$(uname -r)" "$FIELDS" "$TGZ" <<'PY'
import json, sys
out, start, before, after, kernel, fields, tgz = sys.argv[1:8]
json.dump({"start": start, "nvidia_smi_before": before, "nvidia_smi_after": after, "kernel": kernel,
           "nvidia_smi_fields": fields, "variants": tgz,
           "command": "bash bench/latency/run_device.sh " + tgz + " $OUT"}, open(out, "w"), indent=1)
PY
gzip -k "$OUT_DIR/latency-raw.json"; rm "$OUT_DIR/latency-raw.json"
