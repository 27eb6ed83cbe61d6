// libFuzzer target: Cubin::parse, extractCubins and the source map (with the line-program decoder under
// it) must survive any bytes (ASan/UBSan watch the reads).
#include "core/cubin/cubin.h"
#include "core/cubin/fatbin.h"
#include "core/cubin/source_map.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::vector<uint8_t> bytes(data, data + size);
    auto cubin = sassx::Cubin::parse(bytes);
    if (cubin) {
        // A parsed cubin promises safe walking: touch what a viewer would.
        size_t sum = 0;
        for (size_t i = 0; i < cubin->sections().size(); ++i)
            for (uint8_t b : cubin->sectionData(static_cast<int>(i)))
                sum += b;
        for (const auto& k : cubin->kernels()) {
            for (int r : k.relocations)
                sum += cubin->relocations().at(static_cast<size_t>(r)).offset;
            for (const auto& list : k.instrOffsets)
                for (uint64_t off : list.fileOffsets)
                    sum += cubin->bytes().at(off);
            if (auto map = sassx::buildSourceMap(*cubin, k))
                for (const auto& at : map->byPosition)
                    sum += map->describe(at, true).size() + map->ptxText(at.ptxLine).size() +
                           map->describeCallSite(at).size();
        }
        (void)cubin->archName();
        volatile size_t sink = sum;
        (void)sink;
    }
    auto embedded = sassx::extractCubins(bytes);
    if (embedded)
        for (const auto& e : *embedded)
            (void)sassx::Cubin::parse(e.bytes);
    return 0;
}
