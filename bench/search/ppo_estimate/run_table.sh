#!/usr/bin/env bash
# PPO (the default `sassx` preset) against random search at EQUAL evaluation budgets on the estimate
# backend, every sm_90 sample in build/samples, one run at a time (CPU only; the figures are the static
# model's ESTIMATES, not measurements). Writes OUT/<kernel>.<algo>.s<seed>/ (run directories), copies each
# report.json to REPORTS/, and the table to TABLE (make_table.py).
# usage: [EVALS=1000] [SPACE=all] [SEEDS="1"] [KERNELS="..."] [OUT=/tmp/ppo-est-table]
#        [REPORTS=bench/results/ppo-estimate-cpu-DATE] [TABLE=REPORTS/table.md]
#        [PPO_CONFIG=settings.json (--ppo-config; default: the preset)] [ALGOS="random ppo"]
#        bench/search/ppo_estimate/run_table.sh
set -euo pipefail
BUILD=${SASSX_BUILD_DIR:-build}
EVALS=${EVALS:-1000}; SPACE=${SPACE:-all}; SEEDS=${SEEDS:-1}; OUT=${OUT:-/tmp/ppo-est-table}
ALGOS=${ALGOS:-random ppo}; PPO_CONFIG=${PPO_CONFIG:-}
DATE=$(date -u +%F)
REPORTS=${REPORTS:-bench/results/ppo-estimate-cpu-$DATE}; TABLE=${TABLE:-$REPORTS/table.md}
if [ -z "${KERNELS:-}" ]; then
  KERNELS=$(for f in "$BUILD"/samples/*.launch.json; do basename "$f" .launch.json; done | tr '\n' ' ')
fi
cli="$BUILD/app/cli/sassx-cli"
mkdir -p "$OUT" "$REPORTS"
for seed in $SEEDS; do
  for k in $KERNELS; do
    for algo in $ALGOS; do
      name="$k.$algo.s$seed"
      rm -rf "${OUT:?}/$name"
      extra=()
      if [ "$algo" = ppo ] && [ -n "$PPO_CONFIG" ]; then extra=(--ppo-config "$PPO_CONFIG"); fi
      # nice: the machine is shared; sequential: equal budgets, comparable evaluations/s.
      if nice -n 10 "$cli" search "$BUILD/samples/$k.launch.json" --algo "$algo" --space "$SPACE" \
          --budget-evals "$EVALS" --backend estimate --seed "$seed" "${extra[@]}" -o "$OUT/$name" > "$OUT/$name.log" 2>&1; then
        cp "$OUT/$name/report.json" "$REPORTS/$name.json"
      else
        echo "$name failed: $(tail -1 "$OUT/$name.log")" >&2
      fi
    done
  done
done
source "$(dirname "$0")/../../lib/device.sh"
bench_env "$REPORTS/env" "EVALS=$EVALS SPACE=$SPACE SEEDS=\"$SEEDS\" KERNELS=\"$KERNELS\" PPO_CONFIG=\"$PPO_CONFIG\"" \
  "$([ -n "$PPO_CONFIG" ] && echo "ppo config: $(tr -d '\n' < "$PPO_CONFIG")")" > /dev/null
python3 "$(dirname "$0")/make_table.py" "$REPORTS" > "$TABLE"
cat "$TABLE"
