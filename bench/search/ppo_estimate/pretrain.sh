#!/usr/bin/env bash
# Cheap pretraining, the simplest form (docs/ppo.md, "Pretraining on the estimate"): one policy trained
# across every sample but HELD_OUT on the estimate backend by chaining --policy (each run starts from the
# policy.pt the previous one saved), then PPO on HELD_OUT from that policy (warm) and from a fresh one
# (cold), same seed and budget. CPU only; every figure is an ESTIMATE, not a measurement. The table goes
# to REPORTS/table.md.
# usage: [HELD_OUT=sgemm_leakyrelu] [PRE_EVALS=400] [EVALS=1000] [SPACE=all] [SEED=2]
#        [OUT=/tmp/ppo-pretrain] [REPORTS=bench/results/ppo-estimate-cpu-DATE/pretrain]
#        bench/search/ppo_estimate/pretrain.sh
set -euo pipefail
BUILD=${SASSX_BUILD_DIR:-build}
HELD_OUT=${HELD_OUT:-sgemm_leakyrelu}; PRE_EVALS=${PRE_EVALS:-400}; EVALS=${EVALS:-1000}
SPACE=${SPACE:-all}; SEED=${SEED:-2}; OUT=${OUT:-/tmp/ppo-pretrain}
REPORTS=${REPORTS:-bench/results/ppo-estimate-cpu-$(date -u +%F)/pretrain}
cli="$BUILD/app/cli/sassx-cli"
mkdir -p "$OUT" "$REPORTS"
run() { # NAME KERNEL EVALS ARGS...
  local name=$1 k=$2 n=$3; shift 3
  rm -rf "${OUT:?}/$name"
  nice -n 10 "$cli" search "$BUILD/samples/$k.launch.json" --algo ppo --space "$SPACE" --budget-evals "$n" \
    --backend estimate -o "$OUT/$name" "$@" > "$OUT/$name.log" 2>&1
  cp "$OUT/$name/report.json" "$REPORTS/$name.json"
}
policy=()
for f in "$BUILD"/samples/*.launch.json; do
  k=$(basename "$f" .launch.json)
  [ "$k" = "$HELD_OUT" ] && continue
  run "pre.$k" "$k" "$PRE_EVALS" --seed 1 "${policy[@]}"
  policy=(--policy "$OUT/pre.$k/policy.pt")
done
cp "${policy[1]}" "$OUT/pretrained.pt"
run "$HELD_OUT.cold" "$HELD_OUT" "$EVALS" --seed "$SEED"
run "$HELD_OUT.warm" "$HELD_OUT" "$EVALS" --seed "$SEED" --policy "$OUT/pretrained.pt"
source "$(dirname "$0")/../../lib/device.sh"
bench_env "$REPORTS/env" "HELD_OUT=$HELD_OUT PRE_EVALS=$PRE_EVALS EVALS=$EVALS SPACE=$SPACE SEED=$SEED" > /dev/null
python3 - "$REPORTS" <<'PY' | tee "$REPORTS/table.md"
import json, os, sys
d = sys.argv[1]
print("| run | best (estimate) | evaluation of the best | entropy first → last update (updates) |")
print("|---|---|---|---|")
for name in sorted(f for f in os.listdir(d) if f.endswith(".json")):
    r = json.load(open(os.path.join(d, name)))
    L = r["ppo"].get("learning", [])
    b = f"{r['best']['final']['speedup']:.4f}×" if r["improved"] else "none"
    ent = f"{L[0]['entropy']:.2f} → {L[-1]['entropy']:.2f} ({len(L)})" if L else "–"
    print(f"| {name.removesuffix('.json')} | {b} | {r['best']['step'] if r['improved'] else '–'} | {ent} |")
PY
