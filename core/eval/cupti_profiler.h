#pragma once
// Hardware metrics of one kernel launch through CUPTI's range profiler and profiler host API (the
// interfaces Nsight Compute itself is built on), inside the worker process. libcupti is dlopen'ed
// here and nowhere else: the GUI, the CLI and CI never load it.
//
// Ranges are automatic (one per kernel launch, so a range is exactly the kernel) and replay is ours
// (user replay): the metrics usually need several hardware passes, and before each pass the caller
// restores the inputs, poisons the outputs and flushes the L2 (outside the profiled pass), so every
// pass sees the same launch — what ncu's kernel replay with cache control does.
#include "core/common/result.h"
#include "core/eval/eval_result.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace sassx::eval {

// Where libcupti is looked for: $SASSX_CUPTI alone when set (a file); otherwise libcupti.so* in
// $CUDA_HOME/{extras/CUPTI/lib64,lib64,lib}, /usr/local/cuda/{extras/CUPTI/lib64,lib64,lib}, the
// nvidia-cuda-cupti wheel's folder ($SASSX_CUPTI_WHEEL_DIR or the default python's site-packages),
// then the loader's own search ("libcupti.so.13", ".12", "libcupti.so").
std::vector<std::string> cuptiSearchList();

// dlopen()s the first library of cuptiSearchList() that loads: its handle and path, or the list of
// what was tried and why each failed. The range profiler and PC sampling both bind through it.
Result<std::pair<void*, std::string>> openCuptiLibrary();

struct CuptiLibrary
{
    std::string path;    // what was loaded
    std::string missing; // entry points the library lacks (comma separated); empty if complete
    bool complete() const { return missing.empty(); }
};

// Loads libcupti once per process and resolves every entry point the range profiler needs. Fails
// with the list of places tried when no library loads, or with the missing names when it is older
// than CUDA 12.6 (no range profiler).
Result<CuptiLibrary> loadCupti();

struct ProfileRequest
{
    void* context = nullptr; // the CUcontext the launch runs in (current on this thread)
    int deviceIndex = 0;     // CUDA ordinal within this process
    std::vector<std::string> metrics;
    FigureSource source; // {device, "cupti"}
    // Called before every pass: put the launch's memory back as it was and flush the L2.
    std::function<Status()> beforePass;
    // Launches the kernel once (asynchronously is fine: each pass synchronizes the context).
    std::function<Status()> launch;
    std::function<Status()> synchronize;
    int maxPasses = 256;
};

struct ProfileOutcome
{
    std::vector<MetricValue> values; // in the order of ProfileRequest::metrics
    int passes = 0;
    std::string chip; // e.g. "GH100"
};

// Profiles one launch. A metric CUPTI does not know for this chip fails the request with its name.
Result<ProfileOutcome> profileLaunch(const ProfileRequest& request);

} // namespace sassx::eval
