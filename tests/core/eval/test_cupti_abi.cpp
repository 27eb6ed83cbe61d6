// Our hand-written CUPTI declarations (core/eval/cupti_abi.h) against the toolkit's own headers:
// every field at the same offset, every structSize the same as the headers' *_STRUCT_SIZE macro.
// A mismatch makes CUPTI read garbage or refuse the call on the GPU machine, so it is caught here at
// compile time. Also: libcupti, where installed, has every entry point the worker resolves.
#include "core/eval/cupti_abi.h"
#include "core/eval/cupti_pcsampling_abi.h"
#include "core/eval/cupti_profiler.h"

#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <QtTest>

namespace c = sassx::eval::cupti;

#define SAME_FIELD(ours, theirs, field)                                                                      \
    static_assert(offsetof(c::ours, field) == offsetof(theirs, field), #ours "::" #field " offset");         \
    static_assert(sizeof(c::ours::field) == sizeof(theirs::field), #ours "::" #field " size")

SAME_FIELD(ProfilerInitializeParams, CUpti_Profiler_Initialize_Params, pPriv);
static_assert(c::kProfilerInitializeSize == CUpti_Profiler_Initialize_Params_STRUCT_SIZE);

SAME_FIELD(DeviceGetChipNameParams, CUpti_Device_GetChipName_Params, deviceIndex);
SAME_FIELD(DeviceGetChipNameParams, CUpti_Device_GetChipName_Params, pChipName);
static_assert(c::kDeviceGetChipNameSize == CUpti_Device_GetChipName_Params_STRUCT_SIZE);

SAME_FIELD(GetCounterAvailabilityParams, CUpti_Profiler_GetCounterAvailability_Params, ctx);
SAME_FIELD(GetCounterAvailabilityParams, CUpti_Profiler_GetCounterAvailability_Params,
           counterAvailabilityImageSize);
SAME_FIELD(GetCounterAvailabilityParams, CUpti_Profiler_GetCounterAvailability_Params,
           pCounterAvailabilityImage);
static_assert(c::kGetCounterAvailabilitySize == CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);

SAME_FIELD(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME_FIELD(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME_FIELD(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage);
SAME_FIELD(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, pHostObject);
static_assert(c::kHostInitializeSize == CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
static_assert(int(c::kRangeProfiler) == int(CUPTI_PROFILER_TYPE_RANGE_PROFILER));

SAME_FIELD(HostDeinitializeParams, CUpti_Profiler_Host_Deinitialize_Params, pHostObject);
static_assert(c::kHostDeinitializeSize == CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);

SAME_FIELD(HostGetMetricPropertiesParams, CUpti_Profiler_Host_GetMetricProperties_Params, pHostObject);
SAME_FIELD(HostGetMetricPropertiesParams, CUpti_Profiler_Host_GetMetricProperties_Params, pMetricName);
SAME_FIELD(HostGetMetricPropertiesParams, CUpti_Profiler_Host_GetMetricProperties_Params, pDescription);
SAME_FIELD(HostGetMetricPropertiesParams, CUpti_Profiler_Host_GetMetricProperties_Params, pHwUnit);
SAME_FIELD(HostGetMetricPropertiesParams, CUpti_Profiler_Host_GetMetricProperties_Params, pDimUnit);
SAME_FIELD(HostGetMetricPropertiesParams, CUpti_Profiler_Host_GetMetricProperties_Params, metricType);
static_assert(c::kHostGetMetricPropertiesSize == CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);

SAME_FIELD(HostConfigAddMetricsParams, CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
SAME_FIELD(HostConfigAddMetricsParams, CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames);
SAME_FIELD(HostConfigAddMetricsParams, CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);
static_assert(c::kHostConfigAddMetricsSize == CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);

SAME_FIELD(HostGetConfigImageSizeParams, CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);
static_assert(c::kHostGetConfigImageSizeSize == CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);

SAME_FIELD(HostGetConfigImageParams, CUpti_Profiler_Host_GetConfigImage_Params, configImageSize);
SAME_FIELD(HostGetConfigImageParams, CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);
static_assert(c::kHostGetConfigImageSize == CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);

SAME_FIELD(HostGetNumOfPassesParams, CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize);
SAME_FIELD(HostGetNumOfPassesParams, CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage);
SAME_FIELD(HostGetNumOfPassesParams, CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);
static_assert(c::kHostGetNumOfPassesSize == CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);

SAME_FIELD(HostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
SAME_FIELD(HostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
SAME_FIELD(HostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
           counterDataImageSize);
SAME_FIELD(HostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME_FIELD(HostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
SAME_FIELD(HostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);
SAME_FIELD(HostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);
static_assert(c::kHostEvaluateToGpuValuesSize == CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);

SAME_FIELD(RangeEnableParams, CUpti_RangeProfiler_Enable_Params, ctx);
SAME_FIELD(RangeEnableParams, CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject);
static_assert(c::kRangeEnableSize == CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);

SAME_FIELD(RangeObjectParams, CUpti_RangeProfiler_Disable_Params, pRangeProfilerObject);
SAME_FIELD(RangeObjectParams, CUpti_RangeProfiler_Start_Params, pRangeProfilerObject);
static_assert(c::kRangeObjectSize == CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
static_assert(c::kRangeObjectSize == CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);

SAME_FIELD(RangeStopParams, CUpti_RangeProfiler_Stop_Params, passIndex);
SAME_FIELD(RangeStopParams, CUpti_RangeProfiler_Stop_Params, targetNestingLevel);
SAME_FIELD(RangeStopParams, CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted);
static_assert(c::kRangeStopSize == CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);

SAME_FIELD(RangeGetCounterDataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, pMetricNames);
SAME_FIELD(RangeGetCounterDataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, numMetrics);
SAME_FIELD(RangeGetCounterDataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumOfRanges);
SAME_FIELD(RangeGetCounterDataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params,
           maxNumRangeTreeNodes);
SAME_FIELD(RangeGetCounterDataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize);
static_assert(c::kRangeGetCounterDataSizeSize == CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);

SAME_FIELD(RangeCounterDataImageInitializeParams, CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
           counterDataSize);
SAME_FIELD(RangeCounterDataImageInitializeParams, CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
           pCounterData);
static_assert(c::kRangeCounterDataImageInitializeSize ==
              CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);

SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, configSize);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, pConfig);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, counterDataImageSize);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, pCounterDataImage);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, range);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, replayMode);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, maxRangesPerPass);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, numNestingLevels);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, minNestingLevel);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, passIndex);
SAME_FIELD(RangeSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel);
static_assert(c::kRangeSetConfigSize == CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
static_assert(int(c::kUserRange) == int(CUPTI_UserRange) && int(c::kAutoRange) == int(CUPTI_AutoRange));
static_assert(int(c::kUserReplay) == int(CUPTI_UserReplay) &&
              int(c::kKernelReplay) == int(CUPTI_KernelReplay));

SAME_FIELD(RangeDecodeDataParams, CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped);
static_assert(c::kRangeDecodeDataSize == CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);

SAME_FIELD(RangeGetCounterDataInfoParams, CUpti_RangeProfiler_GetCounterDataInfo_Params, pCounterDataImage);
SAME_FIELD(RangeGetCounterDataInfoParams, CUpti_RangeProfiler_GetCounterDataInfo_Params,
           counterDataImageSize);
SAME_FIELD(RangeGetCounterDataInfoParams, CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges);
static_assert(c::kRangeGetCounterDataInfoSize == CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);

// PC sampling (cupti_pcsampling.h): `size`-first params, packed sample records.
namespace p = sassx::eval::cupti::pcs;
#define SAME_PCS(ours, theirs, field)                                                                        \
    static_assert(offsetof(p::ours, field) == offsetof(theirs, field), #ours "::" #field " offset");         \
    static_assert(sizeof(p::ours::field) == sizeof(theirs::field), #ours "::" #field " size")
SAME_PCS(ContextParams, CUpti_PCSamplingEnableParams, ctx);
SAME_PCS(ContextParams, CUpti_PCSamplingDisableParams, ctx);
SAME_PCS(ContextParams, CUpti_PCSamplingStartParams, ctx);
SAME_PCS(ContextParams, CUpti_PCSamplingStopParams, ctx);
static_assert(p::kContextParamsSize == CUpti_PCSamplingEnableParamsSize);
static_assert(p::kContextParamsSize == CUpti_PCSamplingDisableParamsSize);
static_assert(p::kContextParamsSize == CUpti_PCSamplingStartParamsSize);
static_assert(p::kContextParamsSize == CUpti_PCSamplingStopParamsSize);
SAME_PCS(GetNumStallReasonsParams, CUpti_PCSamplingGetNumStallReasonsParams, numStallReasons);
static_assert(p::kGetNumStallReasonsSize == CUpti_PCSamplingGetNumStallReasonsParamsSize);
SAME_PCS(GetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams, numStallReasons);
SAME_PCS(GetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams, stallReasonIndex);
SAME_PCS(GetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams, stallReasons);
static_assert(p::kGetStallReasonsSize == CUpti_PCSamplingGetStallReasonsParamsSize);
static_assert(p::kStallReasonNameSize == CUPTI_STALL_REASON_STRING_SIZE);
SAME_PCS(ConfigurationInfo, CUpti_PCSamplingConfigurationInfo, attributeType);
SAME_PCS(ConfigurationInfo, CUpti_PCSamplingConfigurationInfo, attributeStatus);
SAME_PCS(ConfigurationInfo, CUpti_PCSamplingConfigurationInfo, attributeData);
static_assert(sizeof(p::ConfigurationInfo) == sizeof(CUpti_PCSamplingConfigurationInfo));
static_assert(int(p::kSamplingPeriod) == int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD));
static_assert(int(p::kStallReason) == int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON));
static_assert(int(p::kScratchBufferSize) ==
              int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE));
static_assert(int(p::kHardwareBufferSize) ==
              int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE));
