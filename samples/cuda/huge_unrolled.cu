// sassx sample: a >100k-instruction kernel (GUI benchmark); body in unrolled_scan.cuh.
// 2880 unrolled steps of an 8-state recurrence (~36 SASS instructions a step).  sm_90 only.
#define SASSX_UNROLL_STEPS 2880
#include "unrolled_scan.cuh"

extern "C" __global__ void __launch_bounds__(256)
huge_unrolled(const float* __restrict__ x, const float* __restrict__ coef, float* __restrict__ y,
              int channels, int steps) {
    SASSX_SCAN_PROLOGUE
    SASSX_SCAN_CHUNK16(0)     // steps    0..1023
    SASSX_SCAN_CHUNK16(1024)  // steps 1024..2047
    SASSX_SCAN_CHUNK4(2048)   // steps 2048..2303
    SASSX_SCAN_CHUNK4(2304)   // steps 2304..2559
    SASSX_SCAN_CHUNK4(2560)   // steps 2560..2815
    SASSX_SCAN_CHUNK(2816)    // steps 2816..2879
}
