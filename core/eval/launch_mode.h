#pragma once
// How the baseline's timed samples launch the kernel: each launch between CUDA events, the launches of a
// sample captured in one CUDA graph (short kernels, where launch overhead would drown the kernel), or not
// at all (the estimate backend). The request side, GraphUse, says whether a graph may be used.
#include "core/common/enum_names.h"

namespace sassx::eval {

enum class LaunchMode
{
    Events,
    Graph,
    Estimate,
};

inline constexpr std::array<EnumName<LaunchMode>, 3> kLaunchModeNames{{
    {LaunchMode::Events, "events"},
    {LaunchMode::Graph, "graph"},
    {LaunchMode::Estimate, "estimate"},
}};

constexpr std::optional<LaunchMode> parseLaunchMode(std::string_view text)
{
    return parseEnum(kLaunchModeNames, text);
}
inline std::string launchModeName(LaunchMode m)
{
    return std::string(enumName(kLaunchModeNames, m));
}

// Auto: a graph when one launch is shorter than BaselineOptions::graphBelowUs.
enum class GraphUse
{
    Auto,
    On,
    Off,
};

inline constexpr std::array<EnumName<GraphUse>, 3> kGraphUseNames{{
    {GraphUse::Auto, "auto"},
    {GraphUse::On, "on"},
    {GraphUse::Off, "off"},
}};

constexpr std::optional<GraphUse> parseGraphUse(std::string_view text)
{
    return parseEnum(kGraphUseNames, text);
}
inline std::string graphUseName(GraphUse g)
{
    return std::string(enumName(kGraphUseNames, g));
}

} // namespace sassx::eval
