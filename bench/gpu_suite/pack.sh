#!/usr/bin/env bash
# Packs the GPU suite for the device machine into .deps/gpusuite.tar.xz (git-ignored; carry it):
# every test ctest labels `gpu`, the CLI and the worker with their runtime libraries, the test kernels,
# the sm_90 samples and nvdisasm. The device machine has no Qt and no build tree (bench/pack_lib.sh).
# Usage (repo root, after a build): [SEARCH_ONLY=1] bench/gpu_suite/pack.sh [BUILD_DIR]
# SEARCH_ONLY=1: the CLI, the worker and the samples only, without the GPU tests and nvdisasm (14 MB
# instead of 19); run_device.sh then uses the nvdisasm Triton bundles on the device. NVDISASM=1 adds the
# pinned nvdisasm all the same (bench/driver: library kernels such as FlashAttention's need it).
# A call carries at most 64 MiB with the tracked tree; the results in it stay small by a budget that
# ctest checks (docs/architecture.md, "Results"). When the two together exceed it, this script warns and
# names the largest tracked files: a tracked file missing from the working tree does not travel.
set -euo pipefail
source "$(dirname "$0")/../pack_lib.sh"
build=${1:-build}
dst=.deps/gpusuite
rm -rf "$dst" && mkdir -p "$dst"/kernels
tests=""
[ "${SEARCH_ONLY:-0}" = 1 ] || tests=$(ctest --test-dir "$build" -L gpu -N | awk '/Test +#/{print $3}')
[ -n "$tests" ] || [ "${SEARCH_ONLY:-0}" = 1 ] || { echo "no test labelled gpu in $build" >&2; exit 1; }
bins=("$build"/app/cli/sassx-cli "$build"/app/worker/sassx-worker)
for t in $tests; do bins+=("$(find "$build"/tests -name "$t" -type f -executable | head -1)"); done
pack_binaries "$dst" "${bins[@]}"
echo "$tests" > "$dst"/tests.txt
cp "$build"/tests/core/eval/kernels/*.cubin "$dst"/kernels/
pack_samples "$dst" "$build"
# The pinned wheel's nvdisasm (run.sh installs it; it lands in nvidia/cu*/bin), else the one on PATH: the
# device's own CUDA may be older than the samples need (it listed 822 of flash_attn_fwd's 888).
[ "${SEARCH_ONLY:-0}" = 1 ] && [ "${NVDISASM:-0}" != 1 ] || pack_nvdisasm "$dst" or-path
git rev-parse --short HEAD > "$dst"/commit.txt
git diff --quiet HEAD -- core app tests || echo "(with uncommitted changes)" >> "$dst"/commit.txt
tar cf - -C .deps gpusuite | xz -9e -T2 > .deps/gpusuite.tar.xz
du -h .deps/gpusuite.tar.xz; echo "tests: $tests"
# A device call carries the tracked tree and the carried paths together, at most 64 MiB: say so here,
# before a call is refused, with the largest tracked files.
tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
suite=$(stat -c %s .deps/gpusuite.tar.xz)
if [ $((tree + suite)) -gt $((64 * 1024 * 1024)) ]; then
  echo "warning: the tracked tree ($((tree / 1000000)) MB) and the suite ($((suite / 1000000)) MB) exceed a device call's 64 MiB carry;" \
    "the largest tracked files:" >&2
  git ls-files -z | xargs -0 du -b 2>/dev/null | sort -rn | head -3 | sed 's/^/  /' >&2
fi
