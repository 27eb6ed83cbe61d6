#pragma once
// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"): the GUI, the CLI and CI
// machines have no driver, and only the worker process may ever touch a GPU. We declare the few
// types and entry points we use instead of including cuda.h, so the build needs no CUDA toolkit.
#include "core/common/result.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace sassx::eval::cu {

using Result = int; // CUresult
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct CUctx_st*;
using Module = struct CUmod_st*;
using Function = struct CUfunc_st*;
using Stream = struct CUstream_st*;
using Event = struct CUevent_st*;
using Graph = struct CUgraph_st*;
using GraphExec = struct CUgraphExec_st*;

inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorNotFound = 500;
inline constexpr Result kErrorNotSupported = 801;
inline constexpr int kAttrClockRate = 13; // kHz
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrL2CacheSize = 38;
inline constexpr int kAttrCcMajor = 75;
inline constexpr int kAttrCcMinor = 76;
inline constexpr int kAttrMaxSharedOptin = 97;
inline constexpr int kFuncAttrMaxDynamicShared = 8;
inline constexpr int kFuncAttrNonPortableClusterSizeAllowed = 14;
inline constexpr int kLaunchAttrClusterDimension = 4;
inline constexpr unsigned kStreamNonBlocking = 1;
inline constexpr int kCaptureModeThreadLocal = 1;

// Errors after which the context is unusable (sticky): the worker reports and exits.
bool isStickyError(Result r);

// cuLaunchKernelEx's arguments as cuda.h lays them out (CUlaunchAttributeValue, CUlaunchAttribute,
// CUlaunchConfig), naming only the members the worker sets; tests/core/eval/test_cuda_driver_abi.cpp
// checks offsets and sizes against the toolkit's header where one is installed. The value is a 64-byte
// union, 8-aligned in cuda.h by its pointer members.
union alignas(8) LaunchAttributeValue {
    char pad[64];
    struct
    {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } clusterDim;
};

struct LaunchAttribute
{
    int id = 0; // CUlaunchAttributeID, e.g. kLaunchAttrClusterDimension
    char pad[8 - sizeof(int)] = {};
    LaunchAttributeValue value{};
};

struct LaunchConfig
{
    unsigned int gridDimX = 1;
    unsigned int gridDimY = 1;
    unsigned int gridDimZ = 1;
    unsigned int blockDimX = 1;
    unsigned int blockDimY = 1;
    unsigned int blockDimZ = 1;
    unsigned int sharedMemBytes = 0;
    Stream hStream = nullptr;
    LaunchAttribute* attrs = nullptr;
    unsigned int numAttrs = 0;
};

struct Driver
{
    Result (*init)(unsigned) = nullptr;
    Result (*deviceGetCount)(int*) = nullptr;
    Result (*deviceGet)(Device*, int) = nullptr;
    Result (*deviceGetName)(char*, int, Device) = nullptr;
    Result (*deviceGetAttribute)(int*, int, Device) = nullptr;
    Result (*primaryCtxRetain)(Context*, Device) = nullptr;
    Result (*primaryCtxRelease)(Device) = nullptr;
    Result (*ctxSetCurrent)(Context) = nullptr;
    Result (*ctxSynchronize)() = nullptr;
    Result (*moduleLoadData)(Module*, const void*) = nullptr;
    Result (*moduleUnload)(Module) = nullptr;
    Result (*moduleGetFunction)(Function*, Module, const char*) = nullptr;
    Result (*funcSetAttribute)(Function, int, int) = nullptr;
    Result (*funcGetParamInfo)(Function, size_t, size_t*, size_t*) = nullptr; // CUDA >= 12.4, optional
    Result (*memAlloc)(DevicePtr*, size_t) = nullptr;
    Result (*memFree)(DevicePtr) = nullptr;
    Result (*memcpyHtoD)(DevicePtr, const void*, size_t) = nullptr;
    Result (*memcpyDtoH)(void*, DevicePtr, size_t) = nullptr;
    Result (*memcpyDtoDAsync)(DevicePtr, DevicePtr, size_t, Stream) = nullptr;
    Result (*memsetD8Async)(DevicePtr, unsigned char, size_t, Stream) = nullptr;
    Result (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           Stream, void**, void**) = nullptr;
    // CUDA >= 11.8, optional: only a launch with attributes (a cluster) needs it.
    Result (*launchKernelEx)(const LaunchConfig*, Function, void**, void**) = nullptr;
    Result (*streamCreate)(Stream*, unsigned) = nullptr;
    Result (*streamDestroy)(Stream) = nullptr;
    Result (*streamSynchronize)(Stream) = nullptr;
    Result (*eventCreate)(Event*, unsigned) = nullptr;
    Result (*eventDestroy)(Event) = nullptr;
    Result (*eventRecord)(Event, Stream) = nullptr;
    Result (*eventSynchronize)(Event) = nullptr;
    Result (*eventElapsedTime)(float*, Event, Event) = nullptr;
    Result (*streamBeginCapture)(Stream, int) = nullptr;
    Result (*streamEndCapture)(Stream, Graph*) = nullptr;
    Result (*graphInstantiate)(GraphExec*, Graph, unsigned long long) = nullptr;
    Result (*graphLaunch)(GraphExec, Stream) = nullptr;
    Result (*graphExecDestroy)(GraphExec) = nullptr;
    Result (*graphDestroy)(Graph) = nullptr;
    Result (*getErrorName)(Result, const char**) = nullptr;
    Result (*getErrorString)(Result, const char**) = nullptr;

    // "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered"
    std::string describe(Result r) const;
};

// Loads libcuda once per process (thread-safe); the error says why when there is no driver.
sassx::Result<const Driver*> loadDriver();

} // namespace sassx::eval::cu
