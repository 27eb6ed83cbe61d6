#pragma once
// How a search runs: algorithm, preset, space, budget, seed and the knobs of each algorithm. Plain data,
// serialised into every checkpoint so a resumed run continues exactly the run that was started.
#include "core/common/result.h"
#include "core/search/agent.h"
#include "core/search/search_budget.h"
#include "core/search/search_space.h"
#include "core/search/search_vocabulary.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace sassx::search {

enum class Algorithm : uint8_t
{
    Climb,        // noise-aware first-improvement climbing with racing (the default; strategy_climb.cpp)
    Anneal,       // simulated annealing (presets: default, sip)
    Greedy,       // first-improvement hill climbing
    Random,       // independent random legal variants of the start schedule
    ListSchedule, // one-shot heuristics (hoist loads, sink stores, critical path first)
    Ppo,          // a PPO agent choosing legal edits in episodes from the start schedule (agent.h)
};

std::optional<Algorithm> parseAlgorithm(const std::string& name); // climb|anneal|greedy|random|listsched|ppo
std::string algorithmName(Algorithm a);

// --space auto: the space is picked by the evidence for what is searched, once the backend that measures
// is known (a GPU found or not), by autoSpace() alone: the CLI's search and tune and the GUI all ask it.
enum class AutoSpace : uint8_t
{
    Off,    // the space was named
    Search, // one kernel's search: all+control on a GPU, mem under the estimate
    Tune,   // every kernel of a tune: yield on a GPU, mem under the estimate
};
// The space `rule` picks where candidates are measured on a GPU (`measured`) or estimated. On a GPU a
// search takes all+control: random variants of the four spaces on one H100 reached mem 1.008x, all
// 1.013x, all+control 1.027x, rescheduled 1.021x (docs/status.md, "Search spaces, best of 200 random
// variants"). A tune keeps the yield space its own measurement chose (on an H200 5 of a transformer
// block's 8 largest kernels gained in it, none in mem: docs/status.md, "A torch.compile'd transformer
// block"); all+control has not been measured as a tune's default. The estimate scores every yield and
// reuse edit 1.000x (docs/search.md), so without a GPU only moves can gain: auto keeps the move space that
// was the default of both (mem). autoSpaceReason() says the same to the user, citing the same rows.
SearchSpace autoSpace(AutoSpace rule, bool measured);
// Why autoSpace() picked what it did, in one sentence ("" for Off).
std::string autoSpaceReason(AutoSpace rule, bool measured);

struct SearchConfig
{
    Algorithm algorithm = Algorithm::Climb;
    AnnealPreset preset = AnnealPreset::Default; // Sip: anneal only
    SearchSpace space = SearchSpace::Mem;
    // Off: `space` was named. Otherwise --space auto: `space` is provisional (for validate()) until
    // resolveSpace() is given the backend, and the request stays recorded ("space_requested": "auto").
    AutoSpace autoSpace = AutoSpace::Off;
    // 0: no limit on that measure (search_budget.h says why a typed zero is refused)
    int64_t budgetEvals = 0;
    double budgetSeconds = 0.0;
    uint64_t seed = 1;
    // The list-scheduling result starts the other algorithms when it measured better than the original
    // (its evaluations count against the budget). Spaces without moves ignore it.
    bool seedWithListSchedule = true;
    // Annealing (default preset) proposes 1..this many edits at once. One by default: a multi-edit
    // proposal buries the one edit that helps under the others' noise (docs/search.md).
    int maxEditsPerProposal = 1;
    int randomMaxEdits = 30; // random search: 1..this many edits per variant
    int remeasureEvery = 50; // climb/anneal/greedy: re-measure the incumbent against the original every N
                             // evaluations (measured backends)
    // Annealing temperature of the default preset in units of the kernel's measured noise floor
    // (at least kMinTemperatureUnit): geometric from t0 to tEnd over the budget, Metropolis on the
    // measured speed-up over the incumbent (paired rounds). SIP preset: t0 0.4 in speed-up units,
    // ×(1−0.003) per step, stop at T < 0.05 or after 1,000 steps (arXiv 2403.16863, ../shared/seeds),
    // single-edit proposals, Metropolis on the raw Δ speed-up against the original.
    double t0 = 2.0;
    double tEnd = 0.1;
    // Climbing: a candidate is kept when its confirmed paired interval over the incumbent lies wholly
    // above 1 + climbMargin × noise floor; the climb has converged after this many sweeps over every
    // legal single edit (and their probes) found nothing. It then restarts from a perturbed copy of the
    // best until the budget is spent; without restarts (or with no legal edit to perturb the best with)
    // it ends there ("converged").
    double climbMargin = 0.5;
    int climbSweeps = 2;
    bool climbRestarts = true;
    // With a pool of several GPUs, the candidates handed to it at once per GPU (SearchEngine::batchSize):
    // the pool gives each idle worker the next one, so a batch waits for its slowest race less the more
    // it holds; one GPU always takes one at a time. On four H200s 16 measured 23-24% more race rounds per
    // second than 4 (docs/status.md, "Batches on a GPU pool").
    int candidatesPerGpu = 16;
    double sipT0 = 0.4;
    double sipCooling = 0.003;
    double sipTMin = 0.05;
    int sipMaxSteps = 1000;
    // Which instructions proposals touch (search_vocabulary.h); for Stalls the search run supplies the
    // weights (EditProposer::setGuide).
    ProposalGuide guide = ProposalGuide::Uniform;
    // PPO only (docs/ppo.md): the hyper-parameters, and the preset they started from.
    PpoSettings ppo;
    std::string ppoPreset = "sassx";

    // Checks the combination (preset of another algorithm, no budget, the rescheduled space, the list
    // scheduler in the yield space); the error is one line.
    Status validate() const;
    std::string describe() const; // "anneal (sip) in mem, 300 evaluations, seed 1"
    // With --space auto, sets `space` to what autoSpace() picks for the backend that measures; a named
    // space stays. Call it once the evaluator is chosen, before the search starts.
    void resolveSpace(bool measured);
    // "auto" for --space auto, else the space's name: what was asked for.
    std::string spaceRequested() const;
    // Why auto resolved to `space` (autoSpaceReason); empty for a named space.
    std::string spaceReason() const;
};

nlohmann::json toJson(const SearchConfig& c);
Result<SearchConfig> searchConfigFromJson(const nlohmann::json& j);

// The temperature unit of a backend without noise (the estimate): 0.1%.
inline constexpr double kMinTemperatureUnit = 0.001;

} // namespace sassx::search
