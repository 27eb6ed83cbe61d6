#!/usr/bin/env bash
# The evaluator's device run (one call): GPU tests, injected faults, throughput and noise per
# spec, and the ncu cross-check. Expects .deps/evaldev from pack_device.sh (carried) and writes
# results under $OUT. Steps run in priority order, each with its own time limit, and a step is
# skipped once the whole run nears BUDGET seconds, so a slow step cannot eat the rest.
# STEPS picks what runs (default: all): tests faults throughput ncu cupti.
set -uo pipefail
D=$PWD/.deps/evaldev
OUT=${OUT:-/tmp/evalout}
BUDGET=${BUDGET:-540}
STEPS=${STEPS:-tests faults throughput ncu cupti}
want() { [[ " $STEPS " == *" $1 "* ]]; }
mkdir -p "$OUT"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
bench_env "$OUT/env" "BUDGET=$BUDGET STEPS=$STEPS TP_N=${TP_N:-24}" \
  "$(ls /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | grep -i -E "cupti|nvperf"; which ncu; ncu --version 2>&1 | tail -1)"
step() {
  local name=$1 limit=$2; shift 2
  if (( SECONDS + 10 > BUDGET )); then echo "=== $name SKIPPED (budget)"; return; fi
  (( SECONDS + limit > BUDGET )) && limit=$((BUDGET - SECONDS))
  echo "=== $name (limit ${limit}s)"; local t0=$SECONDS
  timeout "$limit" "$@"; echo "=== $name rc=$? $((SECONDS - t0))s"
}
tp() {
  local n; n=$(basename "$1" .launch.json)
  step "throughput $n" "$2" "$D"/bin/sassx-eval-bench throughput "$1" --n "$3" --json "$OUT/tp-$n.json" | grep '^==='

  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); b=j["baseline"]; print(j["spec"], "| baseline_us", round(b.get("baseline_median_us",0),2), b.get("launch_mode"), b.get("launches_per_sample"), "| noise", round(100*b.get("noise_floor",0),3), "% | screen/s", round(j["screen_only"]["evaluations_per_s"],1), "| adaptive/s", round(j["adaptive"]["evaluations_per_s"],1), "| false_faster", j["adaptive"]["false_faster"], j["screen_only"]["false_faster"])' "$OUT/tp-$n.json" 2>&1 | tail -1
}
want tests && step gpu_tests 150 "$D"/bin/test_eval_gpu -o "$OUT/gpu_tests.txt,txt" -o -,txt
want cupti && step cupti_crosscheck 300 python3 bench/eval/cupti_crosscheck.py "$D"/bin/sassx-eval-bench "$OUT/eval-cupti-crosscheck" \
  "$D"/specs/sgemm_leakyrelu.launch.json "$D"/specs/hgemm_leakyrelu.launch.json "$D"/specs/flash_attn_fwd.launch.json \
  "$D"/specs/rmsnorm.launch.json "$D"/specs/gemm_leakyrelu.launch.json "$D"/specs/attention_fwd.launch.json \
  "$D"/specs/eval_fma.launch.json > "$OUT/cupti.log" 2>&1
[ -f "$OUT/cupti.log" ] && tail -c 3000 "$OUT/cupti.log"
want faults && step faults 100 "$D"/bin/sassx-eval-bench faults "$D"/eval_add_small.launch.json --broken "$D"/broken --n 100 --timeout-ms 1500 --json "$OUT/eval-faults.json" | tail -22
want throughput && for s in sgemm_leakyrelu hgemm_leakyrelu flash_attn_fwd eval_fma rmsnorm; do tp "$D/specs/$s.launch.json" 45 ${TP_N:-24}; done
want ncu && step ncu_crosscheck 150 python3 bench/eval/ncu_crosscheck.py "$D"/bin/sassx-eval-bench "$OUT/eval-ncu-crosscheck" \
  "$D"/specs/sgemm_leakyrelu.launch.json "$D"/specs/rmsnorm.launch.json "$D"/specs/eval_fma.launch.json \
  "$D"/specs/hgemm_leakyrelu.launch.json > "$OUT/ncu.log" 2>&1
[ -f "$OUT/ncu.log" ] && tail -4 "$OUT/ncu.log"
want throughput && for s in gemm_leakyrelu attention_fwd eval_add; do tp "$D/specs/$s.launch.json" 35 ${TP_N:-24}; done
bench_merge "$OUT" tp- "$OUT/eval-throughput.json" --indent 2
ls -la "$OUT"; echo "total ${SECONDS}s"
