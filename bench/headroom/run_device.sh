#!/usr/bin/env bash
# The yield-space evidence on the GPU machine (docs/legality.md), from .deps/headroom (pack_device.sh):
#  1. correctness: every <sample>.yield.jsonl variant on 3 fresh input sets, bitwise against the original
#     (bench/legality/run_variants.py, faults and hangs caught in worker processes);
#  2. headroom: sassx-headroom screens every <sample>.yieldhr.jsonl variant and re-measures the best 5 and
#     the original (control) with 60 fresh confirmation rounds.
# Writes $OUT/yield-all.json (1), $OUT/headroom-all.json (2) and $OUT/env.{json,txt}.
# usage: STEPS="correct headroom" EACH=60 bench/headroom/run_device.sh
set -uo pipefail
D=$PWD/.deps/headroom
OUT=${OUT:-/tmp/headroom}; EACH=${EACH:-60}; STEPS=${STEPS:-correct headroom}
mkdir -p "$OUT"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
bench_env "$OUT/env" "STEPS=$STEPS EACH=$EACH"
samples=$(cd "$D/data" && ls *.yield.jsonl | sed 's/\.yield\.jsonl$//')
if [[ " $STEPS " == *" correct "* ]]; then
  jobs=""; for s in $samples; do jobs="$jobs $s:yield"; [ -f "$D/data/$s.moves.jsonl" ] && jobs="$jobs $s:moves"; done
  bash "$D/run_all.sh" "$D/data" "$OUT" "$jobs" "$EACH"
  for s in $samples; do
    for r in yield moves; do
      [ -f "$OUT/$s.$r.json" ] && mv "$OUT/$s.$r.json" "$OUT/yield-$s.$r.json"; rm -f "$OUT/$s.$r.log"
    done
  done
fi
if [[ " $STEPS " == *" headroom "* ]]; then
  for s in $samples; do
    echo "=== headroom $s"
    timeout 85 "$D/bin/sassx-headroom" "$D/data/$s.launch.json" "$D/data/$s.yieldhr.jsonl" --top 5 --screen 10 \
      --rounds 60 --json "$OUT/headroom-$s.json" 2>&1 | tail -8
  done
fi
# At most 8 files come back from the device: merge per-sample files into two.
for prefix in yield headroom; do bench_merge "$OUT" "$prefix-" "$OUT/$prefix-all.json" --indent 1 --skip-empty; done
ls -la "$OUT"; echo "total ${SECONDS}s"
