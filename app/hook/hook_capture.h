#pragma once
// A kernel's first launch, recorded: its parameters classified (inject::classifyParams), every
// allocation they point into copied to the host before the launch (zlib, with its SHA-256) and hashed
// after it, and a launch spec beside the cubin, so that `sassx-cli tune` replays the launch on the
// values the program had. The GPU is synchronised around it, once per kernel.
#include "app/hook/hook_modules.h"
#include "core/inject/driver_spec.h"

#include <optional>
#include <string>

namespace sassx::hook {

// A launch as the hook sees it, from the driver's or the runtime's parameters.
struct LaunchArgs
{
    inject::LaunchGeometry geometry;
    CUstream stream = nullptr;
    void** kernelParams = nullptr; // one pointer per parameter value
    void** extra = nullptr;        // or the packed buffer (CU_LAUNCH_PARAM_BUFFER_POINTER)
};

struct PendingCapture
{
    ImagePtr image;
    std::string symbol, base; // base: the file names' stem
    inject::ClassifiedLaunch launch;
    inject::LaunchGeometry geometry;
    std::vector<inject::AllocationSnapshot> snapshots;
};

class LaunchCapture
{
public:
    LaunchCapture(std::string dir, uint64_t maxSnapshotBytes, const DriverApi& api)
        : m_dir(std::move(dir)), m_maxBytes(maxSnapshotBytes), m_api(api)
    {
    }

    // Before the launch: nullopt with `skip` set when the kernel cannot be recorded.
    std::optional<PendingCapture> before(const ImagePtr& image, const std::string& symbol, CUfunction f,
                                         const LaunchArgs& args, std::string& skip);
    // After it: the spec file's name (relative to the directory), or "" with `problem` set.
    std::string after(PendingCapture& pending, std::string& problem);

    const std::string& dir() const { return m_dir; }

private:
    std::string m_dir;
    uint64_t m_maxBytes;
    const DriverApi& m_api;
    int m_count = 0;

    std::optional<std::vector<KernelParam>> layout(const ImagePtr& image, const std::string& symbol,
                                                   CUfunction f, std::string& why) const;
    bool copy(const inject::AllocationRange& range, std::vector<uint8_t>& out, std::string& why) const;
};

} // namespace sassx::hook
