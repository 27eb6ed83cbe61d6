#!/usr/bin/env bash
# Kernels per hour of `sassx-cli tune` with the local pool on 1 and on N GPUs of one host: the sm_90
# samples of the GPU suite's pack, the same per-kernel budget (evaluations, so that every kernel does the
# same work whatever the GPU count), the same seed and space, a fresh database each time. Each GPU set
# is timed from the tune's start to its end (wall), which includes every kernel's opening, baseline,
# confirmation and verification. Needs .deps/gpusuite (bench/gpu_suite/pack.sh).
# Usage: OUT=$OUT [GPU_SETS="0 0,1,2,3"] [EVALS=200] [SPACE=yield] bash bench/tune/scaling_device.sh
set -uo pipefail
source "$(dirname "$0")/../lib/device.sh"
D=$PWD/.deps/gpusuite
bench_pack "$D" bin-first
R=${OUT:-/tmp/out}/tune-scaling; EVALS=${EVALS:-200}; SPACE=${SPACE:-yield}
read -r -a sets <<< "${GPU_SETS:-0 0,1,2,3}"
mkdir -p "$R"
bench_env "$R"/env "EVALS=$EVALS SPACE=$SPACE sets=${sets[*]}" > /dev/null
for g in "${sets[@]}"; do
  w=$R/g${g//,/-}; rm -rf "$w"; mkdir -p "$w"; cp "$D"/data/*.launch.json "$D"/data/*.sm_90.cubin "$w"/
  t0=$(date +%s.%N)
  sassx-cli tune "$w" --backend gpu --gpus "$g" --space "$SPACE" --budget-evals "$EVALS" --seed 1 --json \
    > "$w"/tune.jsonl 2> "$w"/tune.log
  rc=$?; t1=$(date +%s.%N)
  n=$(ls "$w"/*.launch.json | wc -l)
  python3 - "$g" "$n" "$t0" "$t1" "$rc" <<'PY' | tee -a "$R"/summary.txt
import sys
g, n, t0, t1, rc = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
wall = t1 - t0
print(f"gpus={g}: {n} kernels in {wall:.1f} s wall = {n * 3600 / wall:.0f} kernels/hour (rc={rc})")
PY
  sassx-cli tune "$w" --report-only > "$w"/report.txt 2>&1
  rm -f "$w"/*.cubin "$w"/tune-runs/*/diff.html "$w"/tune-runs/*/checkpoint.json
done
# tune-scaling.tar.xz: the compact copy for bench/results (no databases or cubins); -raw.tar.xz: all of it.
source "$(dirname "$0")"/../pack_lib.sh
pack_results "$R" "${OUT:-/tmp/out}" tune-scaling
cat "$R"/summary.txt
