#pragma once
// The two numbers every schedule is made of, as distinct types. An instruction keeps its InstrId (its
// index in the kernel's original listing, which also indexes KernelAnalysis and the original control
// bits) wherever it moves; a Position is a place in one schedule and means another instruction once the
// schedule changes. Schedule::order maps Position -> InstrId; Schedule::positionOf() maps back.
#include "core/common/strong_index.h"

#include <nlohmann/json.hpp>

#include <string>

namespace sassx {

using InstrId = StrongIndex<struct InstrIdTag>;
using Position = StrongIndex<struct PositionTag>;

// At the edges (JSON, CLI, protocol) both are plain numbers.
template <class Tag> void to_json(nlohmann::json& j, StrongIndex<Tag> i)
{
    j = i.value();
}

template <class Tag> void from_json(const nlohmann::json& j, StrongIndex<Tag>& i)
{
    i = StrongIndex<Tag>(j.get<uint32_t>());
}

inline std::string to_string(StrongIndex<struct InstrIdTag> i)
{
    return std::to_string(i.value());
}
inline std::string to_string(StrongIndex<struct PositionTag> i)
{
    return std::to_string(i.value());
}

} // namespace sassx
