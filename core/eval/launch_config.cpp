#include "core/eval/launch_config.h"

namespace sassx::eval {

cu::LaunchConfig LaunchPlan::config(cu::Stream stream)
{
    cu::LaunchConfig c;
    c.gridDimX = grid[0];
    c.gridDimY = grid[1];
    c.gridDimZ = grid[2];
    c.blockDimX = block[0];
    c.blockDimY = block[1];
    c.blockDimZ = block[2];
    c.sharedMemBytes = dynamicShared;
    c.hStream = stream;
    c.attrs = attributes.empty() ? nullptr : attributes.data();
    c.numAttrs = unsigned(attributes.size());
    return c;
}

LaunchPlan launchPlan(const LaunchSpec& spec)
{
    LaunchPlan plan;
    plan.grid = spec.grid;
    plan.block = spec.block;
    plan.dynamicShared = spec.dynamicShared;
    if (!spec.cluster) return plan;
    const std::array<uint32_t, 3>& c = *spec.cluster;
    cu::LaunchAttribute a;
    a.id = cu::kLaunchAttrClusterDimension;
    a.value.clusterDim.x = c[0];
    a.value.clusterDim.y = c[1];
    a.value.clusterDim.z = c[2];
    plan.attributes.push_back(a);
    plan.nonPortableClusterSize = spec.clusterBlocks() > kMaxPortableClusterBlocks;
    plan.clusterText =
        "cluster [" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " + std::to_string(c[2]) + "]";
    return plan;
}

cu::Result launchWithPlan(const cu::Driver& d, LaunchPlan& plan, cu::Function function, cu::Stream stream,
                          void** args)
{
    if (!plan.extended())
        return d.launchKernel(function, plan.grid[0], plan.grid[1], plan.grid[2], plan.block[0],
                              plan.block[1], plan.block[2], plan.dynamicShared, stream, args, nullptr);
    if (!d.launchKernelEx) return cu::kErrorNotSupported;
    const cu::LaunchConfig config = plan.config(stream);
    return d.launchKernelEx(&config, function, args, nullptr);
}

std::string launchEntryPoint(const LaunchPlan& plan)
{
    return plan.extended() ? "cuLaunchKernelEx (" + plan.clusterText + ")" : std::string("cuLaunchKernel");
}

} // namespace sassx::eval
