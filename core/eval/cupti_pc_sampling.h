#pragma once
// Samples one kernel launch with CUPTI's PC Sampling API (cupti_pcsampling.h) and returns where its
// warps waited, per instruction offset (stall_profile.h). Runs only in the worker's sampling child
// (`sassx-worker --pcsample-oneshot`), never in a worker that times candidates and never together
// with the range profiler: one profiler per process. libcupti is dlopen'ed (cupti_profiler.h's
// search list); CUPTI 12.4 or newer is required (the per-PC record's layout changed there).
//
// Order (docs/stalls.md): enable sampling on the context, configure it (continuous collection with
// start/stop control, all stall reasons), then load the module, time a few launches unsampled, and
// bracket exactly one launch with start/stop; then drain the records, keeping those of this cubin
// (CRC) and kernel.
#include "core/common/result.h"
#include "core/eval/stall_profile.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sassx::eval {

struct PcSampleRequest
{
    void* context = nullptr; // CUcontext, current on this thread
    const std::vector<uint8_t>* cubin = nullptr;
    std::string kernel;
    int periodExponent = 0; // 5..31; 0 = chosen from the unsampled duration
    uint64_t targetSamples = 250000;
    int multiprocessors = 0;
    int clockKHz = 0;
    FigureSource source;
    std::function<Status()> load;                  // loads the module (called after Enable)
    std::function<Result<double>()> timeUnsampled; // µs per launch, median of a few
    std::function<Status()> beforeLaunch;          // inputs restored, outputs poisoned
    std::function<Result<double>()> launchTimed;   // one launch, synchronized; its µs
    std::function<bool()> contextLost;             // after a fault no CUPTI call is safe
};

Result<StallProfile> sampleLaunch(const PcSampleRequest& request);

} // namespace sassx::eval
