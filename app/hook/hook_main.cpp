// libsassx_hook.so: the CUPTI injection library that sees every module a CUDA program loads and every
// kernel it launches, whatever produced it (CUDA_INJECTION64_PATH, NVIDIA's documented way to load such
// a tool into any CUDA program at cuInit). Set by `python -m sassx_capture`; its environment says what
// to do, each part independent:
//   SASSX_HOOK_CAPTURE=DIR   record each kernel's first launch into DIR (launch spec, cubin, values) and
//                            list every kernel with its origin, launches and GPU time at exit
//   SASSX_CAPTURE_TIME_DIR=DIR  time launches (CUDA events) into DIR/<pid>.driver.times.json;
//                            SASSX_HOOK_TIME_KEYS (JSON list of "<image sha256>/<symbol>") narrows it
//   SASSX_TUNED=DIR          run DIR's tuned kernels in place of the originals (DIR/manifest.json)
// Without any of them the hook subscribes to nothing and the program runs untouched.
#include "app/hook/hook_capture.h"
#include "app/hook/hook_ledger.h"
#include "app/hook/hook_substitute.h"

// cupti.h (through hook_api.h) brings every API call's parameter record (generated_cuda_meta.h,
// generated_cuda_runtime_api_meta.h).
#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

namespace sassx::hook {
namespace {

struct Hook
{
    DriverApi driver;
    CuptiApi cupti;
    std::string cuptiPath;
    ModuleRegistry modules;
    std::unique_ptr<Ledger> ledger;
    std::unique_ptr<LaunchCapture> capture;
    std::unique_ptr<Substituter> substituter;
    std::string timeDir;
    std::set<std::string> timeKeys; // empty: every kernel
    std::mutex unresolvedMutex;
    std::map<std::string, ImagePtr> unresolved; // placeholder images of kernels whose module is unknown
    std::set<std::string> firstSeen;            // kernels whose first launch was recorded or skipped
};

Hook* g_hook = nullptr;

// The hook's own driver calls must not re-enter it.
thread_local int t_inHook = 0;
thread_local const void* t_loadImage = nullptr;   // the image of the driver load call in progress
thread_local const void* t_runtimeFunc = nullptr; // the host stub of the runtime launch in progress
thread_local ImagePtr t_lastLoaded;
thread_local int t_runtimeDepth = 0;
// Set while the hook asks a runtime for a function: a module the runtime loads lazily for the answer is
// still the program's, and registered (the hook's own loads, a tuned cubin's, are not).
thread_local bool t_takeLoads = false;

struct LaunchState
{
    bool active = false;
    ImagePtr image;
    std::string symbol, ranSha256, skipped;
    CUevent start = nullptr;
    CUstream stream = nullptr;
    std::optional<PendingCapture> pending;
};
thread_local LaunchState t_launch;

struct Guard
{
    Guard() { ++t_inHook; }
    ~Guard() { --t_inHook; }
};

void say(const std::string& line)
{
    std::fprintf(stderr, "sassx: %s\n", line.c_str());
}

// The library that made a driver launch of a kernel whose module is unknown.
inject::ModuleOrigin callerOrigin()
{
    std::string file = callingLibrary();
    if (file.empty()) return {inject::OriginKind::Jit, {}};
    return {inject::OriginKind::Library, std::move(file)};
}

// A kernel whose module is unknown keeps one placeholder image per name; its origin (the library of a
// runtime launch's host stub, else the launching library) still tells a closed-source library's kernel, whose
// skip is then the license.
ImagePtr unresolvedImage(Hook& h, const std::string& symbol, const std::string& why, const void* stub)
{
    std::lock_guard lock(h.unresolvedMutex);
    ImagePtr& p = h.unresolved[symbol];
    if (!p) {
        // Once per name: walking the stack (callerOrigin) costs more than a launch should.
        const inject::ModuleOrigin origin = stub ? originOf(stub) : callerOrigin();
        auto image = std::make_shared<LoadedImage>();
        image->problem = why;
        image->origin = origin;
        if (origin.kind == inject::OriginKind::Library)
            image->closedLibrary = inject::closedSourceLibrary(origin.file).value_or("");
        p = image;
    }
    return p;
}

// One launch, from either API: what it runs, where, with which arguments; `swap` is where another
// function can be put in its place (the driver call's parameter record), null when there is none.
struct LaunchView
{
    CUfunction f = nullptr;
    const char* symbol = nullptr;
    LaunchArgs args;
    CUfunction* swap = nullptr;
    const void* stub = nullptr; // a runtime launch's host stub
    // A CUDA 12+ runtime launch's function argument: a context-less kernel (CUkernel) can take the
    // stub's place there (cudaLaunchKernel's documented use of cudaLibraryGetKernel's handle).
    const void** runtimeSwap = nullptr;
};

void enter(Hook& h, LaunchView v)
{
    Guard guard;
    t_launch = {};
    std::string symbol = v.symbol ? v.symbol : "";
    if (symbol.empty() && v.f && h.driver.funcGetName) {
        const char* name = nullptr;
        if (h.driver.funcGetName(&name, v.f) == CUDA_SUCCESS && name) symbol = name;
    }
    if (symbol.empty()) return;
    std::string why;
    ImagePtr image = h.substituter && v.f ? h.substituter->originalOf(v.f) : nullptr;
    if (!image && v.f) image = h.modules.ofFunction(h.driver, v.f, symbol, why);
    if (!image && !v.f) { // a runtime launch whose function was not resolved: by name alone
        for (const ImagePtr& i : h.modules.all())
            if (i->cubin && i->cubin->findKernel(symbol)) {
                if (image) {
                    image = nullptr;
                    why = "several loaded modules hold a kernel of this name";
                    break;
                }
                image = i;
            }
        if (!image && why.empty()) why = "no loaded module holds a kernel of this name";
    }
    if (!image) image = unresolvedImage(h, symbol, why, v.stub);
    std::string ran;
    if (h.substituter && v.swap && !image->sha256.empty())
        if (CUfunction tuned = h.substituter->function(image, symbol, ran)) {
            *v.swap = tuned;
            t_launch.ranSha256 = ran;
        }
    if (h.substituter && v.runtimeSwap && !image->sha256.empty())
        if (CUkernel tuned = h.substituter->kernel(image, symbol, ran)) {
            *v.runtimeSwap = reinterpret_cast<const void*>(tuned);
            t_launch.ranSha256 = ran;
        }
    std::lock_guard lock(h.ledger->mutex());
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    h.driver.streamIsCapturing(v.args.stream, &capturing);
    if (capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
        // A launch into a CUDA graph runs later, without a launch call.
        ++h.ledger->entry(image, symbol, image->sha256)->graphCaptured;
        return;
    }
    t_launch.image = image;
    t_launch.symbol = symbol;
    t_launch.stream = v.args.stream;
    t_launch.active = true;
    if (h.capture && h.firstSeen.insert(kernelKey(image->sha256, symbol)).second) {
        if (!image->closedLibrary.empty())
            t_launch.skipped = inject::closedSourceReason(image->closedLibrary);
        else if (!image->problem.empty())
            t_launch.skipped = image->problem;
        else
            t_launch.pending = h.capture->before(image, symbol, v.f, v.args, t_launch.skipped);
    }
    // A capture times every launch: its listing gives each kernel's share of the program's GPU time.
    if (h.capture ||
        (!h.timeDir.empty() && (h.timeKeys.empty() || h.timeKeys.count(kernelKey(image->sha256, symbol)))))
        t_launch.start = h.ledger->begin(v.args.stream);
}

void leave(Hook& h)
{
    Guard guard;
    if (!t_launch.active) return;
    std::lock_guard lock(h.ledger->mutex());
    // The cubin that ran: the tuned one when it was put in the original's place, here or inside the
    // runtime's launch (swapInsideRuntime), else the image's own.
    const std::string ran = t_launch.ranSha256.empty() ? t_launch.image->sha256 : t_launch.ranSha256;
    KernelEntry* e = h.ledger->entry(t_launch.image, t_launch.symbol, ran);
    ++e->launches;
    if (t_launch.start) h.ledger->end(e, t_launch.start, t_launch.stream);
    if (!t_launch.skipped.empty()) e->skipped = t_launch.skipped;
    if (t_launch.pending) {
        std::string problem;
        e->spec = h.capture->after(*t_launch.pending, problem);
        if (e->spec.empty()) e->skipped = problem;
    }
    t_launch = {};
}

inject::LaunchGeometry geometry(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                size_t shared)
{
    inject::LaunchGeometry g;
    g.grid = {gx, gy, gz};
    g.block = {bx, by, bz};
    g.dynamicShared = uint32_t(shared);
    return g;
}

void clusterFrom(const CUlaunchAttribute* attrs, unsigned n, inject::LaunchGeometry& g)
{
    for (unsigned i = 0; attrs && i < n; ++i)
        if (attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            g.cluster = {attrs[i].value.clusterDim.x, attrs[i].value.clusterDim.y,
                         attrs[i].value.clusterDim.z};
}

// The runtime entry points of the CUDA runtime a host stub was registered with.
struct RuntimeApi
{
    using GetFunc = cudaError_t (*)(cudaFunction_t*, const void*);
    using LastError = cudaError_t (*)();
    using Version = cudaError_t (*)(int*);
    GetFunc getFunc = nullptr;
    LastError peek = nullptr, take = nullptr;
    int version = 0; // cudaRuntimeGetVersion, 0 when unknown
};

RuntimeApi runtimeOf(const void* hostStub)
{
    // A process may hold several CUDA runtimes (PyTorch's, CuPy's, JAX's, a library's static one): only
    // the one that registered the stub knows it, and that is the one the stub's library links. Its
    // dlopen handle searches the library and then its dependencies.
    static std::mutex mutex;
    static std::map<std::string, RuntimeApi> byFile;
    Dl_info info{};
    if (!hostStub || !dladdr(hostStub, &info) || !info.dli_fname) return {};
    std::lock_guard lock(mutex);
    auto [it, inserted] = byFile.try_emplace(info.dli_fname);
    if (inserted) {
        // The main program is not dlopen-able by its path: its handle is dlopen(nullptr).
        void* handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (!handle) handle = dlopen(nullptr, RTLD_LAZY);
        if (handle) {
            it->second.getFunc = reinterpret_cast<RuntimeApi::GetFunc>(dlsym(handle, "cudaGetFuncBySymbol"));
            it->second.peek = reinterpret_cast<RuntimeApi::LastError>(dlsym(handle, "cudaPeekAtLastError"));
            it->second.take = reinterpret_cast<RuntimeApi::LastError>(dlsym(handle, "cudaGetLastError"));
            if (auto v = reinterpret_cast<RuntimeApi::Version>(dlsym(handle, "cudaRuntimeGetVersion")))
                v(&it->second.version);
        }
    }
    return it->second;
}

CUfunction runtimeFunction(const RuntimeApi& rt, const void* hostStub)
{
    // The program checks the runtime's last error after its launch: asking may not leave one behind.
    // With an error already pending the hook does not ask (clearing ours would clear the program's);
    // a failed answer is taken back, which leaves the state it found. A library with a static runtime
    // exports none of these: resolved by name instead (the caller falls back).
    if (!rt.getFunc || !rt.peek || !rt.take || rt.peek() != cudaSuccess) return nullptr;
    cudaFunction_t f = nullptr;
    t_takeLoads = true;
    const cudaError_t rc = rt.getFunc(&f, hostStub);
    t_takeLoads = false;
    if (rc != cudaSuccess) {
        rt.take();
        return nullptr;
    }
    return reinterpret_cast<CUfunction>(f);
}

CUfunction* swapSlot(CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    void* params = const_cast<void*>(cb->functionParams);
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        return &static_cast<cuLaunchKernel_params*>(params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return &static_cast<cuLaunchCooperativeKernel_params*>(params)->f;
    default:
        return &static_cast<cuLaunchKernelEx_params*>(params)->f;
    }
}

void swapInsideRuntime(Hook& h, CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    Guard guard;
    CUfunction* slot = swapSlot(cbid, cb);
    std::string symbol = cb->symbolName ? cb->symbolName : "", why, ran;
    if (symbol.empty() || !*slot) return;
    if (ImagePtr image = h.modules.ofFunction(h.driver, *slot, symbol, why))
        if (CUfunction tuned = h.substituter->function(image, symbol, ran)) {
            *slot = tuned;
            t_launch.ranSha256 = ran;
        }
}

void onDriverLaunch(Hook& h, CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    if (t_runtimeDepth > 0) {
        if (cb->callbackSite == CUPTI_API_ENTER) h.ledger->countRuntimeInnerLaunch();
        // The runtime launch around it is counted, timed and recorded at the runtime's level; here only
        // the tuned function can take the original's place.
        if (cb->callbackSite == CUPTI_API_ENTER && h.substituter) swapInsideRuntime(h, cbid, cb);
        return;
    }
    if (cb->callbackSite == CUPTI_API_EXIT) return leave(h);
    LaunchView v;
    v.symbol = cb->symbolName;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        auto* p = static_cast<cuLaunchKernel_params*>(const_cast<void*>(cb->functionParams));
        v.f = p->f;
        v.swap = &p->f;
        v.args = {geometry(p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ,
                           p->sharedMemBytes),
                  p->hStream, p->kernelParams, p->extra};
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        auto* p = static_cast<cuLaunchCooperativeKernel_params*>(const_cast<void*>(cb->functionParams));
        v.f = p->f;
        v.swap = &p->f;
        v.args = {geometry(p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ,
                           p->sharedMemBytes),
                  p->hStream, p->kernelParams, nullptr};
        break;
    }
    default: { // cuLaunchKernelEx
        auto* p = static_cast<cuLaunchKernelEx_params*>(const_cast<void*>(cb->functionParams));
        const CUlaunchConfig* c = p->config;
        if (!c) return; // the driver refuses it
        v.f = p->f;
        v.swap = &p->f;
        v.args = {geometry(c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                           c->sharedMemBytes),
                  c->hStream, p->kernelParams, p->extra};
        clusterFrom(c->attrs, c->numAttrs, v.args.geometry);
    }
    }
    enter(h, v);
}

void onRuntimeLaunch(Hook& h, CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    if (cb->callbackSite == CUPTI_API_EXIT) {
        leave(h);
        --t_runtimeDepth;
        t_runtimeFunc = nullptr;
        return;
    }
    ++t_runtimeDepth;
    LaunchView v;
    v.symbol = cb->symbolName;
    const void* stub = nullptr;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060) {
        auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(cb->functionParams);
        const cudaLaunchConfig_t* c = p->config;
        if (!c) return; // the runtime refuses it; the exit callback finds nothing to close
        stub = p->func;
        v.runtimeSwap = const_cast<const void**>(&const_cast<cudaLaunchKernelExC_v11060_params*>(p)->func);
        v.args = {geometry(c->gridDim.x, c->gridDim.y, c->gridDim.z, c->blockDim.x, c->blockDim.y,
                           c->blockDim.z, c->dynamicSmemBytes),
                  reinterpret_cast<CUstream>(c->stream), p->args, nullptr};
        for (unsigned i = 0; c->attrs && i < c->numAttrs; ++i)
            if (c->attrs[i].id == cudaLaunchAttributeClusterDimension)
                v.args.geometry.cluster = {c->attrs[i].val.clusterDim.x, c->attrs[i].val.clusterDim.y,
                                           c->attrs[i].val.clusterDim.z};
    } else { // cudaLaunchKernel and cudaLaunchCooperativeKernel share their parameter record's layout
        auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(cb->functionParams);
        stub = p->func;
        v.runtimeSwap = const_cast<const void**>(&const_cast<cudaLaunchKernel_v7000_params*>(p)->func);
        v.args = {geometry(p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x, p->blockDim.y,
                           p->blockDim.z, p->sharedMem),
                  reinterpret_cast<CUstream>(p->stream), p->args, nullptr};
    }
    t_runtimeFunc = stub;
    v.stub = stub;
    const RuntimeApi rt = runtimeOf(stub);
    if (rt.version < 12000) v.runtimeSwap = nullptr; // takes host stubs only
    {
        Guard guard;
        v.f = runtimeFunction(rt, stub);
    }
    enter(h, v);
}

