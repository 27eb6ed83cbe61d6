#!/usr/bin/env bash
# Builds the probe cubin and its stall-sweep variants here (no GPU needed; needs nvcc and nvdisasm).
# Usage: bench/latency/generate.sh BUILD_DIR [OUT_TGZ]
#   BUILD_DIR  a sassx build tree (the target latency-variants is built in it)
#   OUT_TGZ    default .deps/latency/variants.tgz (git-ignored; carried to the GPU machine)
set -euo pipefail
BUILD=${1:?usage: generate.sh BUILD_DIR [OUT_TGZ]}
OUT_TGZ=${2:-.deps/latency/variants.tgz}
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cmake --build "$BUILD" --target latency-variants
tool=$(find "$BUILD" -name latency-variants -type f -perm -u+x | head -1)
work=$(mktemp -d)
python3 "$here/gen_probe.py" "$work/latency_probe.cu"
"$NVCC" -cubin -O3 -arch=sm_90 -o "$work/latency_probe.sm_90.cubin" "$work/latency_probe.cu"
"$tool" "$work/latency_probe.sm_90.cubin" "$work/variants"
cp "$work/latency_probe.cu" "$work/variants/"
mkdir -p "$(dirname "$OUT_TGZ")"
tar czf "$OUT_TGZ" -C "$work" variants
echo "wrote $OUT_TGZ ($(du -h "$OUT_TGZ" | cut -f1))"
