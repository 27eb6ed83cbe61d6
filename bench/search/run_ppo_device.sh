#!/usr/bin/env bash
# The PPO evidence on the GPU machine (docs/ppo.md), from .deps/ppo (pack_ppo_device.sh): builds the plug-in
# against the machine's libtorch, runs PPO beside anneal and random in one space with the same budget on
# each kernel (run_device.sh, one search per GPU at a time), then the warm start: PPO on WARM_TO started
# from the policy PPO learnt on WARM_FROM, beside PPO's cold start on WARM_TO from the grid.
# Writes $OUT/search-all.json, $OUT/env.txt, $OUT/log.txt and $OUT/policies.tar.
# usage: KERNELS="attention_fwd flash_attn_fwd" SPACE=all+control BUDGET=35 CONFIRM=1 \
#          WARM="attention_fwd:flash_attn_fwd" bench/search/run_ppo_device.sh
set -uo pipefail
OUT=${OUT:-/tmp/ppo}; BUDGET=${BUDGET:-35}; SPACE=${SPACE:-all+control}
export PACK=$PWD/.deps/ppo OUT BUDGET
source "$(dirname "$0")/../lib/device.sh"
bench_unpack "$PACK"
plugin=$(bench/search/build_ppo_plugin.sh /tmp/sassx-ppo) || { echo "plug-in build failed"; exit 1; }
export SASSX_PPO_PLUGIN=$plugin
[ "${GRID:-1}" = 0 ] || ALGOS=${ALGOS:-"ppo:$SPACE anneal:$SPACE random:$SPACE"} bench/search/run_device.sh
# Warm starts: WARM="FROM:TO ..." (or WARM_FROM / WARM_TO); FROM's policy is this call's, else an earlier
# call's policies.tar unpacked into $POLICIES (default .deps/ppo-policies). GRID=0 runs the warm starts only.
WARM=${WARM:-${WARM_FROM:+$WARM_FROM:$WARM_TO}}
bench_pack "$PACK"
for pair in $WARM; do
  from_k=${pair%%:*} to_k=${pair#*:}
  from="$OUT/runs/$from_k.ppo.${SPACE//+/_}"
  [ -f "$from/policy.pt" ] || from="${POLICIES:-.deps/ppo-policies}/$from_k.ppo.${SPACE//+/_}"
  dir="$OUT/runs/$to_k.ppo-warm-from-$from_k.${SPACE//+/_}"
  mkdir -p "$dir"
  timeout $((BUDGET + 120)) "$PACK/bin/sassx-cli" search "$PACK/data/$to_k.launch.json" --algo ppo \
    --space "$SPACE" --budget-time "${BUDGET}s" --backend gpu --gpus 0 --policy "$from/policy.pt" -o "$dir" \
    > "$dir/log" 2>&1
  echo "warm $from_k -> $to_k rc=$? $(head -c 300 "$dir/log" | tr '\n' ' ')" >> "$OUT/log.txt"
  # As run_device.sh does with CONFIRM=1: an improved best is benched twice more on fresh instances.
  if [ "${CONFIRM:-0}" = 1 ] && bench_improved "$dir/report.json"; then
    for i in 1 2; do
      timeout 120 "$PACK/bin/sassx-cli" bench "$PACK/data/$to_k.launch.json" --cubin "$dir/best.cubin" \
        --backend gpu --gpus 0 --rounds 100 --json > "$dir/bench$i.json" 2>> "$dir/log"
    done
  fi
done
[ -n "$WARM" ] && python3 bench/search/summarize.py "$OUT"
(cd "$OUT/runs" && tar cf "$OUT/policies.tar" */policy.pt 2>/dev/null)
ls -la "$OUT"
