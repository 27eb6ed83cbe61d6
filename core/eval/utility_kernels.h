#pragma once
// Two helper kernels the worker loads next to the kernels it measures, written in PTX so that the
// driver compiles them for whatever GPU it runs on (no nvcc at build time, no arch list):
//  - sassx_l2_flush(buf, words, sink): reads `words` 32-bit words with L2-cached loads, evicting
//    everything else from the L2 and leaving it clean (dirty lines are written back now);
//  - sassx_words_differ(a, b, words, flag): sets *flag = 1 if any word of a and b differs.
// Both use a grid-stride loop, so any grid size is correct.
namespace sassx::eval {

const char* utilityKernelsPtx();

} // namespace sassx::eval
