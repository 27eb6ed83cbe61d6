#!/usr/bin/env bash
# Stall-guided proposals against uniform ones at the same budget (docs/stalls.md), on the GPU machine, from
# .deps/search (pack_device.sh): for each kernel in KERNELS, `sassx-cli stalls` samples the original
# once; then `sassx-cli search --algo anneal --space SPACE --budget-time BUDGET --backend gpu` runs with
# --guide uniform and with --guide stalls (those samples) for each seed in SEEDS. Every report carries
# the best's fresh speed-up with its interval and the noise floor. Writes $OUT/guide-experiment.json.
# usage: KERNELS="attention_fwd gemm_leakyrelu" SEEDS="1 2" BUDGET=30 SPACE=rescheduled \
#        bench/search/stall_guide_experiment.sh
set -uo pipefail
D=$PWD/.deps/search
OUT=${OUT:-/tmp/guide}; BUDGET=${BUDGET:-30}; SPACE=${SPACE:-rescheduled}
KERNELS=${KERNELS:-"attention_fwd gemm_leakyrelu"}; SEEDS=${SEEDS:-"1 2"}
mkdir -p "$OUT/runs"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
bench_env "$OUT/env" "anneal in $SPACE, ${BUDGET}s per search; kernels: $KERNELS; seeds: $SEEDS"
for k in $KERNELS; do
  timeout 120 "$D/bin/sassx-cli" stalls "$D/data/$k.launch.json" --json > "$OUT/runs/$k.stalls.json" 2> "$OUT/runs/$k.stalls.err"
  echo "stalls $k rc=$?"
  for s in $SEEDS; do
    for g in uniform stalls; do
      dir="$OUT/runs/$k.$g.seed$s"; mkdir -p "$dir"
      extra=(); [ "$g" = stalls ] && extra=(--guide stalls --stalls "$OUT/runs/$k.stalls.json")
      timeout $((BUDGET + 150)) "$D/bin/sassx-cli" search "$D/data/$k.launch.json" --algo anneal --space "$SPACE" \
        --budget-time "${BUDGET}s" --backend gpu --seed "$s" "${extra[@]}" -o "$dir" > "$dir/log" 2>&1
      echo "search $k $g seed $s rc=$? $(head -1 "$dir/log")"
    done
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
rows = []
for rep in sorted(glob.glob(out + "/runs/*/report.json")):
    j = json.load(open(rep))
    name = os.path.basename(os.path.dirname(rep))
    k, guide, seed = name.split(".")
    b = j.get("best", {})
    rows.append({"kernel": k, "guide": guide, "seed": seed, "summary": j.get("summary"),
                 "improved": j.get("improved"), "evaluations": j.get("evaluations"),
                 "best": b, "noise_floor": j.get("baseline", {}).get("noise_floor"), "guide_info": j.get("guide")})
json.dump(rows, open(out + "/guide-experiment.json", "w"), indent=1)
for r in rows:
    print(r["kernel"], r["guide"], r["seed"], r["evaluations"], r["summary"])
PY
ls -la "$OUT"; echo "total ${SECONDS}s"
