#!/usr/bin/env bash
# The search evidence on the GPU machine (docs/search.md), from .deps/search (pack_device.sh): for each sample
# in KERNELS, every algorithm × space with `sassx-cli search --budget-time BUDGET` (the GPU backend: screen,
# fresh confirmation, final re-measure of the best, re-verification on inputs of another seed), and SIP's
# method (sassx-sip-anneal: unchecked swaps, its annealing schedule) at the same budget beside them.
# With CONFIRM=1 each improved best is benched twice more on fresh instances.
# Jobs are spread over the GPUs, one search per GPU at a time (a search's timing owns its GPU).
# Writes $OUT/search-all.json (every report + history summary), $OUT/env.{json,txt} and $OUT/log.txt.
# usage: KERNELS="rmsnorm sgemm_leakyrelu" BUDGET=30 [EVALS=200] [SEED=S] bench/search/run_device.sh
set -uo pipefail
D=${PACK:-$PWD/.deps/search} # PACK: another pack (.deps/ppo: pack_ppo_device.sh)
OUT=${OUT:-/tmp/search}; BUDGET=${BUDGET:-30}
KERNELS=${KERNELS:-$(cd "$D/data" && ls *.launch.json | sed 's/\.launch\.json$//')}
ALGOS=${ALGOS:-"anneal:mem anneal:all anneal:yield anneal:all+control sip-preset:mem greedy:mem greedy:all greedy:yield greedy:all+control random:mem random:all random:yield random:all+control listsched:mem listsched:all sip-method:mem"}
NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
mkdir -p "$OUT/runs"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
bench_env "$OUT/env" "budget ${BUDGET}s per search; kernels: $KERNELS; algorithms: $ALGOS"
jobs=()
for a in $ALGOS; do for k in $KERNELS; do jobs+=("$k $a"); done; done
run_job() { # GPU KERNEL ALGO:SPACE
  local g=$1 k=$2 algo=${3%%:*} space=${3#*:} name=${3//+/_} i
  local dir="$OUT/runs/$2.${name//:/.}"
  mkdir -p "$dir"
  case "$algo" in
    sip-method)
      timeout $((BUDGET + 120)) "$D/bin/sassx-sip-anneal" "$D/data/$k.launch.json" --budget-time "$BUDGET" \
        --gpus "$g" --json "$dir/sip.json" > "$dir/log" 2>&1 ;;
    sip-preset)
      timeout $((BUDGET + 120)) "$D/bin/sassx-cli" search "$D/data/$k.launch.json" --algo anneal --preset sip \
        --space "$space" --budget-time "${BUDGET}s" --backend gpu --gpus "$g" -o "$dir" > "$dir/log" 2>&1 ;;
    *)
      # EVALS (optional) also caps the number of evaluations: whichever budget ends first ends the search.
      timeout $((BUDGET + 120)) "$D/bin/sassx-cli" search "$D/data/$k.launch.json" --algo "$algo" \
        --space "$space" --budget-time "${BUDGET}s" ${EVALS:+--budget-evals "$EVALS"} ${SEED:+--seed "$SEED"} \
        --backend gpu --gpus "$g" \
        -o "$dir" > "$dir/log" 2>&1 ;;
  esac
  echo "gpu$g $k $3 rc=$? $(head -c 300 "$dir/log" | tr '\n' ' ')" >> "$OUT/log.txt"
  # Confirmation on fresh instances (CONFIRM=1): a tuned cubin is benched twice more, each time in a new
  # sassx-cli process with new workers and module instances, 100 interleaved rounds each.
  if [ "${CONFIRM:-0}" = 1 ] && bench_improved "$dir/report.json"; then
    for i in 1 2; do
      timeout 120 "$D/bin/sassx-cli" bench "$D/data/$k.launch.json" --cubin "$dir/best.cubin" --backend gpu \
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
python3 "$(dirname "$0")/summarize.py" "$OUT"
ls -la "$OUT"; echo "total ${SECONDS}s"
