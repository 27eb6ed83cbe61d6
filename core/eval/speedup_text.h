#pragma once
// The one written form of a speed-up (> 1 = faster): "1.0556×", and "1.0556× est." for a figure of the
// static estimate. The estimate ranks candidates and is never a claim of speed (README, "Status of the
// evaluator"), so wherever a figure is shown (variant names and, through them, the window title and the
// diffs' headers; the variants panel; the status bar) an estimate says so beside its number: a source
// column or a legend may be cut off or absent.
#include <string>

namespace sassx {

// `estimate`: the figure comes from the estimate backend. `decimals`: places after the point.
std::string speedupText(double speedup, bool estimate, int decimals = 4);

// Whether a figure's source (eval::FigureSource::kind "estimate", or its label "estimate, model sm_90")
// is the static estimate.
bool isEstimateSource(const std::string& kindOrLabel);

} // namespace sassx
