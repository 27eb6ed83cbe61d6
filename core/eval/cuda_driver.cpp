#include "core/eval/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>
#include <optional>

namespace sassx::eval::cu {

bool isStickyError(Result r)
{
    switch (r) {
    case 700: // ILLEGAL_ADDRESS
    case 702: // LAUNCH_TIMEOUT
    case 710: // ASSERT
    case 714: // HARDWARE_STACK_ERROR
    case 715: // ILLEGAL_INSTRUCTION
    case 716: // MISALIGNED_ADDRESS
    case 717: // INVALID_ADDRESS_SPACE
    case 718: // INVALID_PC
    case 719: // LAUNCH_FAILED
    case 214: // ECC_UNCORRECTABLE
    case 999: // UNKNOWN: assume the worst
        return true;
    default:
        return false;
    }
}

std::string Driver::describe(Result r) const
{
    const char* name = nullptr;
    const char* text = nullptr;
    if (getErrorName) getErrorName(r, &name);
    if (getErrorString) getErrorString(r, &text);
    std::string s = name ? name : "CUDA error";
    s += " (" + std::to_string(r) + ")";
    if (text) s += std::string(": ") + text;
    return s;
}

namespace {

template <class F> bool bind(void* lib, F& fn, const char* name, const char* fallback = nullptr)
{
    void* p = dlsym(lib, name);
    if (!p && fallback) p = dlsym(lib, fallback);
    fn = reinterpret_cast<F>(p);
    return p != nullptr;
}

sassx::Result<const Driver*> doLoad()
{
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* why = dlerror();
        return makeError(std::string("no CUDA driver: cannot load libcuda.so.1") +
                         (why ? std::string(" (") + why + ")" : ""));
    }
    static Driver d;
    std::string missing;
    auto need = [&](bool ok, const char* name) {
        if (!ok) missing += std::string(missing.empty() ? "" : ", ") + name;
    };
    need(bind(lib, d.init, "cuInit"), "cuInit");
    need(bind(lib, d.deviceGetCount, "cuDeviceGetCount"), "cuDeviceGetCount");
    need(bind(lib, d.deviceGet, "cuDeviceGet"), "cuDeviceGet");
    need(bind(lib, d.deviceGetName, "cuDeviceGetName"), "cuDeviceGetName");
    need(bind(lib, d.deviceGetAttribute, "cuDeviceGetAttribute"), "cuDeviceGetAttribute");
    need(bind(lib, d.primaryCtxRetain, "cuDevicePrimaryCtxRetain"), "cuDevicePrimaryCtxRetain");
    need(bind(lib, d.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
         "cuDevicePrimaryCtxRelease");
    need(bind(lib, d.ctxSetCurrent, "cuCtxSetCurrent"), "cuCtxSetCurrent");
    need(bind(lib, d.ctxSynchronize, "cuCtxSynchronize"), "cuCtxSynchronize");
    need(bind(lib, d.moduleLoadData, "cuModuleLoadData"), "cuModuleLoadData");
    need(bind(lib, d.moduleUnload, "cuModuleUnload"), "cuModuleUnload");
    need(bind(lib, d.moduleGetFunction, "cuModuleGetFunction"), "cuModuleGetFunction");
    need(bind(lib, d.funcSetAttribute, "cuFuncSetAttribute"), "cuFuncSetAttribute");
    bind(lib, d.funcGetParamInfo, "cuFuncGetParamInfo"); // optional: older drivers lack it
    need(bind(lib, d.memAlloc, "cuMemAlloc_v2"), "cuMemAlloc_v2");
    need(bind(lib, d.memFree, "cuMemFree_v2"), "cuMemFree_v2");
    need(bind(lib, d.memcpyHtoD, "cuMemcpyHtoD_v2"), "cuMemcpyHtoD_v2");
    need(bind(lib, d.memcpyDtoH, "cuMemcpyDtoH_v2"), "cuMemcpyDtoH_v2");
    need(bind(lib, d.memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"), "cuMemcpyDtoDAsync_v2");
    need(bind(lib, d.memsetD8Async, "cuMemsetD8Async"), "cuMemsetD8Async");
    need(bind(lib, d.launchKernel, "cuLaunchKernel"), "cuLaunchKernel");
    bind(lib, d.launchKernelEx, "cuLaunchKernelEx"); // optional: drivers before CUDA 11.8 lack it
    need(bind(lib, d.streamCreate, "cuStreamCreate"), "cuStreamCreate");
    need(bind(lib, d.streamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy"), "cuStreamDestroy");
    need(bind(lib, d.streamSynchronize, "cuStreamSynchronize"), "cuStreamSynchronize");
    need(bind(lib, d.eventCreate, "cuEventCreate"), "cuEventCreate");
    need(bind(lib, d.eventDestroy, "cuEventDestroy_v2", "cuEventDestroy"), "cuEventDestroy");
    need(bind(lib, d.eventRecord, "cuEventRecord"), "cuEventRecord");
    need(bind(lib, d.eventSynchronize, "cuEventSynchronize"), "cuEventSynchronize");
    need(bind(lib, d.eventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"), "cuEventElapsedTime");
    need(bind(lib, d.streamBeginCapture, "cuStreamBeginCapture_v2"), "cuStreamBeginCapture_v2");
    need(bind(lib, d.streamEndCapture, "cuStreamEndCapture"), "cuStreamEndCapture");
    need(bind(lib, d.graphInstantiate, "cuGraphInstantiateWithFlags"), "cuGraphInstantiateWithFlags");
    need(bind(lib, d.graphLaunch, "cuGraphLaunch"), "cuGraphLaunch");
    need(bind(lib, d.graphExecDestroy, "cuGraphExecDestroy"), "cuGraphExecDestroy");
    need(bind(lib, d.graphDestroy, "cuGraphDestroy"), "cuGraphDestroy");
    need(bind(lib, d.getErrorName, "cuGetErrorName"), "cuGetErrorName");
    need(bind(lib, d.getErrorString, "cuGetErrorString"), "cuGetErrorString");
    if (!missing.empty()) return makeError("libcuda.so.1 is too old: missing " + missing);
    const Result r = d.init(0);
    if (r != kSuccess) return makeError("cuInit failed: " + d.describe(r));
    return &d;
}

} // namespace

sassx::Result<const Driver*> loadDriver()
{
    static std::once_flag once;
    static std::optional<sassx::Result<const Driver*>> result;
    std::call_once(once, [] { result.emplace(doLoad()); });
    return *result;
}

} // namespace sassx::eval::cu
