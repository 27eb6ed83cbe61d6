#!/usr/bin/env bash
# PPO on the GPU against the default search and random search (docs/ppo.md, "Evidence"): on KERNEL,
# runs side by side, one per GPU (four on a four-GPU host; CONTENDERS picks fewer), with the same space, seed and time budget:
#   ppo-warm  PPO from the policy pretrained on the estimate over the other samples, then trained online:
#             .deps/ppo-pretrained/KERNEL.pt, made by `HELD_OUT=KERNEL SPACE=all+control PRE_EVALS=600
#             OUT=/tmp/pre/KERNEL bench/search/ppo_estimate/pretrain.sh` (its /tmp/pre/KERNEL/pretrained.pt);
#   ppo-cold  PPO from a fresh policy;
#   climb     the default search;
#   random    random search.
# Each run's best gets its final figure from fresh worker processes (--final-processes). Needs
# .deps/gpusuite.tar.xz (bench/gpu_suite/pack.sh; SEARCH_ONLY=1, and its warning, for the carry limit),
# carried; builds the PPO plug-in against the machine's libtorch first (bench/search/build_ppo_plugin.sh;
# kept in .deps/ppo-plugin for the next call).
# Writes $OUT/ppo-compare-KERNEL.tar.xz, the compact copy for bench/results (each run's report.json with
# its learning curve as report.learning.csv, bests.csv, outcomes.csv and log; env.txt, table.md), and
# $OUT/ppo-compare-KERNEL-raw.tar.xz (whole histories and policy.pt as well; not for the tree). Results: bench/results/ppo-device-compare-2026-11-27.md (6 minutes), -27b/c/d.md (10 minutes;
# the warm starts' policies in ppo-pretrain-cpu-2026-11-27b/K/pretrained.pt).
# Usage: KERNEL=attention_fwd BUDGET=360 [CONTENDERS="ppo-warm climb"] [PPO_CONFIG=file]
#          [STOP_AFTER=seconds | RESUME=1] OUT=$OUT bash bench/search/ppo_compare/run_device.sh
# (a dry run without a GPU: SUITE=DIR (bin/, data/ as pack.sh lays them out) BACKEND=estimate
#  SASSX_PPO_PLUGIN=build/.../libsassx_ppo.so BUDGET=20 ...)
set -uo pipefail
OUT=${OUT:-/tmp/out}; K=${KERNEL:-attention_fwd}; BUDGET=${BUDGET:-360}; BACKEND=${BACKEND:-gpu}; SPACE=${SPACE:-all+control}
SEED=${SEED:-1}; R=$OUT/ppo-compare-$K
D=${SUITE:-$PWD/.deps/gpusuite}
source "$(dirname "$0")"/../../lib/device.sh
bench_unpack "$D"
mkdir -p "$R"
if [ -z "${SASSX_PPO_PLUGIN:-}" ] && [ ! -f .deps/ppo-plugin/libsassx_ppo.so ]; then
  bench/search/build_ppo_plugin.sh .deps/ppo-plugin > "$R"/plugin.log 2>&1 || { echo "plug-in build failed"; tail -5 "$R"/plugin.log; }
fi
export SASSX_PPO_PLUGIN=${SASSX_PPO_PLUGIN:-$PWD/.deps/ppo-plugin/libsassx_ppo.so}
bench_pack "$D"
export QT_QPA_PLATFORM=offscreen
# The suite's nvdisasm, else the one Triton bundles (a suite packed with SEARCH_ONLY=1 has none): the
# device's own CUDA lists flash_attn_fwd incompletely (822 of 888 instructions), which the CLI refuses.
if [ ! -x "$D/bin/nvdisasm" ]; then
  tnv=$(python3 -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/nvdisasm"))' 2>/dev/null || true)
  [ -n "$tnv" ] && [ -x "$tnv" ] && export SASSX_NVDISASM=$tnv
fi
# On the device the checkout's HEAD can be the landed main while the files are the caller's working tree
# (bench/results/ppo-critic-h200-2026-11-27.md): say when they differ, and fingerprint the plug-in's
# source, which is built here from those files.
bench_env "$R"/env \
  "KERNEL=$K BUDGET=$BUDGET SPACE=$SPACE SEED=$SEED BACKEND=$BACKEND CONTENDERS=${CONTENDERS:-all four} PPO_CONFIG=${PPO_CONFIG:-preset} STOP_AFTER=${STOP_AFTER:-0} RESUME=${RESUME:-0}" \
  "$(git diff --quiet HEAD -- core bench 2>/dev/null || echo "(core/ or bench/ differ from that commit: it is not all that ran)"
     echo "plug-in source sha256: $(cat core/search/agent.h core/search/rl/*.h core/search/rl/*.cpp | sha256sum | cut -c1-16)"
     python3 -c "import torch; print('torch', torch.__version__)" 2>&1; echo "nvdisasm: ${SASSX_NVDISASM:-from PATH}")" > /dev/null
