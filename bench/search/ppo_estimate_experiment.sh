#!/usr/bin/env bash
# PPO beside anneal and random on the estimate backend (CPU only; figures are the static model's, not
# measurements): the same space and evaluation budget per kernel, then the warm start (PPO on WARM_TO
# from the policy learnt on WARM_FROM) beside PPO's cold start on WARM_TO. Writes OUT/runs/* and
# OUT/summary.md (ppo_summary.py).
# usage: [KERNELS="sgemm_leakyrelu rmsnorm attention_fwd"] [EVALS=600] [SPACE=all] [SEEDS="1 2"]
#        [WARM_FROM=sgemm_leakyrelu WARM_TO=hgemm_leakyrelu] OUT=/tmp/ppo-est bench/search/ppo_estimate_experiment.sh
set -euo pipefail
BUILD=${SASSX_BUILD_DIR:-build}
OUT=${OUT:-/tmp/ppo-est}; EVALS=${EVALS:-600}; SPACE=${SPACE:-all}; SEEDS=${SEEDS:-"1 2"}
KERNELS=${KERNELS:-"sgemm_leakyrelu rmsnorm attention_fwd"}
WARM_FROM=${WARM_FROM:-sgemm_leakyrelu}; WARM_TO=${WARM_TO:-hgemm_leakyrelu}
cli="$BUILD/app/cli/sassx-cli"
mkdir -p "$OUT/runs"
search() { # NAME SPEC ARGS...
  local name=$1 spec=$2; shift 2
  rm -rf "$OUT/runs/$name"
  "$cli" search "$BUILD/samples/$spec.launch.json" --space "$SPACE" --budget-evals "$EVALS" --backend estimate \
    -o "$OUT/runs/$name" "$@" > "$OUT/runs/$name.log" 2>&1 || echo "$name failed: $(tail -1 "$OUT/runs/$name.log")"
}
for seed in $SEEDS; do
  for k in $KERNELS $WARM_TO; do
    for a in ppo anneal random; do search "$k.$a.s$seed" "$k" --algo "$a" --seed "$seed"; done
  done
  search "$WARM_TO.ppo-warm.s$seed" "$WARM_TO" --algo ppo --seed "$seed" \
    --policy "$OUT/runs/$WARM_FROM.ppo.s$seed/policy.pt"
done
source "$(dirname "$0")/../lib/device.sh"
bench_env "$OUT/env" "KERNELS=\"$KERNELS\" EVALS=$EVALS SPACE=$SPACE SEEDS=\"$SEEDS\" WARM_FROM=$WARM_FROM WARM_TO=$WARM_TO" > /dev/null
python3 "$(dirname "$0")/ppo_summary.py" "$OUT" > "$OUT/summary.md"
cat "$OUT/summary.md"