static_assert(int(p::kCollectionMode) == int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE));
static_assert(int(p::kEnableStartStopControl) ==
              int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL));
static_assert(int(p::kOutputDataFormat) == int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT));
static_assert(int(p::kSamplingDataBuffer) ==
              int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER));
static_assert(int(p::kContinuous) == int(CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS));
static_assert(int(p::kParsed) == int(CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED));
SAME_PCS(ConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams, numAttributes);
SAME_PCS(ConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams, pPCSamplingConfigurationInfo);
static_assert(p::kConfigurationInfoParamsSize == CUpti_PCSamplingConfigurationInfoParamsSize);
SAME_PCS(StallReason, CUpti_PCSamplingStallReason, pcSamplingStallReasonIndex);
SAME_PCS(StallReason, CUpti_PCSamplingStallReason, samples);
static_assert(sizeof(p::StallReason) == sizeof(CUpti_PCSamplingStallReason));
SAME_PCS(PCData, CUpti_PCSamplingPCData, cubinCrc);
SAME_PCS(PCData, CUpti_PCSamplingPCData, pcOffset);
SAME_PCS(PCData, CUpti_PCSamplingPCData, functionIndex);
SAME_PCS(PCData, CUpti_PCSamplingPCData, functionName);
SAME_PCS(PCData, CUpti_PCSamplingPCData, stallReasonCount);
SAME_PCS(PCData, CUpti_PCSamplingPCData, stallReason);
SAME_PCS(PCData, CUpti_PCSamplingPCData, correlationId);
static_assert(sizeof(p::PCData) == sizeof(CUpti_PCSamplingPCData));
SAME_PCS(Data, CUpti_PCSamplingData, collectNumPcs);
SAME_PCS(Data, CUpti_PCSamplingData, totalSamples);
SAME_PCS(Data, CUpti_PCSamplingData, droppedSamples);
SAME_PCS(Data, CUpti_PCSamplingData, totalNumPcs);
SAME_PCS(Data, CUpti_PCSamplingData, remainingNumPcs);
SAME_PCS(Data, CUpti_PCSamplingData, rangeId);
SAME_PCS(Data, CUpti_PCSamplingData, pPcData);
SAME_PCS(Data, CUpti_PCSamplingData, nonUsrKernelsTotalSamples);
SAME_PCS(Data, CUpti_PCSamplingData, hardwareBufferFull);
static_assert(sizeof(p::Data) == sizeof(CUpti_PCSamplingData));
SAME_PCS(GetDataParams, CUpti_PCSamplingGetDataParams, pcSamplingData);
static_assert(p::kGetDataSize == CUpti_PCSamplingGetDataParamsSize);
SAME_PCS(GetCubinCrcParams, CUpti_GetCubinCrcParams, cubinSize);
SAME_PCS(GetCubinCrcParams, CUpti_GetCubinCrcParams, cubin);
SAME_PCS(GetCubinCrcParams, CUpti_GetCubinCrcParams, cubinCrc);
static_assert(p::kGetCubinCrcSize == CUpti_GetCubinCrcParamsSize);

