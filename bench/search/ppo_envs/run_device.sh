#!/usr/bin/env bash
# PPO with one environment per GPU (num_envs follows the pool: docs/ppo.md): updates per minute and
# evaluations per second on KERNEL with each GPU list of GPU_SETS (default "0" and "0,1,2,3"), one run
# after another so no two share a GPU; same kernel, space, seed and time budget. Needs .deps/ppo
# (bench/search/pack_ppo_device.sh); builds the plug-in against the machine's libtorch first.
# Writes ppo-envs/{KERNEL.gGPUS/{report.json,log},env.{json,txt}}, packed as $OUT/ppo-envs.tar.xz (the compact
# copy for bench/results) and $OUT/ppo-envs-raw.tar.xz.
# Usage: KERNEL=attention_fwd GPU_SETS="0 0,1,2,3" BUDGET=60 OUT=$OUT bash bench/search/ppo_envs/run_device.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; R=$OUT/ppo-envs; BUDGET=${BUDGET:-60}; SPACE=${SPACE:-yield}; K=${KERNEL:-attention_fwd}
read -r -a sets <<< "${GPU_SETS:-0 0,1,2,3}"
PACK=$PWD/.deps/ppo
source "$(dirname "$0")"/../../lib/device.sh
bench_unpack "$PACK"
plugin=$(bench/search/build_ppo_plugin.sh /tmp/sassx-ppo) || { echo "plug-in build failed"; exit 1; }
export SASSX_PPO_PLUGIN=$plugin
bench_pack "$PACK"
mkdir -p "$R"
bench_env "$R"/env "KERNEL=$K SPACE=$SPACE BUDGET=$BUDGET sets=${sets[*]}" > /dev/null
for g in "${sets[@]}"; do
  dir=$R/$K.g${g//,/-}
  mkdir -p "$dir"
  timeout $((BUDGET + 300)) "$PACK"/bin/sassx-cli search "$PACK/data/$K.launch.json" --algo ppo --backend gpu \
    --gpus "$g" --space "$SPACE" --budget-time "${BUDGET}s" --seed 1 --no-verify --final-processes 2 \
    -o "$dir/out" > "$dir/log" 2>&1
  echo "$K gpus=$g rc=$?" >> "$R"/runs.txt
  cp "$dir/out/report.json" "$dir/" 2>/dev/null
  rm -rf "$dir/out"
done
python3 - "$R" <<'PY'
import glob, json, os, sys
root = sys.argv[1]
print("| GPUs | environments | search s | evaluations/s | PPO updates | updates/min | pool busy |")
print("|---|---|---|---|---|---|---|")
for d in sorted(glob.glob(os.path.join(root, "*.g*"))):
    try:
        r = json.load(open(os.path.join(d, "report.json")))
    except (OSError, ValueError):
        print(f"| {d} | no report |"); continue
    p, t, s = r.get("ppo", {}), r.get("time_split", {}), r.get("seconds", 0) or 1
    print(f"| {os.path.basename(d).split('.g')[1].replace('-', ',')} | {p.get('num_envs')} | {s:.1f} | "
          f"{r.get('evaluations', 0) / s:.1f} | {p.get('updates')} | {60 * p.get('updates', 0) / s:.1f} | "
          f"{t.get('pool_busy_share', 0):.0%} |")
PY
source "$(dirname "$0")"/../../pack_lib.sh
pack_results "$R" "$OUT" ppo-envs && rm -rf "$R"
