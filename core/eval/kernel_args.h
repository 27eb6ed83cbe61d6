#pragma once
// The bytes each kernel parameter receives at launch, from the device address of each allocation: the
// worker's one way to build cuLaunchKernel's kernelParams, kept apart from the driver so that it can be
// checked without a GPU.
#include "core/eval/launch_spec.h"

#include <cstdint>
#include <span>
#include <vector>

namespace sassx::eval {

// Parameter `index` of `spec` as the kernel receives it. `slotAddress` holds, per slot
// (LaunchSpec::slot), the device address of the allocation that slot owns (unread for other slots):
// a buffer passes its root's address plus its offset, a null parameter 8 zero bytes, a scalar its
// value, and a `bytes` parameter its bytes with each pointer's address written over them.
std::vector<uint8_t> kernelArgBytes(const LaunchSpec& spec, size_t index,
                                    std::span<const uint64_t> slotAddress);

// A `bytes` parameter's final bytes: its recorded bytes, then at each pointer's `at` the 8
// little-endian bytes of its root's address plus its offset into that root.
std::vector<uint8_t> patchedBytes(const ParamSpec& param, std::span<const uint64_t> slotAddress);

} // namespace sassx::eval
