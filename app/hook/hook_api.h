#pragma once
// The driver and CUPTI entry points the hook calls, resolved at run time: the hook is loaded into a
// program that already has libcuda, and finds libcupti itself ($SASSX_CUPTI, then the loader's search),
// so it links neither and a program without them is left alone.
#include <cuda.h>
#include <cupti.h>

#include <string>

namespace sassx::hook {

struct DriverApi
{
    CUresult (*ctxSynchronize)() = nullptr;
    CUresult (*ctxGetCurrent)(CUcontext*) = nullptr;
    CUresult (*ctxGetDevice)(CUdevice*) = nullptr;
    CUresult (*deviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
    CUresult (*pointerGetAttribute)(void*, CUpointer_attribute, CUdeviceptr) = nullptr;
    CUresult (*memcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
    CUresult (*eventCreate)(CUevent*, unsigned int) = nullptr;
    CUresult (*eventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*eventQuery)(CUevent) = nullptr;
    CUresult (*eventSynchronize)(CUevent) = nullptr;
    CUresult (*eventElapsedTime)(float*, CUevent, CUevent) = nullptr;
    CUresult (*streamIsCapturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
    CUresult (*moduleLoadData)(CUmodule*, const void*) = nullptr;
    CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*funcGetModule)(CUmodule*, CUfunction) = nullptr;
    CUresult (*funcGetName)(const char**, CUfunction) = nullptr;
    CUresult (*funcGetAttribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
    CUresult (*funcGetParamInfo)(CUfunction, size_t, size_t*, size_t*) = nullptr; // CUDA 12.4+
    CUresult (*kernelGetFunction)(CUfunction*, CUkernel) = nullptr;
    CUresult (*libraryLoadData)(CUlibrary*, const void*, CUjit_option*, void**, unsigned int,
                                CUlibraryOption*, void**, unsigned int) = nullptr;
    CUresult (*libraryGetKernel)(CUkernel*, CUlibrary, const char*) = nullptr;
};

struct CuptiApi
{
    CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
    CUptiResult (*enableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
    CUptiResult (*enableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                  CUpti_CallbackId) = nullptr;
    CUptiResult (*getResultString)(CUptiResult, const char**) = nullptr;
};

// Resolves the driver's entry points from the libcuda already loaded; "" or why not.
std::string loadDriver(DriverApi& api);
// Loads libcupti ($SASSX_CUPTI, else libcupti.so.13, .12, libcupti.so); "" or why not. `path` says
// which file was loaded.
std::string loadCupti(CuptiApi& api, std::string& path);

} // namespace sassx::hook
