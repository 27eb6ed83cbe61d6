#!/usr/bin/env bash
# Device evidence for the widened yield/reuse space (docs/legality.md, "Yield bit"; bench/yield/widening/README.md).
#   bench/yield/widening/run_device.sh correctness    run_variants.py over .deps/control-variants (made by
#                                                    make_variants.sh here): every variant on 3 input sets,
#                                                    the samples spread over the GPUs (NGPU)
#   MODES="old new" KERNELS="attention_fwd" BUDGET=200 bench/yield/widening/run_device.sh search
#                                                    greedy over the yield space per kernel and mode, one
#                                                    search at a time on GPU 0, each best benched twice
#                                                    more in fresh processes (CONFIRM=1); old = the rule
#                                                    before the widening (SASSX_YIELD_RULE=ptxas-habits)
# Writes to $OUT (default /tmp/widening). Needs .deps/search (bench/search/pack_device.sh) for search.
set -uo pipefail
what=${1:?usage: run_device.sh correctness|search}
OUT=${OUT:-/tmp/widening}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
source "$HERE/../../lib/device.sh"
bench_env "$OUT/env-$what" "NGPU=${NGPU:-all} EACH=${EACH:-40} KERNELS=${KERNELS:-} MODES=${MODES:-old new} BUDGET=${BUDGET:-200}" > /dev/null
case "$what" in
  correctness)
    # One sample after another per GPU, the GPUs side by side (NGPU, default all).
    ngpu=${NGPU:-$(nvidia-smi -L | wc -l)}
    mkdir -p "$OUT/correctness"
    files=(.deps/control-variants/*.control.jsonl)
    for ((g = 0; g < ngpu; ++g)); do
      jobs=""
      for ((i = g; i < ${#files[@]}; i += ngpu)); do jobs="$jobs $(basename "${files[$i]}" .control.jsonl):control"; done
      [ -n "$jobs" ] && CUDA_VISIBLE_DEVICES=$g bash "$HERE/../../legality/run_all.sh" .deps/control-variants \
        "$OUT/correctness" "$jobs" "${EACH:-40}" &
    done
    wait
    ;;
  search)
    for k in ${KERNELS:?}; do
      for mode in ${MODES:-old new}; do
        if [ "$mode" = old ]; then export SASSX_YIELD_RULE=ptxas-habits; else unset SASSX_YIELD_RULE; fi
        OUT="$OUT/$mode" KERNELS="$k" ALGOS="greedy:yield" BUDGET="${BUDGET:-200}" CONFIRM=1 NGPU=1 \
          bash "$HERE/../../search/run_device.sh" > "$OUT/search-$k-$mode.log" 2>&1
        tail -3 "$OUT/search-$k-$mode.log"
      done
    done
    unset SASSX_YIELD_RULE
    ;;
  *) echo "run_device.sh: unknown step $what" >&2; exit 2 ;;
esac
