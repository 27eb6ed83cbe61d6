#!/usr/bin/env bash
# Writes the variant patch files run_variants.py consumes: COUNT legal variants (1-30 random legal moves
# and control edits, any instruction) and COUNT SIP-rule variants per sm_90 sample, CUDA and Triton.
# usage: bench/legality/make_variants.sh BUILD_DIR OUT_DIR [COUNT]
set -euo pipefail
BUILD=$1; OUT=$2; COUNT=${3:-500}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLI="$BUILD/app/cli/sassx-cli"
mkdir -p "$OUT"
for spec in "$BUILD"/samples/*.launch.json; do
  name=$(basename "$spec" .launch.json)
  cubin="$BUILD/samples/$name.sm_90.cubin"
  [ -f "$cubin" ] || continue
  case "$name" in big_*|huge_*) continue;; esac
  cp "$cubin" "$spec" "$OUT/"
  kernel=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['kernel'])" "$spec")
  "$CLI" variants "$cubin" --keep-stale-line-info --kernel "$kernel" --count "$COUNT" --seed 7 --rule sassx -o "$OUT/$name.sassx.jsonl"
  "$CLI" variants "$cubin" --keep-stale-line-info --kernel "$kernel" --count "$COUNT" --seed 7 --rule sip -o "$OUT/$name.sip.jsonl"
  # Control experiment: stall increases only (cannot shorten any distance); mismatches here mean the
  # kernel itself is timing-dependent, not that a move was unsound.
  "$CLI" variants "$cubin" --keep-stale-line-info --kernel "$kernel" --count 100 --seed 7 --rule stalls --max-edits 5 -o "$OUT/$name.stalls.jsonl"
done
