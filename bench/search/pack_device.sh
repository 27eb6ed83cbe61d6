#!/usr/bin/env bash
# Packs the search evidence run (docs/search.md) into .deps/search (git-ignored): sassx-cli, sassx-worker and
# sassx-sip-anneal built here with their runtime libraries, the pinned nvdisasm, and every sm_90 sample
# with its launch spec.
# usage: bench/search/pack_device.sh [BUILD_DIR]      (from the repo root; needs patchelf)
set -euo pipefail
BUILD=${1:-build}
source "$(dirname "$0")/../pack_lib.sh"
dst=.deps/search
rm -rf "$dst"
pack_binaries "$dst" "$BUILD"/app/cli/sassx-cli "$BUILD"/app/worker/sassx-worker "$BUILD"/bench/search/sassx-sip-anneal
pack_samples "$dst" "$BUILD"
# The nvdisasm sassx was built and tested with (the pinned wheel's): the GPU machine's toolkit lists
# fewer instructions of some sm_90 kernels, and the workspace refuses an incomplete listing.
pack_nvdisasm "$dst"
cp bench/search/run_device.sh bench/search/summarize.py "$dst"/
du -sh "$dst"