static_assert(c::kErrorInsufficientPrivileges == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
static_assert(c::kErrorInvalidMetricName == CUPTI_ERROR_INVALID_METRIC_NAME);

class TestCuptiAbi : public QObject
{
    Q_OBJECT
private slots:
    void libraryHasEveryEntryPoint()
    {
        // CI has the toolkit's libcupti (it loads without a driver); a machine without it skips.
        auto lib = sassx::eval::loadCupti();
        if (!lib && lib.message().find("not found") != std::string::npos)
            QSKIP("no libcupti on this machine");
        if (!lib) QFAIL(lib.message().c_str());
        QVERIFY(!lib->path.empty());
    }

    void searchListEndsWithTheLoader()
    {
        const auto list = sassx::eval::cuptiSearchList();
        QVERIFY(list.size() >= 3);
        QCOMPARE(list.back(), std::string("libcupti.so"));
    }

    void envOverrideIsTheOnlyCandidate()
    {
        qputenv("SASSX_CUPTI", "/nonexistent/libcupti.so.99");
        const auto list = sassx::eval::cuptiSearchList();
        qunsetenv("SASSX_CUPTI");
        QCOMPARE(list, std::vector<std::string>{"/nonexistent/libcupti.so.99"});
    }
};

QTEST_GUILESS_MAIN(TestCuptiAbi)
#include "test_cupti_abi.moc"
