#!/usr/bin/env bash
# Builds the probe cubin and its 32 stall x yield variants here (no GPU needed), and records which of
# them nvdisasm can decode. Usage: bench/yield/generate.sh BUILD_DIR [VARIANT_DIR]
#   BUILD_DIR    a sassx build tree with the targets yield-variants and yield_probe_cubin
#   VARIANT_DIR  default .deps/yield/variants (git-ignored; carried to the GPU machine)
set -euo pipefail
BUILD=${1:?usage: generate.sh BUILD_DIR [VARIANT_DIR]}
VARIANT_DIR=${2:-.deps/yield/variants}
cmake --build "$BUILD" --target yield-variants yield_probe_cubin
tool=$(find "$BUILD" -name yield-variants -type f -perm -u+x | head -1)
cubin=$(find "$BUILD" -name yield_probe.sm_90.cubin | head -1)
rm -rf "$VARIANT_DIR"
"$tool" "$cubin" "$VARIANT_DIR"
python3 "$(dirname "$0")/decode_check.py" "$VARIANT_DIR"
