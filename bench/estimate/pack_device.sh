#!/usr/bin/env bash
# Packs the estimate ranking check for the GPU machine into .deps/estdev (git-ignored): the worker and
# sassx-estimate-rank built here with their Qt/ICU runtime (RPATH $ORIGIN/../lib, as bench/eval/
# pack_device.sh does), the sm_90 samples' specs + cubins, and the variants (byte patches).
# Usage: bench/estimate/pack_device.sh BUILD_DIR SAMPLES_DIR VARIANTS_DIR   (repo root; needs patchelf)
set -euo pipefail
source "$(dirname "$0")/../pack_lib.sh"
build=${1:-build-est}; samples=${2:-$build/samples}; variants=${3:-.deps/estvar}
dst=.deps/estdev
rm -rf "$dst"; mkdir -p "$dst"/{bin,lib,specs,variants}
bins=("$build"/app/worker/sassx-worker "$build"/bench/estimate/sassx-estimate-rank)
pack_binaries "$dst" "${bins[@]}"
tar -cJf "$dst"/lib.tar.xz -C "$dst" lib && rm -rf "$dst"/lib
for v in "$variants"/*.jsonl; do
  s=$(basename "$v" .jsonl)
  [ -s "$v" ] || continue
  cp "$v" "$dst"/variants/; cp "$samples/$s.launch.json" "$samples/$s.sm_90.cubin" "$dst"/specs/
done
du -sh "$dst"; ls "$dst"/specs "$dst"/variants
