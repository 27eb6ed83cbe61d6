#pragma once
// The launch spec (docs/launch-spec.md) of a kernel captured at the driver: its parameters as bytes with
// the pointers inside them, every allocation they point into as one `memory` entry with the values
// recorded before the launch, and the SHA-256 the program left there after it (`reference`). Written by
// the hook at a kernel's first launch; the rest of sassx reads it like any spec.
#include "core/inject/param_classifier.h"

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

namespace sassx::inject {

struct LaunchGeometry
{
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    uint32_t dynamicShared = 0;
    std::array<uint32_t, 3> cluster{0, 0, 0}; // 0: no cluster launch attribute
};

// What the hook copied of one allocation around the launch.
struct AllocationSnapshot
{
    std::string valuesFile; // relative to the spec: the zlib stream of the bytes before the launch
    std::string beforeSha256, afterSha256;
    bool allZeroBefore = false; // then no values file: the spec initialises zeros
};

struct DriverKernel
{
    std::string name;        // the capture's name (unique in the capture)
    std::string symbol;      // the kernel's symbol in the cubin
    std::string cubinFile;   // relative to the spec
    std::string imageSha256; // of the cubin the program loaded
    std::string origin;      // OriginKind's name
    std::string library;     // the file that loaded it, for OriginKind::Library
};

// One launch spec; `snapshots` parallel to `launch.allocations`.
nlohmann::json driverLaunchSpec(const DriverKernel& kernel, const LaunchGeometry& geometry,
                                const ClassifiedLaunch& launch,
                                const std::vector<AllocationSnapshot>& snapshots);

std::string memoryName(size_t allocation);

} // namespace sassx::inject
