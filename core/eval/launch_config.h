#pragma once
// How the worker launches a spec's kernel, built from the spec without a driver so that it can be
// checked on a CPU: an ordinary spec goes through cuLaunchKernel with its grid, block and dynamic shared
// memory; a spec with a cluster goes through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
// its kernel first allowed a non-portable cluster size when the cluster holds more than 8 blocks.
// GpuContext::launch is the one place that launches it, for timing, checks, metrics and stall sampling.
#include "core/eval/cuda_driver.h"
#include "core/eval/launch_spec.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sassx::eval {

struct LaunchPlan
{
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t dynamicShared = 0;
    // Empty: cuLaunchKernel. Otherwise cuLaunchKernelEx with these attributes.
    std::vector<cu::LaunchAttribute> attributes;
    // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED must be set on the kernel before it launches.
    bool nonPortableClusterSize = false;
    // "cluster [2, 1, 1]", or empty for an ordinary launch: for messages about the launch.
    std::string clusterText;

    bool extended() const { return !attributes.empty(); }
    // cuLaunchKernelEx's config on `stream`. It points at `attributes`: it is valid while this plan
    // lives unchanged.
    cu::LaunchConfig config(cu::Stream stream);
};

LaunchPlan launchPlan(const LaunchSpec& spec);

// Launches `function` as `plan` says on `stream` with `args` (cuLaunchKernel's kernelParams). Nothing
// but the launch happens here: in the events timing mode host work before it would count as GPU time.
// A plan with attributes on a driver without cuLaunchKernelEx returns kErrorNotSupported.
cu::Result launchWithPlan(const cu::Driver& driver, LaunchPlan& plan, cu::Function function,
                          cu::Stream stream, void** args);
// The entry point `plan` launches through, for a message: "cuLaunchKernel" or
// "cuLaunchKernelEx (cluster [2, 1, 1])".
std::string launchEntryPoint(const LaunchPlan& plan);

} // namespace sassx::eval
