#!/usr/bin/env bash
# PPO on the GPU against the default search and random search (docs/ppo.md, "Evidence"): on KERNEL,
# four runs side by side, one per GPU of a four-GPU host, with the same space, seed and time budget:
#   ppo-warm  PPO from the policy pretrained on the estimate over the other samples, then trained online:
#             .deps/ppo-pretrained/KERNEL.pt, made by `HELD_OUT=KERNEL SPACE=all+control PRE_EVALS=600
#             OUT=/tmp/pre/KERNEL bench/search/ppo_estimate/pretrain.sh` (its /tmp/pre/KERNEL/pretrained.pt);
#   ppo-cold  PPO from a fresh policy;
#   climb     the default search;
#   random    random search.
# Each run's best gets its final figure from fresh worker processes (--final-processes). Needs
# .deps/gpusuite.tar.xz (bench/gpu_suite/pack.sh), carried; builds the PPO plug-in against the machine's
# libtorch first (bench/search/build_ppo_plugin.sh; kept in .deps/ppo-plugin for the next call).
# Writes $OUT/ppo-compare-KERNEL.tar.xz (report.json, history.csv, policy.pt and log of each run, env.txt,
# table.md). Results: bench/results/ppo-device-compare-2026-11-27.md.
# Usage: KERNEL=attention_fwd BUDGET=360 OUT=$OUT bash bench/search/ppo_compare/run_device.sh
# (a dry run without a GPU: SUITE=DIR (bin/, data/ as pack.sh lays them out) BACKEND=estimate
#  SASSX_PPO_PLUGIN=build/.../libsassx_ppo.so BUDGET=20 ...)
set -uo pipefail
OUT=${OUT:-/tmp/out}; K=${KERNEL:-attention_fwd}; BUDGET=${BUDGET:-360}; BACKEND=${BACKEND:-gpu}; SPACE=${SPACE:-all+control}
SEED=${SEED:-1}; R=$OUT/ppo-compare-$K
D=${SUITE:-$PWD/.deps/gpusuite}
[ -d "$D" ] || tar xJf .deps/gpusuite.tar.xz -C .deps
mkdir -p "$R"
if [ -z "${SASSX_PPO_PLUGIN:-}" ] && [ ! -f .deps/ppo-plugin/libsassx_ppo.so ]; then
  bench/search/build_ppo_plugin.sh .deps/ppo-plugin > "$R"/plugin.log 2>&1 || { echo "plug-in build failed"; tail -5 "$R"/plugin.log; }
fi
export SASSX_PPO_PLUGIN=${SASSX_PPO_PLUGIN:-$PWD/.deps/ppo-plugin/libsassx_ppo.so} SASSX_WORKER=$D/bin/sassx-worker
export SASSX_RESOURCES=$PWD/resources QT_QPA_PLATFORM=offscreen
[ -x "$D/bin/nvdisasm" ] && export SASSX_NVDISASM=$D/bin/nvdisasm
{ date -u +%FT%TZ; cat "$D"/commit.txt; git rev-parse --short HEAD 2>/dev/null
  echo "KERNEL=$K BUDGET=$BUDGET SPACE=$SPACE SEED=$SEED BACKEND=$BACKEND"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c "import torch; print('torch', torch.__version__)"; nproc; } > "$R"/env.txt 2>&1
policy=${POLICIES:-$PWD/.deps/ppo-pretrained}/$K.pt
# The pretrained policy was saved by this machine's libtorch's predecessor: check that it loads (a few
# estimate evaluations) before four GPUs wait on it.
"$D"/bin/sassx-cli search "$D/data/$K.launch.json" --algo ppo --backend estimate --space "$SPACE" \
  --budget-evals 4 --policy "$policy" -o /tmp/policy-check > "$R"/policy-check.log 2>&1
echo "policy check rc=$?" >> "$R"/env.txt
run() { # NAME GPU ARGS...
  local name=$1 g=$2; shift 2
  mkdir -p "$R/$name"
  CUDA_VISIBLE_DEVICES=$g timeout $((BUDGET + 300)) "$D"/bin/sassx-cli search "$D/data/$K.launch.json" \
    --backend "$BACKEND" --space "$SPACE" --seed "$SEED" --budget-time "${BUDGET}s" -o "$R/$name/out" "$@" \
    > "$R/$name/log" 2>&1
  echo "$name rc=$?" >> "$R"/runs.txt
  cp "$R/$name/out/report.json" "$R/$name/out/history.csv" "$R/$name/out/policy.pt" "$R/$name/" 2>/dev/null
  rm -rf "$R/$name/out"
}
run ppo-warm 0 --algo ppo --policy "$policy" &
run ppo-cold 1 --algo ppo &
run climb 2 --algo climb &
run random 3 --algo random &
wait
python3 "$(dirname "$0")"/summary.py "$R" | tee "$R"/table.md
tar cJf "$OUT"/ppo-compare-$K.tar.xz -C "$OUT" ppo-compare-$K && rm -rf "$R"
