#!/usr/bin/env bash
# The default `sassx-cli search` (no --algo, no --space: climb over the space `auto` resolves to) on each
# kernel of KERNELS, before and after the reuse-under-yield widening, one search per GPU, all at once:
#   before = SASSX_YIELD_RULE=reuse-printed (words whose reuse marks nvdisasm leaves out under Y0 refused)
#   after  = the default rule (allowed where bench/results/yield-reuse-* measured the class and mask)
# Each improved best is benched twice more in fresh `sassx-cli bench` processes (100 interleaved rounds).
# Jobs beyond the GPU count queue behind the others on their GPU.
# Runs from the repository root on the GPU machine with .deps/search (bench/search/pack_device.sh) there;
# writes OUT/<kernel>.<mode>/ (report.json, history.csv, best.cubin, bench1.json, bench2.json, log),
# OUT/env.{json,txt} and, at the end, OUT/done. Meant to run detached (setsid) when BUDGET outlasts a device call:
#   setsid nohup env OUT=/tmp/ds BUDGET=600 KERNELS="attention_fwd flash_attn_fwd" \
#     bash bench/yield/widening/default_search.sh > /tmp/ds.log 2>&1 < /dev/null &
set -uo pipefail
D=${PACK:-$PWD/.deps/search}
OUT=${OUT:-/tmp/default-search}; BUDGET=${BUDGET:-600}
KERNELS=${KERNELS:-"attention_fwd flash_attn_fwd"}; MODES=${MODES:-"before after"}
NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
mkdir -p "$OUT"
source "$(dirname "$0")/../../lib/device.sh"
bench_pack "$D"
bench_env "$OUT/env" "default search, ${BUDGET}s each; kernels: $KERNELS; modes: $MODES" > /dev/null
jobs=()
for k in $KERNELS; do for m in $MODES; do jobs+=("$k $m"); done; done
run_job() { # GPU KERNEL MODE
  local g=$1 k=$2 m=$3 i rule=""
  local dir="$OUT/$k.$m"
  mkdir -p "$dir"
  [ "$m" = before ] && rule=reuse-printed
  SASSX_YIELD_RULE=$rule timeout $((BUDGET + 180)) "$D/bin/sassx-cli" search "$D/data/$k.launch.json" \
    --budget-time "${BUDGET}s" --backend gpu --gpus "$g" -o "$dir" > "$dir/log" 2>&1
  echo "gpu$g $k $m rc=$?" >> "$OUT/log.txt"
  if bench_improved "$dir/report.json"; then
    for i in 1 2; do
      timeout 150 "$D/bin/sassx-cli" bench "$D/data/$k.launch.json" --cubin "$dir/best.cubin" --backend gpu \
        --gpus "$g" --rounds 100 --json > "$dir/bench$i.json" 2>> "$dir/log"
    done
  fi
}
for ((g = 0; g < NGPU; ++g)); do
  (
    for ((i = g; i < ${#jobs[@]}; i += NGPU)); do run_job "$g" ${jobs[$i]}; done
  ) &
done
wait
date -u +%FT%TZ > "$OUT/done"
