#!/usr/bin/env bash
# Writes the rescheduled-space evidence set (docs/legality.md) for run_variants.py and the derived-codes timing:
# per sm_90 sample, COUNT random variants of the rescheduled search space (`--rule rescheduled`: 1-10
# moves with control codes derived for each new order, and yield and reuse edits), 100 stall-raise
# control variants (`--rule stalls`), the one variant with ptxas' order and minimal derived control codes
# (`--rule derived`) and that variant as a cubin (<sample>.derived.cubin, for `sassx-cli bench`); with
# BASELINE_CLI set, also <sample>.newmoves.jsonl (make_new_moves.py).
# usage: bench/legality/make_rescheduled.sh BUILD_DIR OUT_DIR [COUNT] [SEED]
set -euo pipefail
BUILD=$1; OUT=$2; COUNT=${3:-500}; SEED=${4:-7}
CLI="$BUILD/app/cli/sassx-cli"
mkdir -p "$OUT"
for spec in "$BUILD"/samples/*.launch.json; do
  name=$(basename "$spec" .launch.json)
  cubin="$BUILD/samples/$name.sm_90.cubin"
  [ -f "$cubin" ] || continue
  case "$name" in big_*|huge_*) continue;; esac
  cp "$cubin" "$spec" "$OUT/"
  kernel=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['kernel'])" "$spec")
  common=(--keep-stale-line-info --kernel "$kernel")
  "$CLI" variants "$cubin" "${common[@]}" --count "$COUNT" --seed "$SEED" --rule rescheduled --max-edits 10 -o "$OUT/$name.rescheduled.jsonl"
  "$CLI" variants "$cubin" "${common[@]}" --count 100 --seed "$SEED" --rule stalls --max-edits 5 -o "$OUT/$name.stalls.jsonl"
  "$CLI" variants "$cubin" "${common[@]}" --rule derived -o "$OUT/$name.derived.jsonl"
  "$CLI" move "$cubin" "${common[@]}" --reschedule --minimal-stalls -o "$OUT/$name.derived.cubin"
  # With BASELINE_CLI (a sassx-cli built before a model change): one variant per move the change frees.
  if [ -n "${BASELINE_CLI:-}" ]; then
    python3 "$(dirname "$0")/make_new_moves.py" "$CLI" "$BASELINE_CLI" "$cubin" "$kernel" \
      "$OUT/$name.newmoves.jsonl" --all --max 200 --seed "$SEED"
  fi
done
