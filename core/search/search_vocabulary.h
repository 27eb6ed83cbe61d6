#pragma once
// The search's words that cross a boundary (the CLI, the panel, a checkpoint, a report) as enums: each
// with one name/parse pair, used only where text comes in or goes out. Inside the engine they are
// compared as values, so a misspelt word is a parse error at the edge, not a silently different branch.
#include <cstdint>
#include <optional>
#include <string>

namespace sassx::search {

// The annealing schedule: sassx's own (noise-aware, the default) or SIP's as published.
enum class AnnealPreset : uint8_t
{
    Default, // named "": what an omitted --preset and a checkpoint's empty "preset" mean
    Sip,     // "sip" (arXiv 2403.16863): Metropolis on the raw difference, its own cooling and end
};
std::string presetName(AnnealPreset p);
std::optional<AnnealPreset> parsePreset(const std::string& name);

// Which instructions proposals touch (EditProposer::setGuide).
enum class ProposalGuide : uint8_t
{
    Uniform, // "uniform": every movable instruction alike
    Stalls,  // "stalls": in proportion to the stall samples of the original near it
};
std::string guideName(ProposalGuide g);
std::optional<ProposalGuide> parseGuide(const std::string& name);

// Why a run ended (SearchState::stopReason; the report's "stop_reason", which scripts read).
enum class StopReason : uint8_t
{
    Budget,      // "budget": its evaluations or time were spent
    Temperature, // "temperature": SIP's annealing reached its final temperature or step count
    Done,        // "done": list scheduling evaluated every heuristic
    Stopped,     // "stopped": stopped by the user before its budget (resumable)
    Exhausted,   // "exhausted": the space offers no legal edit
    Converged,   // "converged": a climb kept nothing and could not restart
};
std::string stopReasonName(StopReason r);
std::optional<StopReason> parseStopReason(const std::string& name);

} // namespace sassx::search