policy=${POLICIES:-$PWD/.deps/ppo-pretrained}/$K.pt
# The pretrained policy was saved by this machine's libtorch's predecessor: check that it loads (a few
# estimate evaluations) before four GPUs wait on it.
"$D"/bin/sassx-cli search "$D/data/$K.launch.json" --algo ppo --backend estimate --space "$SPACE" \
  --budget-evals 4 --policy "$policy" -o /tmp/policy-check > "$R"/policy-check.log 2>&1
echo "policy check rc=$?" >> "$R"/env.txt
# A run longer than one device call (10 minutes at most) is split: the first call passes STOP_AFTER=S,
# which stops each search gracefully after S seconds (SIGTERM: the CLI checkpoints, as Ctrl-C does) and
# keeps its directory in RUNS (git-ignored; it stays on the device machine while it is held); the next
# call passes RESUME=1 and the same BUDGET, and each search continues its checkpoint exactly
# (--resume: its own settings and policy) until its whole budget, counted across the calls, is spent.
RUNS=${RUNS:-$PWD/.deps/ppo-compare-runs}; RESUME=${RESUME:-0}; STOP_AFTER=${STOP_AFTER:-0}
run() { # NAME GPU ARGS...
  local name=$1 g=$2; shift 2
  local dir="$RUNS/$K.s$SEED.$name" limit=$((BUDGET + 300))
  mkdir -p "$R/$name"
  [ "$STOP_AFTER" -gt 0 ] && limit=$STOP_AFTER
  if [ "$RESUME" = 1 ]; then set -- --resume; else rm -rf "$dir"; fi
  CUDA_VISIBLE_DEVICES=$g timeout -s TERM -k 120 $limit "$D"/bin/sassx-cli search "$D/data/$K.launch.json" \
    --backend "$BACKEND" --space "$SPACE" --seed "$SEED" --budget-time "${BUDGET}s" -o "$dir" "$@" \
    > "$R/$name/log" 2>&1
  echo "$name rc=$?" >> "$R"/runs.txt
  cp "$dir/report.json" "$dir/history.csv" "$dir/policy.pt" "$R/$name/" 2>/dev/null
  [ "$STOP_AFTER" -gt 0 ] || rm -rf "$dir"
}
# CONTENDERS: which runs, in the order of the GPUs they get (a two-GPU host runs two of them at a time).
# PPO_CONFIG: a --ppo-config file for both PPO runs (default: the preset).
ppo_extra=(); [ -n "${PPO_CONFIG:-}" ] && ppo_extra=(--ppo-config "$PPO_CONFIG")
g=0
for c in ${CONTENDERS:-ppo-warm ppo-cold climb random}; do
  case $c in
    ppo-warm) run ppo-warm $g --algo ppo --policy "$policy" "${ppo_extra[@]}" & ;;
    ppo-cold) run ppo-cold $g --algo ppo "${ppo_extra[@]}" & ;;
    climb|random) run $c $g --algo $c & ;;
    *) echo "unknown contender $c" >&2 ;;
  esac
  g=$((g + 1))
done
wait
python3 "$(dirname "$0")"/summary.py "$R" | tee "$R"/table.md
source "$(dirname "$0")"/../../pack_lib.sh
pack_results "$R" "$OUT" ppo-compare-$K && rm -rf "$R"
