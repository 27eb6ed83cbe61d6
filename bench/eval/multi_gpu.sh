#!/usr/bin/env bash
# Pool over several GPUs on one host (docs/evaluator.md: one worker per visible GPU, evaluations spread over
# them). Same identical-candidate throughput on 1 and on 2 GPUs, then the injected-fault test with the
# pool spread over 2 GPUs. Expects .deps/evaldev from bench/eval/pack_device.sh (carried); writes $OUT.
set -uo pipefail
D=$PWD/.deps/evaldev
OUT=${OUT:-/tmp/evalout}
mkdir -p "$OUT"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
SPEC=${SPEC:-$D/specs/hgemm_leakyrelu.launch.json}
N=${N:-48}
bench_env "$OUT/env" "SPEC=$SPEC N=$N"
for g in 0 0,1; do
  timeout 60 "$D"/bin/sassx-eval-bench throughput "$SPEC" --n "$N" --gpus "$g" --json "$OUT/tp-gpus-${g/,/-}.json" >/dev/null 2>"$OUT/tp-gpus-${g/,/-}.log"
  echo "gpus $g rc=$?"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(" screen/s", round(j["screen_only"]["evaluations_per_s"],1), "adaptive/s", round(j["adaptive"]["evaluations_per_s"],1), "correct", j["screen_only"]["correct"], j["adaptive"]["correct"], "false_faster", j["adaptive"]["false_faster"])' "$OUT/tp-gpus-${g/,/-}.json" 2>&1 | tail -1
done
timeout 80 "$D"/bin/sassx-eval-bench faults "$D"/eval_add_small.launch.json --broken "$D"/broken --n 60 --timeout-ms 1500 --gpus 0,1 --json "$OUT/faults-gpus-0-1.json" > "$OUT/faults-gpus-0-1.log" 2>&1
echo "faults rc=$?"; tail -5 "$OUT/faults-gpus-0-1.log"
