#pragma once
// What the hook saw of every kernel in this process: its launches, their GPU times (CUDA events around
// each launch, read back without waiting while the program runs), which cubin ran, whether it was
// recorded or why not. Written at exit as <pid>.driver.json (the capture's listing) and, when timing,
// <pid>.driver.times.json in the launch timer's format, so that `sassx_capture time` reads driver
// kernels exactly as it reads Triton's.
#include "app/hook/hook_modules.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace sassx::hook {

struct KernelEntry
{
    std::string symbol;
    ImagePtr image;
    std::string ranSha256; // the cubin that ran: the image's, or the tuned one's
    int64_t launches = 0, graphCaptured = 0, timedDropped = 0;
    std::vector<float> timesUs;
    std::string spec, skipped; // the spec written at its first launch, or why none
};

// The key the capture, the tuned manifest and the timer share for a kernel captured at the driver.
std::string kernelKey(const std::string& imageSha256, const std::string& symbol);

class Ledger
{
public:
    explicit Ledger(const DriverApi& api) : m_api(api) {}

    // The entry for a launch (created on first sight); the pointer stays valid.
    KernelEntry* entry(const ImagePtr& image, const std::string& symbol, const std::string& ranSha256);
    std::mutex& mutex() { return m_mutex; }

    // Events around one launch: `begin` before it, `end` after it, on its stream.
    CUevent begin(CUstream stream);
    void end(KernelEntry* e, CUevent start, CUstream stream);
    // Reads back finished launches; with `wait`, all of them.
    void drain(bool wait);

    void countGraphLaunch() { ++m_graphLaunches; }
    // Driver launch calls the runtime made inside a runtime launch: whether this driver reports them is
    // what decides if a launch record can be swapped under cudart (the listing says).
    void countRuntimeInnerLaunch() { ++m_runtimeInner; }
    void note(const std::string& problem);

    void writeListing(const std::string& dir, const std::string& cupti, const ModuleRegistry& modules);
    void writeTimes(const std::string& dir);

private:
    struct Pending
    {
        KernelEntry* entry;
        CUevent start, end;
    };
    const DriverApi& m_api;
    std::mutex m_mutex;
    std::map<std::string, KernelEntry> m_entries; // by key + cubin that ran
    std::deque<Pending> m_pending;
    std::vector<CUevent> m_free;
    int64_t m_graphLaunches = 0;
    std::atomic<int64_t> m_runtimeInner{0};
    std::vector<std::string> m_problems;

    CUevent event();
};

} // namespace sassx::hook
