#!/usr/bin/env bash
# The search comparison of docs/search.md on the GPU machine, from a pack made by
# bench/search/pack_device.sh (carried as .deps/search.tar.xz): each kernel of KERNELS gets its own GPU,
# and on it every algorithm of ALGOS searches SPACE for BUDGET seconds, one after another (equal time,
# same GPU); each improved best is then benched twice more, each time in a new sassx-cli process with
# new workers and module instances (100 interleaved rounds against the original).
# Writes climb-results/{runs/KERNEL.SPACE.ALGO/{report.json,history.csv,log,bench1.json,bench2.json},env.{json,txt}}
# and packs it (only a few files come back from the device): $OUT/climb-results.tar.xz, the compact copy
# for bench/results (histories as bests.csv and outcomes.csv), and $OUT/climb-results-raw.tar.xz, all of it.
# usage: KERNELS="attention_fwd gemm_leakyrelu" SPACE=yield BUDGET=100 [ALGOS="climb anneal random greedy"]
#        [SEED=1] OUT=$OUT/x bench/search/climb/run_device.sh
set -uo pipefail
D=${PACK:-$PWD/.deps/search}
OUT=${OUT:-/tmp/climb}; BUDGET=${BUDGET:-100}; SPACE=${SPACE:-yield}; SEED=${SEED:-1}
ALGOS=${ALGOS:-"climb anneal random greedy"}
KERNELS=${KERNELS:-"attention_fwd flash_attn_fwd gemm_leakyrelu hgemm_leakyrelu"}
NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
mkdir -p "$OUT/runs"
source "$(dirname "$0")"/../../lib/device.sh
bench_pack "$D"
bench_env "$OUT/env" "space $SPACE, ${BUDGET}s per search, seed $SEED; algorithms: $ALGOS; kernels: $KERNELS"
run_kernel() { # GPU KERNEL
  local g=$1 k=$2 a dir i
  for a in $ALGOS; do
    dir="$OUT/runs/$k.${SPACE//+/_}.$a"
    mkdir -p "$dir"
    timeout $((BUDGET + 180)) "$D/bin/sassx-cli" search "$D/data/$k.launch.json" --algo "$a" --space "$SPACE" \
      --budget-time "${BUDGET}s" --seed "$SEED" --backend gpu --gpus "$g" -o "$dir/out" > "$dir/log" 2>&1
    echo "gpu$g $k $a rc=$?" >> "$OUT/log.txt"
    cp "$dir/out/report.json" "$dir/out/history.csv" "$dir/" 2>/dev/null
    if bench_improved "$dir/report.json"; then
      for i in 1 2; do
        timeout 180 "$D/bin/sassx-cli" bench "$D/data/$k.launch.json" --cubin "$dir/out/best.cubin" --backend gpu \
          --gpus "$g" --rounds 100 --json > "$dir/bench$i.json" 2>> "$dir/log"
      done
    fi
    rm -rf "$dir/out"
  done
}
i=0
for k in $KERNELS; do
  run_kernel $((i % NGPU)) "$k" &
  i=$((i + 1))
  [ $((i % NGPU)) -eq 0 ] && wait
done
wait
source "$(dirname "$0")"/../../pack_lib.sh
mkdir -p "$OUT/climb-results" && mv "$OUT/env.txt" "$OUT/env.json" "$OUT/log.txt" "$OUT/runs" "$OUT/climb-results/"
pack_results "$OUT/climb-results" "$OUT" climb-results && rm -rf "$OUT/climb-results"
ls -la "$OUT"; echo "total ${SECONDS}s"
