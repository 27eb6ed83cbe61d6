#pragma once
// One GPU as the worker holds it: primary context, a non-blocking stream, a pool of timing events,
// an L2 flush buffer, and the loading/launching/timing of kernels. Lives in the worker process only.
#include "core/common/result.h"
#include "core/eval/cuda_driver.h"
#include "core/eval/launch_config.h"
#include "core/eval/launch_spec.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sassx::eval {

struct DeviceInfo
{
    int ordinal = 0;
    std::string name;
    int sm = 0; // 90 for compute capability 9.0
    int multiprocessors = 0;
    int clockKHz = 0; // the SM clock the driver reports (boost), for sampling-period choices
    int l2Bytes = 0;
    int maxSharedOptin = 0;
};

// A failed step, already phrased for the protocol: status "failed" (candidate broken, context fine)
// or "fault" (sticky error: the context is gone and the worker must exit).
struct Failure
{
    std::string status;
    std::string kind;
    std::string message;
};

struct KernelHandle
{
    cu::Module module = nullptr;
    cu::Function function = nullptr;
    cu::Graph graph = nullptr;
    cu::GraphExec graphExec = nullptr;
};

class GpuContext
{
public:
    static sassx::Result<std::unique_ptr<GpuContext>> open(int ordinal);
    ~GpuContext();
    GpuContext(const GpuContext&) = delete;
    GpuContext& operator=(const GpuContext&) = delete;

    const DeviceInfo& info() const { return m_info; }
    const cu::Driver& driver() const { return *m_drv; }
    cu::Stream stream() const { return m_stream; }
    cu::Context handle() const { return m_ctx; }
    bool lost() const { return m_lost; }

    // Turns a driver result into a Failure (nullopt on success); sticky errors mark the context lost.
    std::optional<Failure> check(cu::Result r, const std::string& what);

    // Device memory freed with the context (or by release()).
    std::optional<Failure> alloc(size_t bytes, cu::DevicePtr& out);
    void release(cu::DevicePtr p);

    // The launch configuration shared by the baseline and every candidate.
    void setLaunch(const LaunchSpec& spec, std::vector<std::vector<uint8_t>> argBytes);

    // cuModuleLoadData + cuModuleGetFunction + parameter check + > 48 KiB shared opt-in + the
    // non-portable cluster size a cluster of more than 8 blocks needs.
    std::optional<Failure> load(const std::vector<uint8_t>& cubin, KernelHandle& out);
    void unload(KernelHandle& k);
    // The one launch of the spec's kernel (LaunchPlan: with its cluster when it has one); every run,
    // timed, checked, profiled or sampled, and every graph, goes through it.
    std::optional<Failure> launch(const KernelHandle& k);
    std::optional<Failure> synchronize(const std::string& what);

    // Captures `launches` back-to-back launches of the kernel into a graph (for short kernels,
    // whose launch gaps would otherwise dominate).
    std::optional<Failure> buildGraph(KernelHandle& k, int launches);

    // One timing sample: `launches` launches, averaged, in microseconds per launch. Events mode
    // times each launch alone so that the optional L2 flush before it stays outside the timing.
    std::optional<Failure> timeSample(const KernelHandle& k, int launches, bool useGraph, bool l2Flush,
                                      double& usPerLaunch);

    // D2D copy / poison fill on the context's stream.
    std::optional<Failure> copy(cu::DevicePtr dst, cu::DevicePtr src, size_t bytes);
    std::optional<Failure> fill(cu::DevicePtr dst, uint8_t value, size_t bytes);
    // Whether every pair holds the same bytes, compared on the device (no download). `compared` is
    // false when the comparison kernel is unavailable or a size is not a multiple of 4 bytes: the
    // caller then compares on the host.
    struct DevicePair
    {
        cu::DevicePtr a = 0;
        cu::DevicePtr b = 0;
        size_t bytes = 0;
    };
    std::optional<Failure> sameBytes(const std::vector<DevicePair>& pairs, bool& compared, bool& same);

    // Reads twice the L2's size with a small kernel, so nothing a previous launch left there
    // survives and the L2 is left clean: dirty lines are written back now, not during the next
    // launch (a memset "flush" leaves the L2 full of dirty lines whose write-back the next kernel
    // pays for; CUPTI counted 15-20 MB of extra DRAM writes from it). Falls back to a memset if the
    // flush kernel cannot be loaded. `flushMethod()` says which one ran.
    std::optional<Failure> flushL2();
    const char* flushMethod() const { return m_flushFn ? "read" : "memset"; }

private:
    GpuContext() = default;
    const cu::Driver* m_drv = nullptr;
    DeviceInfo m_info;
    cu::Device m_device = 0;
    cu::Context m_ctx = nullptr;
    cu::Stream m_stream = nullptr;
    std::vector<cu::Event> m_events;
    cu::DevicePtr m_flush = 0;
    size_t m_flushBytes = 0;
    void loadUtilityKernels();
    bool m_utilityTried = false;
    cu::Module m_utilityModule = nullptr;
    cu::Function m_flushFn = nullptr;
    cu::Function m_differFn = nullptr;
    cu::DevicePtr m_scratch = 0; // [0]: comparison flag, [1]: the flush kernel's sink
    std::vector<cu::DevicePtr> m_allocations;
    bool m_lost = false;

    const LaunchSpec* m_spec = nullptr;
    LaunchSpec m_specCopy;
    LaunchPlan m_plan;
    std::vector<std::vector<uint8_t>> m_argBytes;
    std::vector<void*> m_args;
};

} // namespace sassx::eval
