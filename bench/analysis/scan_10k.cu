// Benchmark kernel: ~10,000 SASS instructions (320 unrolled steps of the sample scan), for the
// legal-move enumeration target (issue 3). Built by bench/analysis/run.sh, not by the default build.
#define SASSX_UNROLL_STEPS 320
#include "../../samples/cuda/unrolled_scan.cuh"

extern "C" __global__ void __launch_bounds__(256)
    scan_10k(const float* __restrict__ x, const float* __restrict__ coef, float* __restrict__ y, int channels,
             int steps)
{
    SASSX_SCAN_PROLOGUE
    SASSX_SCAN_CHUNK4(0)
    SASSX_SCAN_CHUNK(256)
}
