#pragma once
// What a kernel's parameter buffer holds, read at the driver: which 8-byte words are device pointers
// (the driver knows every allocation), into which allocation and where. Kernels captured at the driver
// have no types, so a parameter is its bytes plus the pointers inside them; a by-value struct of a dozen
// pointers (FlashAttention's) is one parameter with a dozen pointers. Pure: the allocation look-up is
// handed in, so the rules are tested on recorded buffers without a GPU.
#include "core/common/result.h"
#include "core/cubin/cubin.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace sassx::inject {

// One device allocation as the driver reports it (cuPointerGetAttribute's range of an address).
struct AllocationRange
{
    uint64_t base = 0;
    uint64_t size = 0;
    bool operator==(const AllocationRange&) const = default;
};

// The driver's answer for one address: the allocation holding it, or none (host memory, a freed
// address, or a value that is no address at all).
using AllocationQuery = std::function<std::optional<AllocationRange>(uint64_t address)>;

struct EmbeddedPointer
{
    uint32_t at = 0;       // byte offset inside the parameter
    uint64_t address = 0;  // the value the program passed
    size_t allocation = 0; // index into ClassifiedLaunch::allocations
    uint64_t offset = 0;   // address - the allocation's base
    bool operator==(const EmbeddedPointer&) const = default;
};

struct ClassifiedParam
{
    uint32_t ordinal = 0, offset = 0, size = 0; // in the parameter bank, as the cubin lays it out
    std::vector<uint8_t> bytes;                 // exactly what the program passed
    std::vector<EmbeddedPointer> pointers;      // every word the driver knows as device memory
    // A parameter that is one pointer and nothing else (the usual `float* x`).
    bool isPointer() const { return size == 8 && pointers.size() == 1 && pointers[0].at == 0; }
};

struct ClassifiedLaunch
{
    std::vector<ClassifiedParam> params;
    // Each allocation once, however many parameters point into it (in-place kernels, views of one
    // tensor, PyTorch's caching allocator handing out slices of one segment): the capture records it
    // once and the spec's pointers alias it.
    std::vector<AllocationRange> allocations;
};

// Splits `buffer` (the parameter bank's bytes, as cuLaunchKernel's kernelParams or its `extra` buffer
// hold them) by `layout` and asks `query` about every 8-byte aligned word that is not zero. A word is a
// pointer only when the driver places it inside an allocation: an integer that merely looks like an
// address stays bytes. Fails when a parameter lies outside `buffer`.
Result<ClassifiedLaunch> classifyParams(std::span<const uint8_t> buffer,
                                        const std::vector<KernelParam>& layout, const AllocationQuery& query);

// The same when the program handed one pointer per parameter (kernelParams[i] -> the i-th value).
Result<ClassifiedLaunch> classifyParams(const std::vector<std::span<const uint8_t>>& values,
                                        const std::vector<KernelParam>& layout, const AllocationQuery& query);

} // namespace sassx::inject
