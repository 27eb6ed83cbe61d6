#!/usr/bin/env bash
# The PPO agent's own CPU time per evaluation (report.json time_split: outside_evaluator_s), two builds
# side by side on the same kernels: what a GPU run spends on the agent between measurements, measured on
# the estimate backend, whose evaluations cost ~1 ms (docs/ppo.md, "Evidence"; results:
# bench/results/ppo-agent-cpu-2026-11-27.md). One environment, as on one GPU; runs one at a time.
# Usage (repo root): OLD_CLI=... OLD_PLUGIN=... [NEW_CLI=build/app/cli/sassx-cli]
#   [NEW_PLUGIN=build/lib/libsassx_ppo.so] [KERNELS="flash_attn_fwd attention_fwd hgemm_leakyrelu"]
#   [EVALS=600] [SEEDS="1"] [DATA=.deps/gpusuite/data] OUT=/tmp/agent bash bench/search/ppo_agent/run.sh
set -euo pipefail
OUT=${OUT:-/tmp/ppo-agent}; EVALS=${EVALS:-600}; DATA=${DATA:-.deps/gpusuite/data}
NEW_CLI=${NEW_CLI:-build/app/cli/sassx-cli}; NEW_PLUGIN=${NEW_PLUGIN:-build/lib/libsassx_ppo.so}
export QT_QPA_PLATFORM=offscreen SASSX_RESOURCES=$PWD/resources
mkdir -p "$OUT"; echo '{"num_envs": 1}' > "$OUT"/one-env.json
source "$(dirname "$0")/../../lib/device.sh"
bench_env "$OUT"/env "KERNELS=${KERNELS:-default} EVALS=$EVALS SEEDS=${SEEDS:-1} OLD_CLI=${OLD_CLI:-} NEW_CLI=$NEW_CLI" > /dev/null
echo "| kernel | seed | build | evaluations | agent s (outside the evaluator) | agent ms per evaluation | best (estimate) |" > "$OUT"/table.md
echo "|---|---|---|---|---|---|---|" >> "$OUT"/table.md
for k in ${KERNELS:-flash_attn_fwd attention_fwd hgemm_leakyrelu}; do
  for seed in ${SEEDS:-1}; do
    for b in old new; do
      if [ $b = old ]; then cli=$OLD_CLI plugin=$OLD_PLUGIN; else cli=$NEW_CLI plugin=$NEW_PLUGIN; fi
      d="$OUT/$k.s$seed.$b"; rm -rf "$d"
      SASSX_PPO_PLUGIN=$(realpath "$plugin") "$cli" search "$DATA/$k.launch.json" --algo ppo --backend estimate \
        --space all+control --seed "$seed" --budget-evals "$EVALS" --ppo-config "$OUT"/one-env.json -o "$d" > "$d.log" 2>&1
      python3 - "$d/report.json" "$k" "$seed" "$b" >> "$OUT"/table.md <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r["time_split"]; n = r["evaluations"]
best = r["summary"].split(" (")[0].replace("best ", "")
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {n} | {t['outside_evaluator_s']:.1f} | {1000 * t['outside_evaluator_s'] / n:.1f} | {best} |")
PY
    done
  done
done
cat "$OUT"/table.md
