#!/usr/bin/env bash
# Packs the estimate ranking check for the GPU machine into .deps/estdev (git-ignored): the worker and
# sassx-estimate-rank built here with their Qt/ICU runtime (RPATH $ORIGIN/../lib, as bench/eval/
# pack_device.sh does), the sm_90 samples' specs + cubins, and the variants (byte patches).
# Usage: bench/estimate/pack_device.sh BUILD_DIR SAMPLES_DIR VARIANTS_DIR   (repo root; needs patchelf)
set -euo pipefail
build=${1:-build-est}; samples=${2:-$build/samples}; variants=${3:-.deps/estvar}
dst=.deps/estdev
rm -rf "$dst"; mkdir -p "$dst"/{bin,lib,specs,variants}
bins=("$build"/app/worker/sassx-worker "$build"/bench/estimate/sassx-estimate-rank)
for b in "${bins[@]}"; do
  cp "$b" "$dst"/bin/; strip "$dst/bin/$(basename "$b")"
  patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$dst/bin/$(basename "$b")"
done
for lib in $(ldd "${bins[@]}" 2>/dev/null | awk '/=> \//{print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
    *) cp -L "$lib" "$dst"/lib/ ;;
  esac
done
for l in "$dst"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$l" 2>/dev/null || true; done
tar -cJf "$dst"/lib.tar.xz -C "$dst" lib && rm -rf "$dst"/lib
for v in "$variants"/*.jsonl; do
  s=$(basename "$v" .jsonl)
  [ -s "$v" ] || continue
  cp "$v" "$dst"/variants/; cp "$samples/$s.launch.json" "$samples/$s.sm_90.cubin" "$dst"/specs/
done
du -sh "$dst"; ls "$dst"/specs "$dst"/variants