void onModuleLoaded(Hook& h, const CUpti_ResourceData* rd)
{
    const auto* md = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
    if (!md || !md->pCubin || md->cubinSize == 0) return;
    inject::ModuleOrigin origin = originOf(md->pCubin);
    if (origin.kind == inject::OriginKind::Jit && t_loadImage) origin = originOf(t_loadImage);
    if (origin.kind == inject::OriginKind::Jit && t_runtimeFunc) origin = originOf(t_runtimeFunc);
    if (origin.kind == inject::OriginKind::Jit) origin.file = callingLibrary();
    t_lastLoaded =
        h.modules.add(reinterpret_cast<const uint8_t*>(md->pCubin), md->cubinSize, std::move(origin));
}

void onDriverCall(Hook& h, CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    const bool entering = cb->callbackSite == CUPTI_API_ENTER;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData:
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx:
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary: {
        // The three records start alike: CUmodule* module, const void* image.
        auto* p = static_cast<const cuModuleLoadData_params*>(cb->functionParams);
        if (entering) {
            t_loadImage = p->image;
            t_lastLoaded = nullptr;
        } else {
            if (t_lastLoaded && p->module && *p->module) h.modules.bindModule(*p->module, t_lastLoaded);
            t_loadImage = nullptr;
        }
        return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData: {
        auto* p = static_cast<const cuLibraryLoadData_params*>(cb->functionParams);
        if (entering) {
            t_loadImage = p->code;
            t_lastLoaded = nullptr;
        } else {
            if (t_lastLoaded && p->library && *p->library) h.modules.bindLibrary(*p->library, t_lastLoaded);
            t_loadImage = nullptr;
        }
        return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction: {
        // The program asks for a function by name: the tuned one is handed back in its place (the
        // caller's own variable is written, so nothing depends on how the driver reads its record).
        auto* p = static_cast<const cuModuleGetFunction_params*>(cb->functionParams);
        if (entering || !h.substituter || !p->hfunc || !*p->hfunc) return;
        if (ImagePtr image = h.modules.ofModule(p->hmod)) {
            Guard guard;
            std::string ran;
            if (CUfunction tuned = h.substituter->function(image, p->name, ran)) *p->hfunc = tuned;
        }
        return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        if (entering) {
            std::lock_guard lock(h.ledger->mutex());
            h.ledger->countGraphLaunch();
        }
        return;
    default:
        return onDriverLaunch(h, cbid, cb);
    }
}

void dispatch(Hook* h, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);

// Nothing may escape into the driver from inside the user's program: a failure of the hook costs the
// hook its work for that call, never the program.
void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data)
{
    Hook* h = g_hook;
    if (!h || (t_inHook > 0 && !(t_takeLoads && domain == CUPTI_CB_DOMAIN_RESOURCE))) return;
    try {
        dispatch(h, domain, cbid, data);
    } catch (const std::exception& e) {
        static std::atomic<bool> said{false};
        if (!said.exchange(true)) say(std::string("the hook skipped a call after an error: ") + e.what());
    } catch (...) {
    }
}

void dispatch(Hook* h, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data)
{
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
            Guard guard;
            onModuleLoaded(*h, static_cast<const CUpti_ResourceData*>(data));
        }
        return;
    }
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return onDriverCall(*h, cbid, cb);
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            std::lock_guard lock(h->ledger->mutex());
            h->ledger->countGraphLaunch();
        }
        return;
    }
    onRuntimeLaunch(*h, cbid, cb);
}

