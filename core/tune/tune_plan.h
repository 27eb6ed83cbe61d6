#pragma once
// What `sassx-cli tune DIR` tunes (docs/tune.md): the kernels of a capture (DIR/capture.json, written by
// the capture tool with each kernel's share of the program's GPU time) or of a plain directory of launch
// specs beside their cubins (every *.launch.json, equal shares), in a fixed order that --task-index
// counts in; and how a total budget is split over them.
#include "core/common/result.h"

#include <string>
#include <vector>

namespace sassx::tune {

struct TuneKernel
{
    std::string name;     // unique in the plan: the capture's key, or the spec's file stem
    std::string specPath; // absolute
    std::string cubinPath;
    double timeShare = 0.0; // of the program's GPU time (capture), or 1/n (a spec directory)
    double gpuTimeUs = 0.0; // capture only
    int64_t launches = 0;   // capture only
    // Where a verified best is written back: the capture's entry (absolute), or the spec's "triton"
    // block's cache entries resolved against the Triton cache directory (tritonCacheRoot()).
    std::vector<std::string> tritonEntries;
};

struct SkippedKernel
{
    std::string name;
    std::string reason; // one line
};

struct TunePlan
{
    std::string dir;                  // absolute
    bool fromCapture = false;         // DIR/capture.json; otherwise a spec directory
    std::string sharesNote;           // "time shares from the capture" / "equal shares: no capture"
    std::vector<std::string> program; // the captured argv
    std::string device, date;         // of the capture
    double totalGpuTimeUs = 0.0;
    std::vector<TuneKernel> kernels;
    std::vector<SkippedKernel> skipped;
};

// Reads DIR/capture.json when present, else the *.launch.json files of DIR (not recursive, by name).
// A kernel whose spec or cubin cannot be read is skipped with the reason; an unreadable DIR or
// capture.json is an error.
Result<TunePlan> discoverPlan(const std::string& dir);

// Keeps only the named kernels, in the plan's order; an unknown name is an error naming it.
Status selectKernels(TunePlan& plan, const std::vector<std::string>& names);

// $TRITON_CACHE_DIR, else ~/.triton/cache (where Triton keeps its cache entries).
std::string tritonCacheRoot();

// Splits `totalSeconds` over the plan's kernels: each gets a floor of a quarter of an equal split, the
// rest goes by time share, so a kernel with a tiny share still gets a real search and the parts add up
// to the total (docs/tune.md).
std::vector<double> splitBudget(const TunePlan& plan, double totalSeconds);

} // namespace sassx::tune
