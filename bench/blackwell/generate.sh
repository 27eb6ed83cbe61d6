#!/usr/bin/env bash
# Builds, here (no GPU; nvcc 13+ and nvdisasm), everything bench/blackwell/run_device.sh runs on a
# Blackwell GPU, for one architecture: the latency probe and its stall-sweep variants (bench/latency),
# the yield-class and reuse-under-Y0 variants (bench/yield/classes, bench/yield/reuse) and the capmerc
# probe (capmerc_probe.py). The probes are Hopper's, compiled for ARCH: the same questions, asked of
# the new architecture.
# Usage: bench/blackwell/generate.sh BUILD_DIR ARCH [OUT_DIR]
#   ARCH     sm_100a, sm_103a, sm_120a, ... (the GPU the run will have)
#   OUT_DIR  default .deps/blackwell/ARCH (git-ignored; carried to the GPU machine)
set -euo pipefail
BUILD=${1:?usage: generate.sh BUILD_DIR ARCH [OUT_DIR]}
ARCH=${2:?usage: generate.sh BUILD_DIR ARCH [OUT_DIR]}
OUT_DIR=${3:-.deps/blackwell/$ARCH}
here=$(cd "$(dirname "$0")" && pwd)
bench=$(dirname "$here")
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export NVCC
mkdir -p "$OUT_DIR"
status=()

# Latency: the same chain/memory/scoreboard kernels, the variants written by sassx's rewriter.
cmake --build "$BUILD" --target latency-variants
tool=$(find "$BUILD" -name latency-variants -type f -perm -u+x | head -1)
work=$(mktemp -d)
python3 "$bench/latency/gen_probe.py" "$work/latency_probe.cu"
if "$NVCC" -cubin -O3 -arch="$ARCH" -o "$work/latency_probe.$ARCH.cubin" "$work/latency_probe.cu" &&
    "$tool" "$work/latency_probe.$ARCH.cubin" "$work/variants"; then
  cp "$work/latency_probe.cu" "$work/variants/"
  tar czf "$OUT_DIR/latency-variants.tgz" -C "$work" variants
  status+=("latency: ok")
else
  status+=("latency: failed to build for $ARCH")
fi

# Yield classes: the probe compiled here for ARCH, patched in place by make_variants.py.
mkdir -p "$work/classes"
if "$NVCC" -cubin -O3 -arch="$ARCH" -o "$work/classes/probe.cubin" "$bench/yield/classes/class_probe.cu" &&
    python3 "$bench/yield/classes/make_variants.py" "$OUT_DIR/yield-classes" --cubin "$work/classes/probe.cubin"; then
  status+=("yield classes: ok")
else
  status+=("yield classes: failed to build for $ARCH")
fi

# Reuse flags under a cleared yield bit.
if PROBE_ARCH=$ARCH python3 "$bench/yield/reuse/make_variants.py" "$OUT_DIR/yield-reuse"; then
  status+=("yield reuse: ok")
else
  status+=("yield reuse: failed to build for $ARCH")
fi

# capmerc: does an edited .text run, with capmerc kept and stripped?
if python3 "$here/capmerc_probe.py" make "$OUT_DIR/capmerc" --arch "$ARCH" --nvcc "$NVCC"; then
  status+=("capmerc: ok")
else
  status+=("capmerc: failed to build for $ARCH")
fi
rm -rf "$work"
echo "$ARCH" > "$OUT_DIR/arch.txt"
printf '%s\n' "${status[@]}" | tee "$OUT_DIR/generate.txt"
