#include "core/eval/speedup_text.h"

#include <cstdio>

namespace sassx {

std::string speedupText(double speedup, bool estimate, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f\u00d7", decimals, speedup);
    return estimate ? std::string(buf) + " est." : std::string(buf);
}

bool isEstimateSource(const std::string& kindOrLabel)
{
    return kindOrLabel == "estimate" || kindOrLabel.rfind("estimate,", 0) == 0;
}

} // namespace sassx
