#!/usr/bin/env bash
# Builds the PPO plug-in (core/search/rl) against the libtorch of python3's torch, for machines where
# sassx itself was not built (the GPU machine): one g++ call, CPU libtorch only (the agent runs on the
# CPU; the GPU is the evaluator's). Prints the plug-in's path; use it as SASSX_PPO_PLUGIN.
# usage: bench/search/build_ppo_plugin.sh [OUT_DIR]     (from the repo root)
set -euo pipefail
out=${1:-/tmp/sassx-ppo}
mkdir -p "$out"
T=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
abi=$(python3 -c "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))")
flags=(-std=c++20 -O2 -fPIC -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI="$abi" -I.
       -isystem "$T/include" -isystem "$T/include/torch/csrc/api/include")
# The three sources compile in parallel (torch's headers make each take about a minute).
pids=()
for f in plugin_entry policy_network ppo_agent; do
  g++ "${flags[@]}" -c "core/search/rl/$f.cpp" -o "$out/$f.o" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
g++ -shared "$out"/plugin_entry.o "$out"/policy_network.o "$out"/ppo_agent.o \
  -L"$T/lib" -Wl,-rpath,"$T/lib" -Wl,--no-as-needed -ltorch_cpu -lc10 -o "$out/libsassx_ppo.so"
echo "$out/libsassx_ppo.so"
