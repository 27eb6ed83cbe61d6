#pragma once
// How a search runs: algorithm, preset, space, budget, seed and the knobs of each algorithm. Plain data,
// serialised into every checkpoint so a resumed run continues exactly the run that was started.
#include "core/common/result.h"
#include "core/search/agent.h"
#include "core/search/search_space.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace sassx::search {

enum class Algorithm : uint8_t
{
    Anneal,       // simulated annealing (presets: default, sip)
    Greedy,       // first-improvement hill climbing
    Random,       // independent random legal variants of the start schedule
    ListSchedule, // one-shot heuristics (hoist loads, sink stores, critical path first)
    Ppo,          // a PPO agent choosing legal edits in episodes from the start schedule (agent.h)
};

std::optional<Algorithm> parseAlgorithm(const std::string& name); // anneal|greedy|random|listsched|ppo
std::string algorithmName(Algorithm a);

struct SearchConfig
{
    Algorithm algorithm = Algorithm::Anneal;
    std::string preset; // "" (sassx's default) or "sip" (anneal only)
    SearchSpace space = SearchSpace::Mem;
    int64_t budgetEvals = 0;    // 0: no limit on evaluations
    double budgetSeconds = 0.0; // 0: no limit on wall time (at least one limit is set)
    uint64_t seed = 1;
    // The list-scheduling result starts the other algorithms when it measured better than the original
    // (its evaluations count against the budget). Spaces without moves ignore it.
    bool seedWithListSchedule = true;
    int maxEditsPerProposal = 3; // anneal (default preset) proposes 1..this many edits at once
    int randomMaxEdits = 30;     // random search: 1..this many edits per variant
    int remeasureEvery = 50;     // anneal/greedy: re-measure the incumbent every N steps (measured backends)
    // Annealing temperature in speed-up units (0.01 = 1%). Default preset: geometric from t0 to tEnd
    // over the budget. SIP preset: t0 0.4, ×(1−0.003) per step, stop at T < 0.05 or after 1,000 steps
    // (arXiv 2403.16863, ../shared/seeds), single-edit proposals, Metropolis on the raw Δ speed-up.
    double t0 = 0.01;
    double tEnd = 0.0005;
    double sipT0 = 0.4;
    double sipCooling = 0.003;
    double sipTMin = 0.05;
    int sipMaxSteps = 1000;
    // Which instructions proposals touch: "uniform" (every movable instruction alike) or "stalls"
    // (in proportion to the stall samples of the original near them; the search run supplies the
    // weights, EditProposer::setGuide).
    std::string guide = "uniform";
    // PPO only (docs/ppo.md): the hyper-parameters, and the preset they started from.
    PpoSettings ppo;
    std::string ppoPreset = "cuasmrl";

    // Checks the combination (preset of another algorithm, no budget, the rescheduled space, the list
    // scheduler in the yield space); the error is one line.
    Status validate() const;
    std::string describe() const; // "anneal (sip) in mem, 300 evaluations, seed 1"
};

nlohmann::json toJson(const SearchConfig& c);
Result<SearchConfig> searchConfigFromJson(const nlohmann::json& j);

// "10m", "90s", "1h", "45" (seconds) → seconds; nullopt for anything else.
std::optional<double> parseDuration(const std::string& text);

} // namespace sassx::search
