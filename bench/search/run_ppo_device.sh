#!/usr/bin/env bash
# The PPO evidence on the GPU machine (issue 14), from .deps/ppo (pack_ppo_device.sh): builds the plug-in
# against the machine's libtorch, runs PPO beside anneal and random in one space with the same budget on
# each kernel (run_device.sh, one search per GPU at a time), then the warm start: PPO on WARM_TO started
# from the policy PPO learnt on WARM_FROM, beside PPO's cold start on WARM_TO from the grid.
# Writes $OUT/search-all.json, $OUT/env.txt, $OUT/log.txt and $OUT/policies.tar.
# usage: KERNELS="attention_fwd flash_attn_fwd" SPACE=all+control BUDGET=35 WARM_FROM=attention_fwd \
#          WARM_TO=flash_attn_fwd bench/search/run_ppo_device.sh
set -uo pipefail
OUT=${OUT:-/tmp/ppo}; BUDGET=${BUDGET:-35}; SPACE=${SPACE:-all+control}
export PACK=$PWD/.deps/ppo OUT BUDGET
[ -d "$PACK" ] || tar xzf .deps/ppo.tar.gz -C .deps
plugin=$(bench/search/build_ppo_plugin.sh /tmp/sassx-ppo) || { echo "plug-in build failed"; exit 1; }
export SASSX_PPO_PLUGIN=$plugin
ALGOS="ppo:$SPACE anneal:$SPACE random:$SPACE" bench/search/run_device.sh
if [ -n "${WARM_FROM:-}" ] && [ -n "${WARM_TO:-}" ]; then
  from="$OUT/runs/$WARM_FROM.ppo.${SPACE//+/_}"
  dir="$OUT/runs/$WARM_TO.ppo-warm-from-$WARM_FROM.${SPACE//+/_}"
  mkdir -p "$dir"
  export SASSX_WORKER=$PACK/bin/sassx-worker SASSX_RESOURCES=$PWD/resources SASSX_NVDISASM=$PACK/bin/nvdisasm
  timeout $((BUDGET + 120)) "$PACK/bin/sassx-cli" search "$PACK/data/$WARM_TO.launch.json" --algo ppo \
    --space "$SPACE" --budget-time "${BUDGET}s" --backend gpu --gpus 0 --policy "$from/policy.pt" -o "$dir" \
    > "$dir/log" 2>&1
  echo "warm $WARM_FROM -> $WARM_TO rc=$?" >> "$OUT/log.txt"
  python3 bench/search/summarize.py "$OUT"
fi
(cd "$OUT/runs" && tar cf "$OUT/policies.tar" */policy.pt 2>/dev/null)
ls -la "$OUT"
