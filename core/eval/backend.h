#pragma once
// Which evaluator makes a kernel's figures: the GPU worker pool, the static estimate, or `Auto` (the pool
// when a worker finds a usable GPU, else the labelled estimate). A chosen evaluator is always Gpu or
// Estimate; Auto exists only as a request.
#include "core/common/enum_names.h"

namespace sassx::eval {

enum class Backend
{
    Auto,
    Gpu,
    Estimate,
};

inline constexpr std::array<EnumName<Backend>, 3> kBackendNames{{
    {Backend::Auto, "auto"},
    {Backend::Gpu, "gpu"},
    {Backend::Estimate, "estimate"},
}};

constexpr std::optional<Backend> parseBackend(std::string_view text)
{
    return parseEnum(kBackendNames, text);
}
inline std::string backendName(Backend b)
{
    return std::string(enumName(kBackendNames, b));
}

} // namespace sassx::eval
