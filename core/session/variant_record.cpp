#include "core/session/variant_record.h"

namespace sassx {

std::string figureSourceLabel(const eval::FigureSource& source)
{
    if (source.kind.empty()) return "unknown source";
    if (source.kind == "estimate")
        return source.device.empty() || source.device == "model" ? "estimate"
                                                                 : "estimate (" + source.device + ")";
    return source.kind + (source.device.empty() ? std::string() : " on " + source.device);
}

std::string VariantFigures::sourceLabel() const
{
    return figureSourceLabel(result.source);
}

} // namespace sassx
