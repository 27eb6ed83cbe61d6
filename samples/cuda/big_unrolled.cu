// sassx sample: a >50k-instruction kernel (model-building benchmark); body in unrolled_scan.cuh.
// 1472 unrolled steps of an 8-state recurrence (~36 SASS instructions a step).  sm_90 only.
#define SASSX_UNROLL_STEPS 1472
#include "unrolled_scan.cuh"

extern "C" __global__ void __launch_bounds__(256)
big_unrolled(const float* __restrict__ x, const float* __restrict__ coef, float* __restrict__ y,
             int channels, int steps) {
    SASSX_SCAN_PROLOGUE
    SASSX_SCAN_CHUNK16(0)    // steps    0..1023
    SASSX_SCAN_CHUNK4(1024)  // steps 1024..1279
    SASSX_SCAN_CHUNK(1280)   // steps 1280..1343
    SASSX_SCAN_CHUNK(1344)   // steps 1344..1407
    SASSX_SCAN_CHUNK(1408)   // steps 1408..1471
}
