#!/usr/bin/env bash
# Packs the yield-space evidence run (docs/legality.md) into .deps/headroom (git-ignored): the worker and
# sassx-headroom built here with their runtime libraries (the GPU machine has no Qt or build tree), every
# sm_90 sample's cubin and spec, and the variant patch files made here by `sassx-cli variants`:
#   <sample>.yield.jsonl    COUNT random legal yield-flip variants (1-32 flips on ptxas' own order)
#   <sample>.yieldhr.jsonl  HR of them for the headroom screen (another seed)
#   <sample>.moves.jsonl    100 random legal variants of samples with line tables (rewritten ones)
# usage: bench/headroom/pack_device.sh [BUILD_DIR] [COUNT] [HR]      (from the repo root; needs patchelf)
set -euo pipefail
source "$(dirname "$0")/../pack_lib.sh"
BUILD=${1:-build}; COUNT=${2:-500}; HR=${3:-200}
dst=.deps/headroom
rm -rf "$dst"; mkdir -p "$dst"/{bin,lib,data}
bins=("$BUILD"/app/worker/sassx-worker "$BUILD"/bench/headroom/sassx-headroom)
pack_binaries "$dst" "${bins[@]}"
CLI="$BUILD/app/cli/sassx-cli"
for spec in "$BUILD"/samples/*.launch.json; do
  name=$(basename "$spec" .launch.json)
  cubin="$BUILD/samples/$name.sm_90.cubin"
  [ -f "$cubin" ] || continue
  case "$name" in big_*|huge_*) continue;; esac
  cp "$cubin" "$spec" "$dst/data/"
  kernel=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['kernel'])" "$spec")
  "$CLI" variants "$cubin" --kernel "$kernel" --count "$COUNT" --seed 7 --rule yield --max-edits 32 -o "$dst/data/$name.yield.jsonl"
  "$CLI" variants "$cubin" --kernel "$kernel" --count "$HR" --seed 11 --rule yield --max-edits 32 -o "$dst/data/$name.yieldhr.jsonl"
  # Moves in cubins with line tables, which the writer now rewrites (and may relocate to the end of
  # the file): the driver must load them and they must compute the same outputs.
  if python3 -c "import sys; d=open(sys.argv[1],'rb').read(); sys.exit(0 if b'.nv_debug_line_sass' in d else 1)" "$cubin"; then
    "$CLI" variants "$cubin" --kernel "$kernel" --count 100 --seed 5 --rule sassx -o "$dst/data/$name.moves.jsonl"
  fi
done
cp bench/legality/run_variants.py bench/legality/run_all.sh "$dst"/
du -sh "$dst"
