// Our hand-written CUDA driver declarations (core/eval/cuda_driver.h) against the toolkit's cuda.h:
// cuLaunchKernelEx's config and attribute layouts field by field, and every constant the worker passes.
// A mismatch would launch a cluster kernel with garbage dimensions or set the wrong attribute on the GPU
// machine, so it is caught here at compile time; the run checks a config the worker builds from a spec
// reads back through the toolkit's own structs.

// Ours first: cuda_driver.h declares its handle structs (CUstream_st, ...) in its own namespace, as the
// library was compiled; after cuda.h they would name cuda.h's global ones and the library's functions
// would not link.
#include "core/eval/cuda_driver.h"
#include "core/eval/launch_config.h"

#include <cuda.h>

#include <QtTest>

#include <cstddef>
#include <cstring>

namespace cu = sassx::eval::cu;

#define SAME_FIELD(ours, theirs, field)                                                                      \
    static_assert(offsetof(cu::ours, field) == offsetof(theirs, field), #ours "::" #field " offset");        \
    static_assert(sizeof(cu::ours::field) == sizeof(theirs::field), #ours "::" #field " size")

SAME_FIELD(LaunchConfig, CUlaunchConfig, gridDimX);
SAME_FIELD(LaunchConfig, CUlaunchConfig, gridDimY);
SAME_FIELD(LaunchConfig, CUlaunchConfig, gridDimZ);
SAME_FIELD(LaunchConfig, CUlaunchConfig, blockDimX);
SAME_FIELD(LaunchConfig, CUlaunchConfig, blockDimY);
SAME_FIELD(LaunchConfig, CUlaunchConfig, blockDimZ);
SAME_FIELD(LaunchConfig, CUlaunchConfig, sharedMemBytes);
SAME_FIELD(LaunchConfig, CUlaunchConfig, hStream);
SAME_FIELD(LaunchConfig, CUlaunchConfig, attrs);
SAME_FIELD(LaunchConfig, CUlaunchConfig, numAttrs);
static_assert(sizeof(cu::LaunchConfig) == sizeof(CUlaunchConfig));
static_assert(alignof(cu::LaunchConfig) == alignof(CUlaunchConfig));

SAME_FIELD(LaunchAttribute, CUlaunchAttribute, id);
SAME_FIELD(LaunchAttribute, CUlaunchAttribute, value);
static_assert(sizeof(cu::LaunchAttribute) == sizeof(CUlaunchAttribute)); // the array stride
static_assert(alignof(cu::LaunchAttribute) == alignof(CUlaunchAttribute));

SAME_FIELD(LaunchAttributeValue, CUlaunchAttributeValue, clusterDim);
static_assert(sizeof(cu::LaunchAttributeValue) == sizeof(CUlaunchAttributeValue));
static_assert(alignof(cu::LaunchAttributeValue) == alignof(CUlaunchAttributeValue));
static_assert(offsetof(cu::LaunchAttributeValue, clusterDim) +
                  offsetof(decltype(cu::LaunchAttributeValue::clusterDim), y) ==
              offsetof(CUlaunchAttributeValue, clusterDim) +
                  offsetof(decltype(CUlaunchAttributeValue::clusterDim), y));
static_assert(offsetof(decltype(cu::LaunchAttributeValue::clusterDim), z) ==
              offsetof(decltype(CUlaunchAttributeValue::clusterDim), z));

static_assert(cu::kLaunchAttrClusterDimension == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
static_assert(cu::kFuncAttrNonPortableClusterSizeAllowed ==
              CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
static_assert(cu::kFuncAttrMaxDynamicShared == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(cu::kAttrClockRate == CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(cu::kAttrMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::kAttrL2CacheSize == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
static_assert(cu::kAttrCcMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::kAttrCcMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::kAttrMaxSharedOptin == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(cu::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(cu::kCaptureModeThreadLocal == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(cu::kSuccess == CUDA_SUCCESS);
static_assert(cu::kErrorNotFound == CUDA_ERROR_NOT_FOUND);
static_assert(cu::kErrorNotSupported == CUDA_ERROR_NOT_SUPPORTED);

class TestCudaDriverAbi : public QObject
{
    Q_OBJECT
private slots:
    // The config the worker builds for a spec with a cluster, read through the toolkit's structs.
    void clusterConfigReadsBackThroughCudaH()
    {
        sassx::eval::LaunchSpec spec;
        spec.grid = {132, 4, 2};
        spec.block = {384, 1, 1};
        spec.dynamicShared = 200 * 1024;
        spec.cluster = std::array<uint32_t, 3>{2, 4, 2};
        sassx::eval::LaunchPlan plan = sassx::eval::launchPlan(spec);
        QVERIFY(plan.nonPortableClusterSize);
        auto* stream = reinterpret_cast<cu::Stream>(uintptr_t(0xabc0));
        const cu::LaunchConfig ours = plan.config(stream);
        CUlaunchConfig theirs;
        std::memcpy(&theirs, &ours, sizeof theirs);
        QCOMPARE(theirs.gridDimX, 132u);
        QCOMPARE(theirs.gridDimY, 4u);
        QCOMPARE(theirs.gridDimZ, 2u);
        QCOMPARE(theirs.blockDimX, 384u);
        QCOMPARE(theirs.blockDimY, 1u);
        QCOMPARE(theirs.sharedMemBytes, 200u * 1024u);
        QCOMPARE(reinterpret_cast<uintptr_t>(theirs.hStream), uintptr_t(0xabc0));
        QCOMPARE(theirs.numAttrs, 1u);
        const CUlaunchAttribute* a = reinterpret_cast<const CUlaunchAttribute*>(theirs.attrs);
        QCOMPARE(int(a[0].id), int(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION));
        QCOMPARE(a[0].value.clusterDim.x, 2u);
        QCOMPARE(a[0].value.clusterDim.y, 4u);
        QCOMPARE(a[0].value.clusterDim.z, 2u);
    }
};

QTEST_GUILESS_MAIN(TestCudaDriverAbi)
#include "test_cuda_driver_abi.moc"
