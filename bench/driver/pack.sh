#!/usr/bin/env bash
# Packs the driver hook for the device machine into .deps/driver/ (git-ignored; carry .deps/driver):
# libsassx_hook.so as built here, and the commit it was built from.
# Usage (repo root, after `cmake --build build --target sassx_hook`): bench/driver/pack.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
mkdir -p .deps/driver
cp "$build"/app/hook/libsassx_hook.so .deps/driver/
strip .deps/driver/libsassx_hook.so
git rev-parse --short HEAD > .deps/driver/commit.txt
ldd .deps/driver/libsassx_hook.so | awk '{print $1}' > .deps/driver/needs.txt
du -h .deps/driver/libsassx_hook.so
