#!/usr/bin/env bash
# Does the default search scale with the GPUs of one host? For each kernel of KERNELS and each GPU list
# of GPU_SETS (default "0" and "0,1"), one climb search of BUDGET seconds (same seed, same space),
# one after another so that no two runs share a GPU; each is a fresh sassx-cli process with its own
# worker pool. Needs the GPU suite's pack (.deps/gpusuite, bench/gpu_suite/pack.sh). Writes
# multigpu/KERNEL.gGPUS/{report.json,history.csv.xz,log}, packed as $OUT/multigpu.tar.xz (the compact
# copy for bench/results: histories with the columns summary.py and replay_batches.py read) and
# $OUT/multigpu-raw.tar.xz; summary.py tabulates evaluations/s, the speed-up of the pool over one GPU,
# and time-to-best.
# SEARCH_ARGS: more sassx-cli search options for every run (e.g. "--per-gpu 8").
# Usage: KERNELS="attention_fwd hgemm_leakyrelu" GPU_SETS="0 0,1" BUDGET=60 OUT=$OUT bash bench/search/multi_gpu/run_device.sh
set -uo pipefail
source "$(dirname "$0")/../../lib/device.sh"
D=$PWD/.deps/gpusuite
bench_pack "$D"
R=${OUT:-/tmp/out}/multigpu; BUDGET=${BUDGET:-60}; SEED=${SEED:-1}; SPACE=${SPACE:-yield}
read -r -a kernels <<< "${KERNELS:-attention_fwd hgemm_leakyrelu}"
read -r -a sets <<< "${GPU_SETS:-0 0,1}"
mkdir -p "$R"
bench_env "$R"/env "BUDGET=$BUDGET SEED=$SEED SPACE=$SPACE SEARCH_ARGS=${SEARCH_ARGS:-} kernels=${kernels[*]} sets=${sets[*]}" > /dev/null
for k in "${kernels[@]}"; do
  for g in "${sets[@]}"; do
    dir=$R/$k.g${g//,/-}
    mkdir -p "$dir"
    timeout $((BUDGET + 240)) "$D"/bin/sassx-cli search "$D/data/$k.launch.json" --backend gpu --gpus "$g" \
      --space "$SPACE" --budget-time "${BUDGET}s" --seed "$SEED" ${SEARCH_ARGS:-} -o "$dir/out" > "$dir/log" 2>&1
    echo "$k gpus=$g rc=$?" >> "$R"/runs.txt
    cp "$dir/out/report.json" "$dir/" 2>/dev/null
    # Histories are kept (xz): batch timing and race rounds are what explain a pool that does not scale.
    [ -f "$dir/out/history.csv" ] && xz -9 -c "$dir/out/history.csv" > "$dir/history.csv.xz"
    rm -rf "$dir/out"
  done
done
python3 "$(dirname "$0")"/summary.py "$R"
source "$(dirname "$0")"/../../pack_lib.sh
pack_results "$R" "${OUT:-/tmp/out}" multigpu --history all --columns step,seconds,kind,ok,speedup,rounds,best --xz &&
  rm -rf "$R"
