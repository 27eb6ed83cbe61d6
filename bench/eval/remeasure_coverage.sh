#!/usr/bin/env bash
# Does a final figure's 95% interval cover a re-run in a fresh process? On each GPU of GPUS one kernel of
# KERNELS at a time: a variant (DeepGEMM's FFMA interleave, `move --pattern ffma-interleave`, a real
# change that needs no search; where the kernel has no FFMA to interleave, the best schedule a climb over
# moves finds on the estimate in 300 evaluations; VARIANT=search: a GPU climb of BUDGET s and its best,
# which may be the original), then N pairs of fresh-process benches of it
# (100 rounds each), alternating MODES (default "1 5"): --processes 1 (every round in one worker
# process: the old final figure) and --processes 5 (the rounds spread over 5 fresh worker processes,
# the interval a re-run falls in: the new one). MODE_FLAG=--instances measures in-process instance
# pairs instead (the first attempt, which did not cover: run2 of 2026-11-26). remeasure_coverage.py
# tabulates.
# Needs the GPU suite's pack (.deps/gpusuite, bench/gpu_suite/pack.sh). Writes $OUT/coverage/KERNEL/.
# Usage: KERNELS="attention_fwd hgemm_leakyrelu" GPUS="0 1" N=20 BUDGET=90 OUT=$OUT bash bench/eval/remeasure_coverage.sh
set -uo pipefail
source "$(dirname "$0")/../lib/device.sh"
D=$PWD/.deps/gpusuite
bench_pack "$D"
R=${OUT:-/tmp/out}/coverage; N=${N:-20}; BUDGET=${BUDGET:-90}; VARIANT=${VARIANT:-ffma}
MODES=${MODES:-"1 5"}; MODE_FLAG=${MODE_FLAG:---processes}
LIMIT=${LIMIT:-100000} # seconds: no bench starts after this, so the archive is still written
read -r -a kernels <<< "${KERNELS:-attention_fwd}"; read -r -a gpus <<< "${GPUS:-0}"
mkdir -p "$R"
bench_env "$R"/env "N=$N BUDGET=$BUDGET VARIANT=$VARIANT kernels=${kernels[*]} gpus=${gpus[*]} modes=$MODE_FLAG $MODES" > /dev/null
one() { # GPU KERNEL
  local g=$1 k=$2 dir=$R/$2 i m cubin kname
  mkdir -p "$dir"
  cubin=$dir/variant.cubin
  kname=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"])' "$D/data/$k.launch.json")
  if [ "$VARIANT" = search ]; then
    timeout $((BUDGET + 240)) "$D"/bin/sassx-cli search "$D/data/$k.launch.json" --backend gpu --gpus "$g" \
      --budget-time "${BUDGET}s" --seed 3 -o "$dir/search" >> "$dir/variant.log" 2>&1
    cp "$dir/search/report.json" "$dir/" 2>/dev/null
    cp "$dir/search/best.cubin" "$cubin"
  else
    "$D"/bin/sassx-cli move "$D/data/$k.sm_90.cubin" --kernel "$kname" --pattern ffma-interleave -o "$cubin" \
      > "$dir/variant.log" 2>&1
    if [ ! -s "$cubin" ]; then
      "$D"/bin/sassx-cli search "$D/data/$k.launch.json" --backend estimate --space all --budget-evals 300 \
        --seed 3 -o "$dir/search" >> "$dir/variant.log" 2>&1
      cp "$dir/search/best.cubin" "$cubin"
    fi
  fi
  for ((i = 1; i <= N && SECONDS < LIMIT; ++i)); do
    for m in $MODES; do
      timeout 240 "$D"/bin/sassx-cli bench "$D/data/$k.launch.json" --cubin "$cubin" \
        --backend gpu --gpus "$g" --rounds 100 "$MODE_FLAG" $m --json > "$dir/bench-i$m-$i.json" 2>> "$dir/bench.err"
    done
  done
  rm -rf "$dir/search" "$cubin"
}
# One kernel per GPU at a time; kernels beyond the GPUs queue behind them.
for ((start = 0; start < ${#kernels[@]}; start += ${#gpus[@]})); do
  for ((j = 0; j < ${#gpus[@]} && start + j < ${#kernels[@]}; ++j)); do one "${gpus[$j]}" "${kernels[$((start + j))]}" & done
  wait
done
tar cJf "${OUT:-/tmp/out}"/coverage.tar.xz -C "$R/.." coverage && rm -rf "$R"
tmp=$(mktemp -d) && tar xJf "${OUT:-/tmp/out}"/coverage.tar.xz -C "$tmp" &&
  python3 "$(dirname "$0")"/remeasure_coverage.py "$tmp/coverage" | tail -20
