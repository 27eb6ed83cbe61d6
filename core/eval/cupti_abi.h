#pragma once
// The part of CUPTI's C ABI that sassx uses: the range profiler (cupti_range_profiler.h), the
// profiler host API (cupti_profiler_host.h) and three target calls. Declared here, like the driver
// in cuda_driver.h, so that nothing builds against the toolkit's headers and libcupti is only ever
// dlopen'ed by the worker. Every struct starts with `structSize`, which CUPTI uses to tell which
// fields a caller knows; we pass the size up to the last field we declare, as the headers' *_STRUCT_SIZE
// macros do. tests/core/eval/test_cupti_abi.cpp checks every layout against the real headers when the
// toolkit is installed.
#include <cstddef>
#include <cstdint>

namespace sassx::eval::cupti {

using Result = int; // CUptiResult
inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorInvalidMetricName = 17;
inline constexpr Result kErrorInsufficientPrivileges = 35;

using Context = struct CUctx_st*;
struct HostObject;
struct RangeProfilerObject;

// CUpti_ProfilerRange, CUpti_ProfilerReplayMode, CUpti_ProfilerType, CUpti_MetricType.
enum ProfilerRange : int
{
    kAutoRange = 1,
    kUserRange = 2
};
enum ReplayMode : int
{
    kApplicationReplay = 1,
    kKernelReplay = 2,
    kUserReplay = 3
};
enum ProfilerType : int
{
    kRangeProfiler = 0
};
enum MetricType : int
{
    kCounter = 0,
    kRatio = 1,
    kThroughput = 2
};

#define SASSX_CUPTI_SIZE(type_, last_) (offsetof(type_, last_) + sizeof(((type_*)nullptr)->last_))

struct ProfilerInitializeParams // CUpti_Profiler_Initialize_Params
{
    size_t structSize;
    void* pPriv;
};

struct DeviceGetChipNameParams // CUpti_Device_GetChipName_Params
{
    size_t structSize;
    void* pPriv;
    size_t deviceIndex;
    const char* pChipName;
};

struct GetCounterAvailabilityParams // CUpti_Profiler_GetCounterAvailability_Params
{
    size_t structSize;
    void* pPriv;
    Context ctx;
    size_t counterAvailabilityImageSize;
    uint8_t* pCounterAvailabilityImage;
};

struct HostInitializeParams // CUpti_Profiler_Host_Initialize_Params
{
    size_t structSize;
    void* pPriv;
    ProfilerType profilerType;
    const char* pChipName;
    const uint8_t* pCounterAvailabilityImage;
    HostObject* pHostObject;
};

struct HostDeinitializeParams // CUpti_Profiler_Host_Deinitialize_Params
{
    size_t structSize;
    void* pPriv;
    HostObject* pHostObject;
};

struct HostGetMetricPropertiesParams // CUpti_Profiler_Host_GetMetricProperties_Params
{
    size_t structSize;
    void* pPriv;
    HostObject* pHostObject;
    const char* pMetricName;
    const char* pDescription;
    const char* pHwUnit;
    const char* pDimUnit;
    MetricType metricType;
};

struct HostConfigAddMetricsParams // CUpti_Profiler_Host_ConfigAddMetrics_Params
{
    size_t structSize;
    void* pPriv;
    HostObject* pHostObject;
    const char** ppMetricNames;
    size_t numMetrics;
};

struct HostGetConfigImageSizeParams // CUpti_Profiler_Host_GetConfigImageSize_Params
{
    size_t structSize;
    void* pPriv;
    HostObject* pHostObject;
    size_t configImageSize;
};

struct HostGetConfigImageParams // CUpti_Profiler_Host_GetConfigImage_Params
{
    size_t structSize;
    void* pPriv;
    HostObject* pHostObject;
    size_t configImageSize;
    uint8_t* pConfigImage;
};

struct HostGetNumOfPassesParams // CUpti_Profiler_Host_GetNumOfPasses_Params
{
    size_t structSize;
    void* pPriv;
    size_t configImageSize;
    uint8_t* pConfigImage;
    size_t numOfPasses;
};

struct HostEvaluateToGpuValuesParams // CUpti_Profiler_Host_EvaluateToGpuValues_Params
{
    size_t structSize;
    void* pPriv;
    HostObject* pHostObject;
    const uint8_t* pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char** ppMetricNames;
    size_t numMetrics;
    double* pMetricValues;
};

struct RangeEnableParams // CUpti_RangeProfiler_Enable_Params
{
    size_t structSize;
    void* pPriv;
    Context ctx;
    RangeProfilerObject* pRangeProfilerObject;
};

struct RangeObjectParams // Disable, Start: CUpti_RangeProfiler_{Disable,Start}_Params
{
    size_t structSize;
    void* pPriv;
    RangeProfilerObject* pRangeProfilerObject;
};

struct RangeStopParams // CUpti_RangeProfiler_Stop_Params
{
    size_t structSize;
    void* pPriv;
    RangeProfilerObject* pRangeProfilerObject;
    size_t passIndex;
    size_t targetNestingLevel;
    uint8_t isAllPassSubmitted;
};

struct RangeGetCounterDataSizeParams // CUpti_RangeProfiler_GetCounterDataSize_Params
{
    size_t structSize;
    void* pPriv;
    RangeProfilerObject* pRangeProfilerObject;
    const char** pMetricNames;
    size_t numMetrics;
    size_t maxNumOfRanges;
    uint32_t maxNumRangeTreeNodes;
    size_t counterDataSize;
};

struct RangeCounterDataImageInitializeParams // CUpti_RangeProfiler_CounterDataImage_Initialize_Params
{
    size_t structSize;
    void* pPriv;
    RangeProfilerObject* pRangeProfilerObject;
    size_t counterDataSize;
    uint8_t* pCounterData;
};

struct RangeSetConfigParams // CUpti_RangeProfiler_SetConfig_Params
{
    size_t structSize;
    void* pPriv;
    RangeProfilerObject* pRangeProfilerObject;
    size_t configSize;
    const uint8_t* pConfig;
    size_t counterDataImageSize;
    uint8_t* pCounterDataImage;
    ProfilerRange range;
    ReplayMode replayMode;
    size_t maxRangesPerPass;
    uint16_t numNestingLevels;
    uint16_t minNestingLevel;
    size_t passIndex;
    uint16_t targetNestingLevel;
};

struct RangeDecodeDataParams // CUpti_RangeProfiler_DecodeData_Params
{
    size_t structSize;
    void* pPriv;
    RangeProfilerObject* pRangeProfilerObject;
    size_t numOfRangeDropped;
};

struct RangeGetCounterDataInfoParams // CUpti_RangeProfiler_GetCounterDataInfo_Params
{
    size_t structSize;
    void* pPriv;
    const uint8_t* pCounterDataImage;
    size_t counterDataImageSize;
    size_t numTotalRanges;
};

// The structSize each call receives: up to the last field above.
inline constexpr size_t kProfilerInitializeSize = SASSX_CUPTI_SIZE(ProfilerInitializeParams, pPriv);
inline constexpr size_t kDeviceGetChipNameSize = SASSX_CUPTI_SIZE(DeviceGetChipNameParams, pChipName);
inline constexpr size_t kGetCounterAvailabilitySize =
    SASSX_CUPTI_SIZE(GetCounterAvailabilityParams, pCounterAvailabilityImage);
inline constexpr size_t kHostInitializeSize = SASSX_CUPTI_SIZE(HostInitializeParams, pHostObject);
inline constexpr size_t kHostDeinitializeSize = SASSX_CUPTI_SIZE(HostDeinitializeParams, pHostObject);
inline constexpr size_t kHostGetMetricPropertiesSize =
    SASSX_CUPTI_SIZE(HostGetMetricPropertiesParams, metricType);
inline constexpr size_t kHostConfigAddMetricsSize = SASSX_CUPTI_SIZE(HostConfigAddMetricsParams, numMetrics);
inline constexpr size_t kHostGetConfigImageSizeSize =
    SASSX_CUPTI_SIZE(HostGetConfigImageSizeParams, configImageSize);
inline constexpr size_t kHostGetConfigImageSize = SASSX_CUPTI_SIZE(HostGetConfigImageParams, pConfigImage);
inline constexpr size_t kHostGetNumOfPassesSize = SASSX_CUPTI_SIZE(HostGetNumOfPassesParams, numOfPasses);
inline constexpr size_t kHostEvaluateToGpuValuesSize =
    SASSX_CUPTI_SIZE(HostEvaluateToGpuValuesParams, pMetricValues);
inline constexpr size_t kRangeEnableSize = SASSX_CUPTI_SIZE(RangeEnableParams, pRangeProfilerObject);
inline constexpr size_t kRangeObjectSize = SASSX_CUPTI_SIZE(RangeObjectParams, pRangeProfilerObject);
inline constexpr size_t kRangeStopSize = SASSX_CUPTI_SIZE(RangeStopParams, isAllPassSubmitted);
inline constexpr size_t kRangeGetCounterDataSizeSize =
    SASSX_CUPTI_SIZE(RangeGetCounterDataSizeParams, counterDataSize);
inline constexpr size_t kRangeCounterDataImageInitializeSize =
    SASSX_CUPTI_SIZE(RangeCounterDataImageInitializeParams, pCounterData);
inline constexpr size_t kRangeSetConfigSize = SASSX_CUPTI_SIZE(RangeSetConfigParams, targetNestingLevel);
inline constexpr size_t kRangeDecodeDataSize = SASSX_CUPTI_SIZE(RangeDecodeDataParams, numOfRangeDropped);
inline constexpr size_t kRangeGetCounterDataInfoSize =
    SASSX_CUPTI_SIZE(RangeGetCounterDataInfoParams, numTotalRanges);

} // namespace sassx::eval::cupti
