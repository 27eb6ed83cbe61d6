#include "core/inject/driver_spec.h"

namespace sassx::inject {

using nlohmann::json;

std::string memoryName(size_t allocation)
{
    return "mem" + std::to_string(allocation);
}

namespace {

std::string hex(const std::vector<uint8_t>& bytes)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string s;
    s.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        s += kHex[b >> 4];
        s += kHex[b & 15];
    }
    return s;
}

json memoryEntry(size_t i, const AllocationRange& range, const AllocationSnapshot& snap)
{
    const bool written = snap.afterSha256 != snap.beforeSha256;
    json m{{"name", memoryName(i)}, {"dtype", "u8"}, {"count", range.size}};
    // Written memory that held zeros is an output; written memory that held data is read and written.
    m["role"] = !written ? "input" : snap.allZeroBefore ? "output" : "inout";
    if (snap.allZeroBefore)
        m["init"] = {{"kind", "zeros"}};
    else
        m["init"] = {{"kind", "recorded"},
                     {"file", snap.valuesFile},
                     {"encoding", "zlib"},
                     {"bytes", range.size},
                     {"sha256", snap.beforeSha256}};
    if (!snap.afterSha256.empty()) m["reference"] = {{"sha256", snap.afterSha256}};
    return m;
}

json paramEntry(const ClassifiedParam& p, const ClassifiedLaunch& launch)
{
    const std::string name = "p" + std::to_string(p.ordinal);
    if (p.isPointer()) {
        const EmbeddedPointer& e = p.pointers[0];
        return {{"name", name},
                {"kind", "buffer"},
                {"dtype", "u8"},
                {"count", launch.allocations[e.allocation].size - e.offset},
                {"alias", {{"of", memoryName(e.allocation)}, {"offset", e.offset}}}};
    }
    json j{{"name", name}, {"kind", "bytes"}, {"size", p.size}, {"hex", hex(p.bytes)}};
    if (!p.pointers.empty()) {
        json ptrs = json::array();
        for (const EmbeddedPointer& e : p.pointers)
            ptrs.push_back({{"at", e.at}, {"to", memoryName(e.allocation)}, {"offset", e.offset}});
        j["pointers"] = ptrs;
    }
    return j;
}

} // namespace

json driverLaunchSpec(const DriverKernel& kernel, const LaunchGeometry& geometry,
                      const ClassifiedLaunch& launch, const std::vector<AllocationSnapshot>& snapshots)
{
    json params = json::array(), memory = json::array();
    for (const ClassifiedParam& p : launch.params)
        params.push_back(paramEntry(p, launch));
    for (size_t i = 0; i < launch.allocations.size(); ++i)
        memory.push_back(memoryEntry(i, launch.allocations[i],
                                     i < snapshots.size() ? snapshots[i] : AllocationSnapshot{}));
    json spec{
        {"name", kernel.name},
        {"kernel", kernel.symbol},
        {"cubin", kernel.cubinFile},
        {"grid", geometry.grid},
        {"block", geometry.block},
        {"dynamic_shared", geometry.dynamicShared},
        {"params", params},
        {"memory", memory},
        {"tolerance", {{"atol", 0.0}, {"rtol", 0.0}}},
        {"driver",
         {{"image_sha256", kernel.imageSha256}, {"origin", kernel.origin}, {"library", kernel.library}}}};
    if (geometry.cluster[0] != 0) spec["cluster"] = geometry.cluster;
    return spec;
}

} // namespace sassx::inject
