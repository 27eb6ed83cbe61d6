#!/usr/bin/env bash
# The evaluator's device run (one call): GPU tests, injected faults, throughput and noise per
# spec, and the ncu cross-check. Expects .deps/evaldev from pack_device.sh (carried) and writes
# results under $OUT. Each step has its own time limit so one stuck step cannot eat the others.
set -uo pipefail
D=$PWD/.deps/evaldev
OUT=${OUT:-/tmp/evalout}
mkdir -p "$OUT"
export SASSX_WORKER=$D/bin/sassx-worker SASSX_EVAL_KERNELS_DIR=$D/kernels SASSX_RESOURCES=$PWD/resources
export PATH=$PATH:/usr/local/cuda/bin
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; which ncu; ncu --version | tail -1; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
step() { local name=$1 limit=$2; shift 2; echo "=== $name"; local t0=$SECONDS; timeout "$limit" "$@"; echo "=== $name rc=$? $((SECONDS - t0))s"; }
step gpu_tests 150 "$D"/bin/test_eval_gpu -o "$OUT/gpu_tests.txt,txt" -o -,txt
tail -3 "$OUT/gpu_tests.txt"
step pool_tests 60 "$D"/bin/test_eval_pool -o -,txt 2>&1 | tail -3
step faults 200 "$D"/bin/sassx-eval-bench faults "$D"/eval_add_small.launch.json --broken "$D"/broken --n 100 --timeout-ms 3000 --json "$OUT/eval-faults.json" | tail -25
for spec in "$D"/specs/*.launch.json; do
  n=$(basename "$spec" .launch.json)
  step "throughput $n" 120 "$D"/bin/sassx-eval-bench throughput "$spec" --n 60 --json "$OUT/tp-$n.json" > /dev/null
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); b=j["baseline"]; print(j["spec"], "baseline_us", round(b.get("baseline_median_us",0),2), "noise", b.get("noise_floor"), "screen/s", round(j["screen_only"]["evaluations_per_s"],1), "adaptive/s", round(j["adaptive"]["evaluations_per_s"],1), "false_faster", j["adaptive"]["false_faster"])' "$OUT/tp-$n.json" 2>&1
done
step ncu_crosscheck 240 python3 bench/eval/ncu_crosscheck.py "$D"/bin/sassx-eval-bench "$OUT/eval-ncu-crosscheck" "$D"/specs/*.launch.json > "$OUT/ncu.log" 2>&1
tail -5 "$OUT/ncu.log"
if [ -x "$D"/bin/sassx-cli ]; then step cli_bench 60 "$D"/bin/sassx-cli bench "$D"/specs/eval_fma.launch.json --metrics; fi
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
merged = {os.path.basename(p)[3:-5]: json.load(open(p)) for p in sorted(glob.glob(out + "/tp-*.json"))}
json.dump(merged, open(out + "/eval-throughput.json", "w"), indent=2)
for p in glob.glob(out + "/tp-*.json"): os.remove(p)
PY
ls -la "$OUT"
