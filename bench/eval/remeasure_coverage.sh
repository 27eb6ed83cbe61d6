#!/usr/bin/env bash
# Does a final figure's 95% interval cover a re-run in a fresh process? On each GPU of GPUS one kernel of
# KERNELS: a climb search (BUDGET s) picks a best, then N pairs of fresh-process benches of that best
# (100 rounds each), alternating one loaded instance pair (--instances 1, the old final figure) with
# rounds spread over 5 fresh pairs (--instances 5, the new one). remeasure_coverage.py tabulates.
# Needs the GPU suite's pack (.deps/gpusuite, bench/gpu_suite/pack.sh). Writes $OUT/coverage/KERNEL/.
# Usage: KERNELS="attention_fwd hgemm_leakyrelu" GPUS="0 1" N=20 BUDGET=90 OUT=$OUT bash bench/eval/remeasure_coverage.sh
set -uo pipefail
[ -d .deps/gpusuite ] || tar xJf .deps/gpusuite.tar.xz -C .deps
D=$PWD/.deps/gpusuite
R=${OUT:-/tmp/out}/coverage; N=${N:-20}; BUDGET=${BUDGET:-90}
read -r -a kernels <<< "${KERNELS:-attention_fwd}"; read -r -a gpus <<< "${GPUS:-0}"
export SASSX_WORKER=$D/bin/sassx-worker SASSX_RESOURCES=$PWD/resources
[ -x "$D/bin/nvdisasm" ] && export SASSX_NVDISASM=$D/bin/nvdisasm
mkdir -p "$R"
{ date -u +%FT%TZ; cat "$D"/commit.txt; echo "N=$N BUDGET=$BUDGET kernels=${kernels[*]} gpus=${gpus[*]}"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > "$R"/env.txt 2>&1
one() { # GPU KERNEL
  local g=$1 k=$2 dir=$R/$2 i m
  mkdir -p "$dir"
  timeout $((BUDGET + 240)) "$D"/bin/sassx-cli search "$D/data/$k.launch.json" --backend gpu --gpus "$g" \
    --budget-time "${BUDGET}s" --seed 3 -o "$dir/search" > "$dir/search.log" 2>&1
  cp "$dir/search/report.json" "$dir/" 2>/dev/null
  for ((i = 1; i <= N; ++i)); do
    for m in 1 5; do
      timeout 240 "$D"/bin/sassx-cli bench "$D/data/$k.launch.json" --cubin "$dir/search/best.cubin" \
        --backend gpu --gpus "$g" --rounds 100 --instances $m --json > "$dir/bench-i$m-$i.json" 2>> "$dir/bench.err"
    done
  done
  rm -rf "$dir/search"
}
for idx in "${!kernels[@]}"; do one "${gpus[$((idx % ${#gpus[@]}))]}" "${kernels[$idx]}" & done
wait
tar cJf "${OUT:-/tmp/out}"/coverage.tar.xz -C "$R/.." coverage
python3 "$(dirname "$0")"/remeasure_coverage.py "$R" | tail -20
