#pragma once
// The part of CUPTI's PC Sampling API (cupti_pcsampling.h, CUDA 12.4+) that sassx uses, declared by
// hand like the range profiler in cupti_abi.h, so nothing builds against the toolkit and libcupti is
// only dlopen'ed by the worker's sampling child. Conventions differ from the range profiler: the first
// field is `size` (not `structSize`), and the sample records are packed with 8-byte alignment (CUPTI's
// PACKED_ALIGNMENT). CUPTI 12.4 (API version 22) added `correlationId` to the per-PC record, changing
// its stride: older libraries are refused (docs/stalls.md). tests/core/eval/test_cupti_abi.cpp checks
// every layout against the real header when the toolkit is installed.
#include "core/eval/cupti_abi.h"

#include <cstddef>
#include <cstdint>

namespace sassx::eval::cupti::pcs {

inline constexpr uint32_t kMinApiVersion = 22;      // CUDA 12.4
inline constexpr size_t kStallReasonNameSize = 128; // CUPTI_STALL_REASON_STRING_SIZE

// CUpti_PCSamplingConfigurationAttributeType
enum AttributeType : int
{
    kSamplingPeriod = 1,
    kStallReason = 2,
    kScratchBufferSize = 3,
    kHardwareBufferSize = 4,
    kCollectionMode = 5,
    kEnableStartStopControl = 6,
    kOutputDataFormat = 7,
    kSamplingDataBuffer = 8,
};
enum CollectionMode : int // CUpti_PCSamplingCollectionMode
{
    kContinuous = 1,
    kKernelSerialized = 2,
};
enum OutputDataFormat : int // CUpti_PCSamplingOutputDataFormat
{
    kParsed = 1,
};

// Enable, Disable, Start and Stop all take this (CUpti_PCSampling{Enable,Disable,Start,Stop}Params).
struct ContextParams
{
    size_t size;
    void* pPriv;
    Context ctx;
};

struct GetNumStallReasonsParams // CUpti_PCSamplingGetNumStallReasonsParams
{
    size_t size;
    void* pPriv;
    Context ctx;
    size_t* numStallReasons;
};

struct GetStallReasonsParams // CUpti_PCSamplingGetStallReasonsParams
{
    size_t size;
    void* pPriv;
    Context ctx;
    size_t numStallReasons;
    uint32_t* stallReasonIndex;
    char** stallReasons; // numStallReasons buffers of kStallReasonNameSize bytes, ours
};

struct ConfigurationInfo // CUpti_PCSamplingConfigurationInfo (not packed)
{
    AttributeType attributeType;
    Result attributeStatus; // [r]
    union {
        uint64_t invalid[3];
        uint32_t samplingPeriod; // 2^(this) cycles, 5..31
        struct
        {
            size_t stallReasonCount;
            uint32_t* pStallReasonIndex;
        } stallReason;
        size_t scratchBufferSize;
        size_t hardwareBufferSize;
        CollectionMode collectionMode;
        uint32_t enableStartStopControl;
        OutputDataFormat outputDataFormat;
        void* samplingDataBuffer;
    } attributeData;
};

struct ConfigurationInfoParams // CUpti_PCSamplingConfigurationInfoParams
{
    size_t size;
    void* pPriv;
    Context ctx;
    size_t numAttributes;
    ConfigurationInfo* pPCSamplingConfigurationInfo;
};

#pragma pack(push, 1)
struct alignas(8) StallReason // CUpti_PCSamplingStallReason
{
    uint32_t pcSamplingStallReasonIndex;
    uint32_t samples;
};

struct alignas(8) PCData // CUpti_PCSamplingPCData
{
    size_t size;
    uint64_t cubinCrc;
    uint64_t pcOffset; // from the start of the function
    uint32_t functionIndex;
    uint32_t pad;
    char* functionName; // owned by the caller once returned (free once per distinct pointer)
    size_t stallReasonCount;
    StallReason* stallReason; // [stallReasonCount], ours
    uint32_t correlationId;
};

struct alignas(8) Data // CUpti_PCSamplingData
{
    size_t size;
    size_t collectNumPcs; // capacity of pPcData
    uint64_t totalSamples;
    uint64_t droppedSamples;
    size_t totalNumPcs;     // [r] filled
    size_t remainingNumPcs; // [r] still in CUPTI's buffer
    uint64_t rangeId;
    PCData* pPcData;
    uint64_t nonUsrKernelsTotalSamples;
    uint8_t hardwareBufferFull;
};
#pragma pack(pop)

struct GetDataParams // CUpti_PCSamplingGetDataParams
{
    size_t size;
    void* pPriv;
    Context ctx;
    void* pcSamplingData; // Data*
};

struct GetCubinCrcParams // CUpti_GetCubinCrcParams (no pPriv)
{
    size_t size;
    size_t cubinSize;
    const void* cubin;
    uint64_t cubinCrc; // [r]
};

inline constexpr size_t kContextParamsSize = SASSX_CUPTI_SIZE(ContextParams, ctx);
inline constexpr size_t kGetNumStallReasonsSize = SASSX_CUPTI_SIZE(GetNumStallReasonsParams, numStallReasons);
inline constexpr size_t kGetStallReasonsSize = SASSX_CUPTI_SIZE(GetStallReasonsParams, stallReasons);
inline constexpr size_t kConfigurationInfoParamsSize =
    SASSX_CUPTI_SIZE(ConfigurationInfoParams, pPCSamplingConfigurationInfo);
inline constexpr size_t kGetDataSize = SASSX_CUPTI_SIZE(GetDataParams, pcSamplingData);
inline constexpr size_t kGetCubinCrcSize = SASSX_CUPTI_SIZE(GetCubinCrcParams, cubinCrc);

} // namespace sassx::eval::cupti::pcs
