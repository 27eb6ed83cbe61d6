#!/usr/bin/env bash
# The estimate ranking check's device run (one call): every packed variant measured against its
# original through sassx-worker (interleaved rounds), per sample under a time budget. Expects
# .deps/estdev from pack_device.sh (carried); writes meas-<sample>.json under $OUT.
set -uo pipefail
D=$PWD/.deps/estdev
OUT=${OUT:-/tmp/estout}
PER=${PER:-65}      # seconds per sample
SCREEN=${SCREEN:-40} # interleaved rounds per variant
mkdir -p "$OUT"
[ -f "$D/lib.tar.xz" ] && [ ! -d "$D/lib" ] && tar -xJf "$D/lib.tar.xz" -C "$D"
export SASSX_WORKER=$D/bin/sassx-worker SASSX_RESOURCES=$PWD/resources
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
for s in ${SAMPLES:-sgemm_leakyrelu hgemm_leakyrelu flash_attn_fwd rmsnorm gemm_leakyrelu attention_fwd}; do
  [ -s "$D/variants/$s.jsonl" ] || { echo "$s: no variants"; continue; }
  timeout $((PER + 40)) "$D"/bin/sassx-estimate-rank measure "$D/specs/$s.launch.json" "$D/variants/$s.jsonl" \
    --json "$OUT/meas-$s.json" --screen "$SCREEN" --budget-s "$PER" --input-sets 1
  echo "$s rc=$? at ${SECONDS}s"
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
merged = {os.path.basename(p)[5:-5]: json.load(open(p)) for p in sorted(glob.glob(out + "/meas-*.json"))}
json.dump(merged, open(out + "/estimate-measured.json", "w"), indent=1)
for p in glob.glob(out + "/meas-*.json"): os.remove(p)
PY
ls -la "$OUT"; echo "total ${SECONDS}s"