void finish()
{
    Hook* h = g_hook;
    if (!h) return;
    Guard guard;
    try {
        std::lock_guard lock(h->ledger->mutex());
        h->ledger->drain(true);
        if (h->capture) h->ledger->writeListing(h->capture->dir(), h->cuptiPath, h->modules);
        if (!h->timeDir.empty()) h->ledger->writeTimes(h->timeDir);
    } catch (const std::exception& e) {
        say(std::string("the hook could not write its files at exit: ") + e.what());
    }
}

std::string env(const char* name)
{
    const char* v = std::getenv(name);
    return v ? v : "";
}

bool subscribe(Hook& h)
{
    CUpti_SubscriberHandle sub = nullptr;
    CUptiResult rc = h.cupti.subscribe(&sub, callback, nullptr);
    if (rc != CUPTI_SUCCESS) {
        const char* text = "?";
        h.cupti.getResultString(rc, &text);
        say(std::string("hook inactive: CUPTI refused the subscription (") + text +
            "): another tool (a profiler, Nsight) holds it");
        return false;
    }
    h.cupti.enableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    for (CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData,
          CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx, CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary,
          CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData, CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction,
          CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
        h.cupti.enableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
    for (CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000})
        h.cupti.enableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    return true;
}

int initialize()
{
    const std::string captureDir = env("SASSX_HOOK_CAPTURE"), timeDir = env("SASSX_CAPTURE_TIME_DIR"),
                      tunedDir = env("SASSX_TUNED");
    if (captureDir.empty() && timeDir.empty() && tunedDir.empty()) return 1; // asked for nothing
    auto h = std::make_unique<Hook>();
    if (std::string why = loadDriver(h->driver); !why.empty()) {
        say("hook inactive: " + why);
        return 1;
    }
    if (std::string why = loadCupti(h->cupti, h->cuptiPath); !why.empty()) {
        say("hook inactive: " + why);
        return 1;
    }
    h->ledger = std::make_unique<Ledger>(h->driver);
    if (!captureDir.empty()) {
        // Bytes; anything but a plain number keeps the default (8 GiB) rather than stopping the program.
        const std::string max = env("SASSX_HOOK_MAX_SNAPSHOT");
        uint64_t bytes = 8ull << 30;
        if (!max.empty() && max.find_first_not_of("0123456789") == std::string::npos && max.size() < 20)
            bytes = std::stoull(max);
        h->capture = std::make_unique<LaunchCapture>(captureDir, bytes, h->driver);
    }
    h->timeDir = timeDir;
    if (const std::string keys = env("SASSX_HOOK_TIME_KEYS"); !keys.empty()) {
        const auto j = nlohmann::json::parse(keys, nullptr, false);
        if (j.is_array())
            for (const auto& k : j)
                if (k.is_string()) h->timeKeys.insert(k.get<std::string>());
    }
    if (!tunedDir.empty()) {
        auto table = inject::SubstitutionTable::load(tunedDir);
        if (!table)
            say(table.message() + ": every kernel runs its original");
        else if (!table->empty())
            h->substituter = std::make_unique<Substituter>(std::move(*table), h->driver);
    }
    if (!h->capture && h->timeDir.empty() && !h->substituter) return 1;
    g_hook = h.release();
    if (!subscribe(*g_hook)) {
        g_hook = nullptr;
        return 1;
    }
    std::atexit(finish);
    return 1;
}

} // namespace
} // namespace sassx::hook

// Called by the driver at cuInit when this library is CUDA_INJECTION64_PATH.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    static int done = [] {
        try {
            return sassx::hook::initialize();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "sassx: hook inactive: %s\n", e.what());
            return 1;
        }
    }();
    return done;
}
