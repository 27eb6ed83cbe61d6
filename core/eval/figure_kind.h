#pragma once
// How a figure was obtained, carried by every figure (eval::FigureSource) so that no screen or report can
// show an estimate as a measurement: timed with CUDA events in a worker, read by CUPTI's range profiler,
// sampled by CUPTI's PC sampling, read by Nsight Compute, or computed by the static estimate.
#include "core/common/enum_names.h"

namespace sassx::eval {

enum class FigureKind
{
    Measured,
    Cupti,
    CuptiPcSampling,
    Ncu,
    Estimate,
};

inline constexpr std::array<EnumName<FigureKind>, 5> kFigureKindNames{{
    {FigureKind::Measured, "measured"},
    {FigureKind::Cupti, "cupti"},
    {FigureKind::CuptiPcSampling, "cupti-pcsampling"},
    {FigureKind::Ncu, "ncu"},
    {FigureKind::Estimate, "estimate"},
}};

constexpr std::optional<FigureKind> parseFigureKind(std::string_view text)
{
    return parseEnum(kFigureKindNames, text);
}
inline std::string figureKindName(FigureKind k)
{
    return std::string(enumName(kFigureKindNames, k));
}

} // namespace sassx::eval
