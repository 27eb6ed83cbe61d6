#include "core/eval/gpu_context.h"

#include "core/eval/utility_kernels.h"

#include <algorithm>

namespace sassx::eval {

sassx::Result<std::unique_ptr<GpuContext>> GpuContext::open(int ordinal)
{
    auto drv = cu::loadDriver();
    if (!drv) return drv.error();
    const cu::Driver& d = *drv.value();
    std::unique_ptr<GpuContext> g(new GpuContext());
    g->m_drv = &d;
    int count = 0;
    if (cu::Result r = d.deviceGetCount(&count); r != cu::kSuccess || count == 0)
        return makeError("no CUDA device visible (" + (r ? d.describe(r) : std::string("0 devices")) + ")");
    if (ordinal < 0 || ordinal >= count)
        return makeError("device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) +
                         " visible)");
    if (cu::Result r = d.deviceGet(&g->m_device, ordinal); r)
        return makeError("cuDeviceGet: " + d.describe(r));
    char name[256] = {};
    d.deviceGetName(name, sizeof name - 1, g->m_device);
    DeviceInfo& info = g->m_info;
    info.ordinal = ordinal;
    info.name = name;
    int major = 0, minor = 0;
    d.deviceGetAttribute(&major, cu::kAttrCcMajor, g->m_device);
    d.deviceGetAttribute(&minor, cu::kAttrCcMinor, g->m_device);
    info.sm = major * 10 + minor;
    d.deviceGetAttribute(&info.multiprocessors, cu::kAttrMultiprocessorCount, g->m_device);
    d.deviceGetAttribute(&info.l2Bytes, cu::kAttrL2CacheSize, g->m_device);
    d.deviceGetAttribute(&info.clockKHz, cu::kAttrClockRate, g->m_device);
    d.deviceGetAttribute(&info.maxSharedOptin, cu::kAttrMaxSharedOptin, g->m_device);
    if (cu::Result r = d.primaryCtxRetain(&g->m_ctx, g->m_device); r)
        return makeError("cuDevicePrimaryCtxRetain: " + d.describe(r));
    if (cu::Result r = d.ctxSetCurrent(g->m_ctx); r) return makeError("cuCtxSetCurrent: " + d.describe(r));
    if (cu::Result r = d.streamCreate(&g->m_stream, cu::kStreamNonBlocking); r)
        return makeError("cuStreamCreate: " + d.describe(r));
    // Twice the L2 so that a flush really evicts everything a previous launch left there.
    g->m_flushBytes = size_t(std::max(info.l2Bytes, 1 << 20)) * 2;
    if (cu::Result r = d.memAlloc(&g->m_flush, g->m_flushBytes); r)
        return makeError("cuMemAlloc (L2 flush buffer): " + d.describe(r));
    return g;
}

GpuContext::~GpuContext()
{
    if (!m_drv) return;
    // After a sticky error every call fails anyway, and the process is about to exit: skip cleanup.
    if (m_lost) return;
    m_drv->streamSynchronize(m_stream);
    for (cu::Event e : m_events)
        m_drv->eventDestroy(e);
    for (cu::DevicePtr p : m_allocations)
        m_drv->memFree(p);
    if (m_flush) m_drv->memFree(m_flush);
    if (m_stream) m_drv->streamDestroy(m_stream);
    if (m_ctx) m_drv->primaryCtxRelease(m_device);
}

std::optional<Failure> GpuContext::check(cu::Result r, const std::string& what)
{
    if (r == cu::kSuccess) return std::nullopt;
    if (cu::isStickyError(r)) {
        m_lost = true;
        return Failure{"fault", "fault", what + ": " + m_drv->describe(r)};
    }
    return Failure{"failed", "error", what + ": " + m_drv->describe(r)};
}

std::optional<Failure> GpuContext::alloc(size_t bytes, cu::DevicePtr& out)
{
    out = 0;
    if (auto f = check(m_drv->memAlloc(&out, std::max<size_t>(bytes, 256)), "cuMemAlloc")) return f;
    m_allocations.push_back(out);
    return std::nullopt;
}

void GpuContext::release(cu::DevicePtr p)
{
    auto it = std::find(m_allocations.begin(), m_allocations.end(), p);
    if (it == m_allocations.end()) return;
    m_allocations.erase(it);
    m_drv->memFree(p);
}

void GpuContext::setLaunch(const LaunchSpec& spec, std::vector<std::vector<uint8_t>> argBytes)
{
    m_specCopy = spec;
    m_spec = &m_specCopy;
    m_plan = launchPlan(spec);
    m_argBytes = std::move(argBytes);
    m_args.clear();
    for (auto& a : m_argBytes)
        m_args.push_back(a.data());
}

std::optional<Failure> GpuContext::load(const std::vector<uint8_t>& cubin, KernelHandle& out)
{
    out = {};
    if (!m_spec) return Failure{"error", "error", "no launch configured (load_baseline first)"};
    if (m_plan.extended() && !m_drv->launchKernelEx)
        return Failure{"failed", "error",
                       "the spec launches with a " + m_plan.clusterText +
                           ", which needs cuLaunchKernelEx (CUDA 11.8 or later); this driver lacks it"};
    cu::Result r = m_drv->moduleLoadData(&out.module, cubin.data());
    if (r) {
        auto f = check(r, "cuModuleLoadData");
        if (f->status != "fault") f->kind = "load_failed";
        return f;
    }
    r = m_drv->moduleGetFunction(&out.function, out.module, m_spec->kernel.c_str());
    if (r) {
        auto f = check(r, "cuModuleGetFunction(" + m_spec->kernel + ")");
        if (f->status != "fault") {
            f->kind = "kernel_not_found";
            f->message =
                "kernel " + m_spec->kernel + " is not in the candidate cubin (" + m_drv->describe(r) + ")";
        }
        unload(out);
        return f;
    }
    // The driver's own view of the parameters, a second check beside the caller's KPARAM_INFO one:
    // a candidate whose rewritten .nv.info lost or resized a parameter must not be launched.
    if (m_drv->funcGetParamInfo) {
        const size_t n = m_spec->params.size();
        for (size_t i = 0; i <= n; ++i) {
            size_t offset = 0, size = 0;
            const cu::Result pr = m_drv->funcGetParamInfo(out.function, i, &offset, &size);
            if (i == n) {
                if (pr == cu::kSuccess) {
                    unload(out);
                    return Failure{"failed", "param_mismatch",
                                   "kernel " + m_spec->kernel + " takes more than the spec's " +
                                       std::to_string(n) + " parameters"};
                }
                break;
            }
            if (pr != cu::kSuccess || size != m_spec->params[i].bankSize()) {
                unload(out);
                return Failure{"failed", "param_mismatch",
                               "parameter " + std::to_string(i) + " (" + m_spec->params[i].name + ") is " +
                                   (pr ? std::string("missing") : std::to_string(size) + " bytes") +
                                   " in the loaded kernel, the spec passes " +
                                   std::to_string(m_spec->params[i].bankSize())};
            }
        }
    }
    if (m_spec->dynamicShared > 48 * 1024) {
        r = m_drv->funcSetAttribute(out.function, cu::kFuncAttrMaxDynamicShared, int(m_spec->dynamicShared));
        if (auto f = check(r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=" +
                                  std::to_string(m_spec->dynamicShared) + ")")) {
            unload(out);
            return f;
        }
    }
    if (m_plan.nonPortableClusterSize) {
        r = m_drv->funcSetAttribute(out.function, cu::kFuncAttrNonPortableClusterSizeAllowed, 1);
        if (auto f = check(r, "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED=1) for a " +
                                  m_plan.clusterText)) {
            unload(out);
            return f;
        }
    }
    return std::nullopt;
}

void GpuContext::unload(KernelHandle& k)
{
    // On a dead context the process is about to exit; driver calls there gain nothing.
    if (m_lost) {
        k = {};
        return;
    }
    if (k.graphExec) m_drv->graphExecDestroy(k.graphExec);
    if (k.graph) m_drv->graphDestroy(k.graph);
    if (k.module) m_drv->moduleUnload(k.module);
    k = {};
}

std::optional<Failure> GpuContext::launch(const KernelHandle& k)
{
    const cu::Result r = launchWithPlan(*m_drv, m_plan, k.function, m_stream, m_args.data());
    if (r == cu::kSuccess) return std::nullopt;
    return check(r, launchEntryPoint(m_plan));
}

void GpuContext::loadUtilityKernels()
{
    if (m_utilityTried) return;
    m_utilityTried = true;
    // Any failure here leaves the memset flush and the host comparison in place rather than failing
    // an evaluation: the kernels only make those faster or cleaner.
    cu::Module mod = nullptr;
    cu::Function flush = nullptr, differ = nullptr;
    cu::DevicePtr scratch = 0;
    if (m_drv->moduleLoadData(&mod, utilityKernelsPtx()) != cu::kSuccess) return;
    if (m_drv->moduleGetFunction(&flush, mod, "sassx_l2_flush") != cu::kSuccess ||
        m_drv->moduleGetFunction(&differ, mod, "sassx_words_differ") != cu::kSuccess ||
        m_drv->memAlloc(&scratch, 8) != cu::kSuccess) {
        m_drv->moduleUnload(mod);
        return;
    }
    m_utilityModule = mod;
    m_flushFn = flush;
    m_differFn = differ;
    m_scratch = scratch;
    m_allocations.push_back(scratch);
}

std::optional<Failure> GpuContext::flushL2()
{
    if (!m_utilityTried) {
        // The flush kernel's store must never fire: it reads zeros.
        if (auto f = fill(m_flush, 0, m_flushBytes)) return f;
        loadUtilityKernels();
    }
    if (!m_flushFn) return fill(m_flush, 0, m_flushBytes);
    unsigned long long words = m_flushBytes / 4;
    cu::DevicePtr sink = m_scratch + 4;
    void* args[] = {&m_flush, &words, &sink};
    const unsigned blocks = unsigned(std::max(1, m_info.multiprocessors)) * 8;
    return check(m_drv->launchKernel(m_flushFn, blocks, 1, 1, 256, 1, 1, 0, m_stream, args, nullptr),
                 "cuLaunchKernel (L2 flush)");
}

std::optional<Failure> GpuContext::sameBytes(const std::vector<DevicePair>& pairs, bool& compared, bool& same)
{
    compared = false;
    same = false;
    if (!m_utilityTried) {
        if (auto f = fill(m_flush, 0, m_flushBytes)) return f;
        loadUtilityKernels();
    }
    if (!m_differFn) return std::nullopt;
    for (const DevicePair& p : pairs)
        if (p.bytes % 4 || p.a % 4 || p.b % 4) return std::nullopt; // host comparison handles odd sizes
    if (auto f = fill(m_scratch, 0, 4)) return f;
    const unsigned blocks = unsigned(std::max(1, m_info.multiprocessors)) * 8;
    for (const DevicePair& p : pairs) {
        cu::DevicePtr a = p.a, b = p.b, flag = m_scratch;
        unsigned long long words = p.bytes / 4;
        void* args[] = {&a, &b, &words, &flag};
        if (auto f =
                check(m_drv->launchKernel(m_differFn, blocks, 1, 1, 256, 1, 1, 0, m_stream, args, nullptr),
                      "cuLaunchKernel (output comparison)"))
            return f;
    }
    if (auto f = synchronize("output comparison")) return f;
    uint32_t differ = 1;
    if (auto f = check(m_drv->memcpyDtoH(&differ, m_scratch, 4), "cuMemcpyDtoH (comparison flag)")) return f;
    compared = true;
    same = differ == 0;
    return std::nullopt;
}

std::optional<Failure> GpuContext::synchronize(const std::string& what)
{
    return check(m_drv->streamSynchronize(m_stream), what);
}

std::optional<Failure> GpuContext::buildGraph(KernelHandle& k, int launches)
{
    if (auto f =
            check(m_drv->streamBeginCapture(m_stream, cu::kCaptureModeThreadLocal), "cuStreamBeginCapture"))
        return f;
    std::optional<Failure> launchFailure;
    for (int i = 0; i < launches && !launchFailure; ++i)
        launchFailure = launch(k);
    cu::Graph g = nullptr;
    auto endFailure = check(m_drv->streamEndCapture(m_stream, &g), "cuStreamEndCapture");
    if (launchFailure) return launchFailure;
    if (endFailure) return endFailure;
    k.graph = g;
    return check(m_drv->graphInstantiate(&k.graphExec, g, 0), "cuGraphInstantiate");
}

std::optional<Failure> GpuContext::timeSample(const KernelHandle& k, int launches, bool useGraph,
                                              bool l2Flush, double& usPerLaunch)
{
    const size_t needed = useGraph ? 2 : size_t(2 * launches);
    while (m_events.size() < needed) {
        cu::Event e = nullptr;
        if (auto f = check(m_drv->eventCreate(&e, 0), "cuEventCreate")) return f;
        m_events.push_back(e);
    }
    if (useGraph) {
        if (l2Flush)
            if (auto f = flushL2()) return f;
        if (auto f = check(m_drv->eventRecord(m_events[0], m_stream), "cuEventRecord")) return f;
        if (auto f = check(m_drv->graphLaunch(k.graphExec, m_stream), "cuGraphLaunch")) return f;
        if (auto f = check(m_drv->eventRecord(m_events[1], m_stream), "cuEventRecord")) return f;
    } else {
        for (int i = 0; i < launches; ++i) {
            if (l2Flush)
                if (auto f = fill(m_flush, uint8_t(i), m_flushBytes)) return f;
            if (auto f = check(m_drv->eventRecord(m_events[2 * i], m_stream), "cuEventRecord")) return f;
            if (auto f = launch(k)) return f;
            if (auto f = check(m_drv->eventRecord(m_events[2 * i + 1], m_stream), "cuEventRecord")) return f;
        }
    }
    if (auto f = synchronize("kernel execution (timing)")) return f;
    double totalMs = 0.0;
    for (size_t i = 0; i < needed; i += 2) {
        float ms = 0.0f;
        if (auto f = check(m_drv->eventElapsedTime(&ms, m_events[i], m_events[i + 1]), "cuEventElapsedTime"))
            return f;
        totalMs += ms;
    }
    usPerLaunch = totalMs * 1000.0 / launches;
    return std::nullopt;
}

std::optional<Failure> GpuContext::copy(cu::DevicePtr dst, cu::DevicePtr src, size_t bytes)
{
    return check(m_drv->memcpyDtoDAsync(dst, src, bytes, m_stream), "cuMemcpyDtoDAsync");
}

std::optional<Failure> GpuContext::fill(cu::DevicePtr dst, uint8_t value, size_t bytes)
{
    return check(m_drv->memsetD8Async(dst, value, bytes, m_stream), "cuMemsetD8Async");
}

} // namespace sassx::eval
