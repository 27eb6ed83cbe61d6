#include "core/session/variant_record.h"

namespace sassx {

std::string figureSourceLabel(const eval::FigureSource& source)
{
    if (!source.kind) return "unknown source";
    const std::string kind(eval::figureKindName(*source.kind));
    if (source.isEstimate())
        return source.device.empty() || source.device == "model" ? kind : kind + " (" + source.device + ")";
    return kind + (source.device.empty() ? std::string() : " on " + source.device);
}

std::string VariantFigures::sourceLabel() const
{
    return figureSourceLabel(result.source);
}

} // namespace sassx
