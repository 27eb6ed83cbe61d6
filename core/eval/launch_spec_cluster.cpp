// The launch spec's optional thread-block cluster: what a program passed as
// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (cuLaunchKernelEx, cudaLaunchKernelExC), which the worker must
// pass again, or the kernel runs without its cluster (a launch error, or other work than the program's).
#include "core/eval/launch_spec_parse.h"

#include <cstdio>
#include <string>

namespace sassx::eval {

using nlohmann::json;

namespace {

std::string dimsText(const std::array<uint32_t, 3>& d)
{
    return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]";
}

} // namespace

Status spec_parse::parseCluster(const json& j, LaunchSpec& s)
{
    s.cluster.reset();
    if (!j.contains("cluster") || j.at("cluster").is_null()) return Ok{};
    const json& v = j.at("cluster");
    const Error shape = makeError("launch spec: \"cluster\" must be 1 to 3 positive integers (blocks per "
                                  "cluster in x, y, z)");
    const json items = v.is_array() ? v : json::array({v});
    if (items.empty() || items.size() > 3) return shape;
    std::array<uint32_t, 3> dims{1, 1, 1};
    double blocks = 1.0; // a double: three 31-bit factors overflow any integer type before the check
    for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_number_integer() || items[i].get<int64_t>() < 1 ||
            items[i].get<int64_t>() > 0x7fffffff)
            return shape;
        dims[i] = items[i].get<uint32_t>();
        blocks *= double(dims[i]);
    }
    if (blocks > double(kMaxClusterBlocks)) {
        char count[32];
        std::snprintf(count, sizeof count, "%.0f", blocks);
        return makeError("launch spec: \"cluster\" " + dimsText(dims) + " holds " + count +
                         " blocks, more than " + std::to_string(kMaxClusterBlocks) + " (" +
                         std::to_string(kMaxPortableClusterBlocks) +
                         " portable, 16 on Hopper with the non-portable cluster size attribute)");
    }
    static const char* const axis[] = {"x", "y", "z"};
    for (size_t i = 0; i < 3; ++i)
        if (s.grid[i] % dims[i] != 0)
            return makeError("launch spec: \"cluster\" " + dimsText(dims) + " does not divide \"grid\" " +
                             dimsText(s.grid) + " (" + std::to_string(s.grid[i]) + " blocks in " + axis[i] +
                             " are not a multiple of " + std::to_string(dims[i]) + ")");
    s.cluster = dims;
    return Ok{};
}

} // namespace sassx::eval
