#include "app/hook/hook_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace sassx::hook {

namespace {

template <class F> bool resolve(void* lib, F& fn, const char* name)
{
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
}

} // namespace

std::string loadDriver(DriverApi& d)
{
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) return "libcuda.so.1 is not loaded";
    bool ok = resolve(lib, d.ctxSynchronize, "cuCtxSynchronize") &&
              resolve(lib, d.ctxGetCurrent, "cuCtxGetCurrent") &&
              resolve(lib, d.ctxGetDevice, "cuCtxGetDevice") &&
              resolve(lib, d.deviceGetAttribute, "cuDeviceGetAttribute") &&
              resolve(lib, d.pointerGetAttribute, "cuPointerGetAttribute") &&
              resolve(lib, d.memcpyDtoH, "cuMemcpyDtoH_v2") && resolve(lib, d.eventCreate, "cuEventCreate") &&
              resolve(lib, d.eventRecord, "cuEventRecord") && resolve(lib, d.eventQuery, "cuEventQuery") &&
              resolve(lib, d.eventSynchronize, "cuEventSynchronize") &&
              resolve(lib, d.eventElapsedTime, "cuEventElapsedTime") &&
              resolve(lib, d.streamIsCapturing, "cuStreamIsCapturing") &&
              resolve(lib, d.moduleLoadData, "cuModuleLoadData") &&
              resolve(lib, d.moduleGetFunction, "cuModuleGetFunction") &&
              resolve(lib, d.funcGetAttribute, "cuFuncGetAttribute");
    if (!ok) return "libcuda lacks an entry point the hook needs (a driver older than CUDA 12?)";
    // Newer entry points: used where present, their absence only narrows what the hook can tell.
    resolve(lib, d.funcGetModule, "cuFuncGetModule");
    resolve(lib, d.funcGetName, "cuFuncGetName");
    resolve(lib, d.funcGetParamInfo, "cuFuncGetParamInfo");
    resolve(lib, d.kernelGetFunction, "cuKernelGetFunction");
    resolve(lib, d.libraryLoadData, "cuLibraryLoadData");
    resolve(lib, d.libraryGetKernel, "cuLibraryGetKernel");
    return {};
}

std::string loadCupti(CuptiApi& c, std::string& path)
{
    void* lib = nullptr;
    if (const char* env = std::getenv("SASSX_CUPTI"); env && *env) {
        lib = dlopen(env, RTLD_NOW);
        if (!lib) return std::string("$SASSX_CUPTI ") + env + " does not load: " + dlerror();
        path = env;
    } else {
        for (const char* name : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"})
            if ((lib = dlopen(name, RTLD_NOW))) {
                path = name;
                break;
            }
        if (!lib)
            return "libcupti not found (set SASSX_CUPTI to libcupti.so: the CUDA toolkit's, or the "
                   "nvidia-cuda-cupti wheel's that PyTorch installs)";
    }
    bool ok = resolve(lib, c.subscribe, "cuptiSubscribe") &&
              resolve(lib, c.enableDomain, "cuptiEnableDomain") &&
              resolve(lib, c.enableCallback, "cuptiEnableCallback") &&
              resolve(lib, c.getResultString, "cuptiGetResultString");
    return ok ? std::string() : path + " lacks the callback API";
}

} // namespace sassx::hook
