#!/usr/bin/env bash
# Packs the PPO evidence run (docs/ppo.md) into .deps/ppo (git-ignored): sassx-cli and sassx-worker built
# here with their runtime libraries, the pinned nvdisasm and the sm_90 samples. The PPO plug-in is not
# packed: it is built on the GPU machine against that machine's libtorch (build_ppo_plugin.sh), since
# libtorch is far beyond what a run can carry and the plug-in boundary (core/search/agent.h) is
# standard-library types only.
# usage: bench/search/pack_ppo_device.sh [BUILD_DIR]      (from the repo root; needs patchelf)
set -euo pipefail
BUILD=${1:-build}
source "$(dirname "$0")/../pack_lib.sh"
dst=.deps/ppo
rm -rf "$dst"
pack_binaries "$dst" "$BUILD"/app/cli/sassx-cli "$BUILD"/app/worker/sassx-worker
pack_samples "$dst" "$BUILD"
pack_nvdisasm "$dst"
du -sh "$dst"
# Carried compressed (a run carries at most 64 MiB); run_ppo_device.sh unpacks it.
tar czf .deps/ppo.tar.gz -C .deps ppo
du -sh .deps/ppo.tar.gz
