#!/usr/bin/env bash
# Reproduces bench/results/analysis.md: model building + dependency analysis of the ~52k-instruction
# sample and legal-move enumeration of a ~10k-instruction kernel.
# usage: [BENCH_OUT=results.json] bench/analysis/run.sh [BUILD_DIR]
# BENCH_OUT keeps Google Benchmark's JSON, so a write-up's timings can be checked against a committed file.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
cmake --build "$BUILD" --target bench_analysis sassx_samples_big
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -cubin -O3 -arch=sm_90 -o "$BUILD/bench_scan_10k.sm_90.cubin" "$ROOT/bench/analysis/scan_10k.cu"
"$BUILD/bench/analysis/bench_analysis" --cubin="$BUILD/samples/big_unrolled.sm_90.cubin" \
  --cubin="$BUILD/bench_scan_10k.sm_90.cubin" --cubin="$BUILD/samples/hgemm_leakyrelu.sm_90.cubin" \
  --benchmark_min_time=1 ${BENCH_OUT:+--benchmark_out="$BENCH_OUT" --benchmark_out_format=json}
