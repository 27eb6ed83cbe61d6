#pragma once
// nvdisasm -plr (register life ranges) parsed into per-instruction def/use sets. It is the ground
// truth the operand semantics are tested against; sassx does not depend on it at run time.
#include "core/common/result.h"
#include "core/sass/registers.h"

#include <map>
#include <string>

namespace sassx {

struct LifeRangeRow
{
    uint64_t offset = 0;
    RegList defs;     // '^' and 'x'
    RegList uses;     // 'v' and 'x'
    int liveGpr = -1; // the GPR '#' column
};

// kernel name → rows by instruction offset
using LifeRanges = std::map<std::string, std::map<uint64_t, LifeRangeRow>>;

Result<LifeRanges> parseLifeRanges(const std::string& plrText);

} // namespace sassx
