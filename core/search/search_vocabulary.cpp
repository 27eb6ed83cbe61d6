#include "core/search/search_vocabulary.h"

namespace sassx::search {

std::string presetName(AnnealPreset p)
{
    switch (p) {
    case AnnealPreset::Default:
        return "";
    case AnnealPreset::Sip:
        return "sip";
    }
    return "?";
}

std::optional<AnnealPreset> parsePreset(const std::string& name)
{
    for (AnnealPreset p : {AnnealPreset::Default, AnnealPreset::Sip})
        if (presetName(p) == name) return p;
    return std::nullopt;
}

std::string guideName(ProposalGuide g)
{
    switch (g) {
    case ProposalGuide::Uniform:
        return "uniform";
    case ProposalGuide::Stalls:
        return "stalls";
    }
    return "?";
}

std::optional<ProposalGuide> parseGuide(const std::string& name)
{
    for (ProposalGuide g : {ProposalGuide::Uniform, ProposalGuide::Stalls})
        if (guideName(g) == name) return g;
    return std::nullopt;
}

std::string stopReasonName(StopReason r)
{
    switch (r) {
    case StopReason::Budget:
        return "budget";
    case StopReason::Temperature:
        return "temperature";
    case StopReason::Done:
        return "done";
    case StopReason::Stopped:
        return "stopped";
    case StopReason::Exhausted:
        return "exhausted";
    case StopReason::Converged:
        return "converged";
    }
    return "?";
}

std::optional<StopReason> parseStopReason(const std::string& name)
{
    for (StopReason r : {StopReason::Budget, StopReason::Temperature, StopReason::Done, StopReason::Stopped,
                         StopReason::Exhausted, StopReason::Converged})
        if (stopReasonName(r) == name) return r;
    return std::nullopt;
}

} // namespace sassx::search
