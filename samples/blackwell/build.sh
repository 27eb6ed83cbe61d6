#!/bin/sh
# Rebuilds the committed Blackwell sample cubins: every kernel here for sm_100a, sm_103a and sm_120.
# ptxas needs no GPU, so any CUDA 13 toolkit does: /usr/local/cuda (13.0), or the pip wheel
# (`python3 -m pip install nvidia-cuda-nvcc`, its nvcc is under site-packages/nvidia/cu13/bin).
# The cubins are committed because the build's own nvcc (CMake's SASSX_NVCC) may predate Blackwell;
# the annotation goldens (tests/core/analysis/golden/bw_*.txt) are of these exact files, so after a
# rebuild run test_annotation_golden with SASSX_UPDATE_GOLDEN=1 and review the diff.
#
#   samples/blackwell/build.sh            # NVCC=/path/to/nvcc to pick another toolkit
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
    for cand in nvcc /usr/local/cuda/bin/nvcc; do
        if command -v "$cand" >/dev/null 2>&1; then nvcc=$(command -v "$cand"); break; fi
    done
fi
[ -n "$nvcc" ] || { echo "build.sh: no nvcc (set NVCC, or install a CUDA 13 toolkit)" >&2; exit 1; }
version=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1.\2/p')
case "$version" in
    1[3-9].*) ;;
    *) echo "build.sh: $nvcc is CUDA $version; sm_103a needs CUDA 13 or newer" >&2; exit 1 ;;
esac
for src in bw_elementwise bw_attention bw_gemm_tcgen05; do
    for arch in sm_100a sm_103a sm_120; do
        "$nvcc" -cubin -O3 -arch="$arch" -o "$here/$src.$arch.cubin" "$here/$src.cu"
        echo "$src.$arch.cubin ($(wc -c <"$here/$src.$arch.cubin") bytes, CUDA $version)"
    done
done
