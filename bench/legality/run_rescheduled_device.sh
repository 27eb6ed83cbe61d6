#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .deps/resched carried (pack_rescheduled.sh):
#   PART=variants SAMPLES="a b" [RULES="rescheduled newmoves"] bench/legality/run_rescheduled_device.sh
#       rescheduled variants (and the sets make_new_moves.py wrote), 3 input sets
#   PART=controls bench/legality/run_rescheduled_device.sh                 stall-raise controls, the derived
#       variant's correctness, and its timing against ptxas' codes (`sassx-cli bench`, 50 interleaved rounds,
#       twice on fresh instances)
# Writes into $OUT.
set -uo pipefail
D=$PWD/.deps/resched
OUT=${OUT:-/tmp/resched}; EACH=${EACH:-90}
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
SAMPLES=${SAMPLES:-$(cd "$D/data" && ls *.launch.json | sed 's/\.launch\.json$//')}
mkdir -p "$OUT"
bench_env "$OUT/env-${PART:-variants}" "PART=${PART:-variants} SAMPLES=$SAMPLES RULES=${RULES:-rescheduled} EACH=$EACH"
if [ "${PART:-variants}" = variants ]; then
  jobs=""; for s in $SAMPLES; do for r in ${RULES:-rescheduled}; do jobs="$jobs $s:$r"; done; done
  bench/legality/run_all.sh "$D/data" "$OUT" "$jobs" "$EACH"
else
  jobs=""; for s in $SAMPLES; do jobs="$jobs $s:stalls $s:derived"; done
  bench/legality/run_all.sh "$D/data" "$OUT" "$jobs" 25
  for s in $SAMPLES; do
    for run in 1 2; do
      timeout 120 "$D/bin/sassx-cli" bench "$D/data/$s.launch.json" --cubin "$D/data/$s.derived.cubin" \
        --backend gpu --rounds 50 --json > "$OUT/$s.derived-bench-$run.json" 2> "$OUT/$s.derived-bench-$run.log"
      echo "$s run $run rc=$? $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j.get('speedup'))" "$OUT/$s.derived-bench-$run.json" 2>&1 | tail -1)"
    done
  done
fi
