#include "core/inject/param_classifier.h"

#include <algorithm>
#include <cstring>

namespace sassx::inject {

namespace {

size_t allocationIndex(ClassifiedLaunch& launch, const AllocationRange& range)
{
    const auto it = std::find(launch.allocations.begin(), launch.allocations.end(), range);
    if (it != launch.allocations.end()) return size_t(it - launch.allocations.begin());
    launch.allocations.push_back(range);
    return launch.allocations.size() - 1;
}

void findPointers(ClassifiedLaunch& launch, ClassifiedParam& p, const AllocationQuery& query)
{
    // Words aligned in the parameter bank: a struct holding pointers is 8-aligned, so its pointers are.
    const uint32_t first = (8 - p.offset % 8) % 8;
    for (uint32_t at = first; at + 8 <= p.size; at += 8) {
        uint64_t word = 0;
        std::memcpy(&word, p.bytes.data() + at, 8);
        if (word == 0) continue;
        const std::optional<AllocationRange> range = query(word);
        if (!range || range->size == 0 || word < range->base || word - range->base >= range->size) continue;
        p.pointers.push_back({at, word, allocationIndex(launch, *range), word - range->base});
    }
}

Status checkLayout(const std::vector<KernelParam>& layout)
{
    for (size_t i = 0; i < layout.size(); ++i)
        if (layout[i].size == 0) return makeError("parameter " + std::to_string(i) + " has size 0");
    return Ok{};
}

} // namespace

Result<ClassifiedLaunch> classifyParams(std::span<const uint8_t> buffer,
                                        const std::vector<KernelParam>& layout, const AllocationQuery& query)
{
    if (auto s = checkLayout(layout); !s) return s.error();
    ClassifiedLaunch launch;
    for (const KernelParam& k : layout) {
        if (uint64_t(k.offset) + k.size > buffer.size())
            return makeError("parameter " + std::to_string(k.ordinal) + " (offset " +
                             std::to_string(k.offset) + ", " + std::to_string(k.size) +
                             " bytes) lies past the " + std::to_string(buffer.size()) +
                             "-byte parameter buffer");
        ClassifiedParam p{
            k.ordinal, k.offset, k.size, {buffer.begin() + k.offset, buffer.begin() + k.offset + k.size}, {}};
        findPointers(launch, p, query);
        launch.params.push_back(std::move(p));
    }
    return launch;
}

Result<ClassifiedLaunch> classifyParams(const std::vector<std::span<const uint8_t>>& values,
                                        const std::vector<KernelParam>& layout, const AllocationQuery& query)
{
    if (auto s = checkLayout(layout); !s) return s.error();
    if (values.size() != layout.size())
        return makeError("the launch passed " + std::to_string(values.size()) +
                         " parameter values, the kernel takes " + std::to_string(layout.size()));
    ClassifiedLaunch launch;
    for (size_t i = 0; i < layout.size(); ++i) {
        const KernelParam& k = layout[i];
        if (values[i].size() < k.size)
            return makeError("parameter " + std::to_string(k.ordinal) + " has " +
                             std::to_string(values[i].size()) + " bytes, the kernel takes " +
                             std::to_string(k.size));
        ClassifiedParam p{k.ordinal, k.offset, k.size, {values[i].begin(), values[i].begin() + k.size}, {}};
        findPointers(launch, p, query);
        launch.params.push_back(std::move(p));
    }
    return launch;
}

} // namespace sassx::inject
