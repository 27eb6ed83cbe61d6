#!/usr/bin/env bash
# The stall-sampling device run (docs/stalls.md): the CUPTI-vs-ncu cross-check with the bad cases
# (pcsample_crosscheck.py), then `sassx-cli stalls` on every sm_90 sample and on a tuned SGEMM
# variant (one LDS.128 moved up 13 slots), whose samples map back to the original instructions.
# Expects .deps/evaldev from pack_device.sh plus specs/sgemm_leakyrelu.moved.cubin (carried); writes $OUT.
set -uo pipefail
D=$PWD/.deps/evaldev
OUT=${OUT:-/tmp/pcsout}
mkdir -p "$OUT"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
# The toolkit's nvdisasm 13.0 lists Hopper code incompletely (README); the pip wheel's is newer.
if [ -z "${SASSX_NVDISASM:-}" ]; then
  w=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "bin", "nvdisasm"))' 2>/dev/null)
  [ -x "$w" ] && export SASSX_NVDISASM=$w
fi
bench_env "$OUT/env" "" "$(ncu --version 2>&1 | tail -1; ncu --help 2>&1 | grep -A3 -- "--warp-sampling-interval")
nvdisasm: ${SASSX_NVDISASM:-from PATH}"
S=$D/specs
SASSX_EVAL_KERNELS_DIR=$D/kernels timeout 120 "$D/bin/test_eval_gpu" stallSamples > "$OUT/gpu-test-stalls.txt" 2>&1
echo "test_eval_gpu stallSamples rc=$?"; tail -5 "$OUT/gpu-test-stalls.txt"
PCSAMPLE_FAULT_SPEC=$D/eval_add_small.launch.json:$D/broken/eval_add_oob.cubin timeout 420 \
  python3 bench/eval/pcsample_crosscheck.py "$D/bin/sassx-worker" "$OUT/pcsample-crosscheck" \
  $S/sgemm_leakyrelu.launch.json $S/hgemm_leakyrelu.launch.json $S/flash_attn_fwd.launch.json \
  $S/rmsnorm.launch.json $S/gemm_leakyrelu.launch.json $S/attention_fwd.launch.json > "$OUT/crosscheck.log" 2>&1
echo "crosscheck rc=$?"; tail -c 2500 "$OUT/crosscheck.log"
for s in sgemm_leakyrelu hgemm_leakyrelu flash_attn_fwd rmsnorm gemm_leakyrelu attention_fwd; do
  timeout 60 "$D/bin/sassx-cli" stalls "$S/$s.launch.json" --json > "$OUT/stalls-$s.json" 2> "$OUT/stalls-$s.err"
  echo "stalls $s rc=$?"; timeout 60 "$D/bin/sassx-cli" stalls "$S/$s.launch.json" --top 8 > "$OUT/stalls-$s.txt" 2>&1
done
timeout 60 "$D/bin/sassx-cli" stalls "$S/sgemm_leakyrelu.launch.json" --cubin "$S/sgemm_leakyrelu.moved.cubin" --json \
  > "$OUT/stalls-sgemm_leakyrelu.moved.json" 2> "$OUT/stalls-moved.err"; echo "moved rc=$?"
head -40 "$OUT/stalls-sgemm_leakyrelu.txt"
# Only a few files come back from the device: pack the per-kernel outputs.
(cd "$OUT" && tar -cJf pcsample-outputs.tar.xz stalls-* crosscheck.log gpu-test-stalls.txt && rm -f stalls-*)
ls -la "$OUT"; echo "total ${SECONDS}s"
