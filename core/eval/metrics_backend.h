#pragma once
// Which tool reads a candidate's hardware metrics: CUPTI's range profiler (in a child worker process),
// Nsight Compute's CLI, or `Auto` (CUPTI, then ncu when CUPTI is missing or refuses). A report of
// collected metrics names Cupti or Ncu, never Auto.
#include "core/common/enum_names.h"

namespace sassx::eval {

enum class MetricsBackend
{
    Auto,
    Cupti,
    Ncu,
};

inline constexpr std::array<EnumName<MetricsBackend>, 3> kMetricsBackendNames{{
    {MetricsBackend::Auto, "auto"},
    {MetricsBackend::Cupti, "cupti"},
    {MetricsBackend::Ncu, "ncu"},
}};

constexpr std::optional<MetricsBackend> parseMetricsBackend(std::string_view text)
{
    return parseEnum(kMetricsBackendNames, text);
}
inline std::string metricsBackendName(MetricsBackend b)
{
    return std::string(enumName(kMetricsBackendNames, b));
}

} // namespace sassx::eval
