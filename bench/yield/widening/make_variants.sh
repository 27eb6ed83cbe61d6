#!/usr/bin/env bash
# Writes the correctness data of the widened control space: per sm_90 sample, its cubin, launch spec and
# COUNT random legal variants of `sassx-cli variants --rule control` (yield flips and reuse edits of
# ptxas' order, 1-30 per variant), for bench/yield/widening/run_device.sh correctness.
# usage: bench/yield/widening/make_variants.sh BUILD_DIR OUT_DIR [COUNT]
set -euo pipefail
BUILD=$1; OUT=$2; COUNT=${3:-500}
CLI="$BUILD/app/cli/sassx-cli"
mkdir -p "$OUT"
for spec in "$BUILD"/samples/*.launch.json; do
  name=$(basename "$spec" .launch.json)
  case "$name" in big_*|huge_*) continue;; esac
  cubin="$BUILD/samples/$name.sm_90.cubin"
  [ -f "$cubin" ] || continue
  cp "$cubin" "$spec" "$OUT/"
  kernel=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['kernel'])" "$spec")
  "$CLI" variants "$cubin" --keep-stale-line-info --kernel "$kernel" --count "$COUNT" --seed 7 --rule control \
    --max-edits 30 -o "$OUT/$name.control.jsonl"
done
