#!/usr/bin/env bash
# The estimate ranking check's device run (one call): every packed variant measured against its
# original through sassx-worker (interleaved rounds), per sample under a time budget. Expects
# .deps/estdev from pack_device.sh (carried); writes estimate-measured.json and env.{json,txt} under $OUT.
set -uo pipefail
D=$PWD/.deps/estdev
OUT=${OUT:-/tmp/estout}
PER=${PER:-65}      # seconds per sample
SCREEN=${SCREEN:-40} # interleaved rounds per variant
mkdir -p "$OUT"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
bench_env "$OUT/env" "PER=$PER SCREEN=$SCREEN SAMPLES=${SAMPLES:-default}"
for s in ${SAMPLES:-sgemm_leakyrelu hgemm_leakyrelu flash_attn_fwd rmsnorm gemm_leakyrelu attention_fwd}; do
  [ -s "$D/variants/$s.jsonl" ] || { echo "$s: no variants"; continue; }
  timeout $((PER + 40)) "$D"/bin/sassx-estimate-rank measure "$D/specs/$s.launch.json" "$D/variants/$s.jsonl" \
    --json "$OUT/meas-$s.json" --screen "$SCREEN" --budget-s "$PER" --input-sets 1
  echo "$s rc=$? at ${SECONDS}s"
done
bench_merge "$OUT" meas- "$OUT/estimate-measured.json" --indent 1
ls -la "$OUT"; echo "total ${SECONDS}s"
