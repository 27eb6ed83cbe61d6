#!/usr/bin/env bash
# Packs the rescheduled-space evidence run (docs/legality.md) into .deps/resched (git-ignored): sassx-cli and
# sassx-worker with their runtime libraries, the pinned nvdisasm, and the variant set of
# make_rescheduled.sh. usage: bench/legality/pack_rescheduled.sh [BUILD_DIR] [COUNT] [SEED]
set -euo pipefail
BUILD=${1:-build}; COUNT=${2:-500}; SEED=${3:-7}
source "$(dirname "$0")/../pack_lib.sh"
dst=.deps/resched
rm -rf "$dst"
pack_binaries "$dst" "$BUILD"/app/cli/sassx-cli "$BUILD"/app/worker/sassx-worker
pack_nvdisasm "$dst"
bench/legality/make_rescheduled.sh "$BUILD" "$dst/data" "$COUNT" "$SEED"
# The carry limit is 64 MiB: the variant patches travel compressed (run_rescheduled_device.sh unpacks).
tar czf "$dst/data.tgz" -C "$dst" data && rm -rf "$dst/data"
du -sh "$dst"
