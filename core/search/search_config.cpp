#include "core/search/search_config.h"

#include "core/search/ppo_config.h"

#include <cmath>
#include <cstdio>

namespace sassx::search {

namespace {

std::string autoSpaceName(AutoSpace rule)
{
    switch (rule) {
    case AutoSpace::Off:
        return "off";
    case AutoSpace::Search:
        return "search";
    case AutoSpace::Tune:
        return "tune";
    }
    return "?";
}

std::optional<AutoSpace> parseAutoSpace(const std::string& name)
{
    for (AutoSpace rule : {AutoSpace::Off, AutoSpace::Search, AutoSpace::Tune})
        if (autoSpaceName(rule) == name) return rule;
    return std::nullopt;
}

} // namespace

std::optional<Algorithm> parseAlgorithm(const std::string& name)
{
    if (name == "climb") return Algorithm::Climb;
    if (name == "anneal") return Algorithm::Anneal;
    if (name == "greedy") return Algorithm::Greedy;
    if (name == "random") return Algorithm::Random;
    if (name == "listsched") return Algorithm::ListSchedule;
    if (name == "ppo") return Algorithm::Ppo;
    return std::nullopt;
}

std::string algorithmName(Algorithm a)
{
    switch (a) {
    case Algorithm::Climb:
        return "climb";
    case Algorithm::Anneal:
        return "anneal";
    case Algorithm::Greedy:
        return "greedy";
    case Algorithm::Random:
        return "random";
    case Algorithm::ListSchedule:
        return "listsched";
    case Algorithm::Ppo:
        return "ppo";
    }
    return "?";
}

SearchSpace autoSpace(AutoSpace rule, bool measured)
{
    if (!measured) return SearchSpace::Mem;
    return rule == AutoSpace::Tune ? SearchSpace::Yield : SearchSpace::AllControl;
}

std::string autoSpaceReason(AutoSpace rule, bool measured)
{
    if (rule == AutoSpace::Off) return {};
    if (!measured)
        return "the estimate scores every yield and reuse edit 1.000x (it models no control bit's effect: "
               "docs/search.md, \"Without a GPU\"), so without a GPU only moves can gain";
    if (rule == AutoSpace::Tune)
        return "on a GPU a tune searches the yield flips, where 5 of a transformer block's 8 largest kernels "
               "gained and none in the mem space (docs/status.md, \"A torch.compile'd transformer block\": "
               "H200)";
    return "on a GPU a search takes moves with yield and reuse edits, where the best of 200 random variants "
           "of a kernel reached 1.027x against 1.008x with memory moves alone (docs/status.md, \"Search "
           "spaces, best of 200 random variants\": hgemm_leakyrelu, H100)";
}

void SearchConfig::resolveSpace(bool measured)
{
    if (autoSpace != AutoSpace::Off) space = search::autoSpace(autoSpace, measured);
}

std::string SearchConfig::spaceRequested() const
{
    return autoSpace == AutoSpace::Off ? spaceName(space) : "auto";
}

std::string SearchConfig::spaceReason() const
{
    // The estimate's pick differs from every rule's GPU pick, so the space says which backend chose it.
    return autoSpaceReason(autoSpace, space != search::autoSpace(autoSpace, false));
}

Status SearchConfig::validate() const
{
    if (preset == AnnealPreset::Sip && algorithm != Algorithm::Anneal)
        return makeError("the sip preset is an annealing schedule: use it with --algo anneal");
    if (std::string why = spaceUnavailableReason(space); !why.empty()) return makeError(why);
    if (algorithm == Algorithm::ListSchedule && !spaceHasMoves(space))
        return makeError("list scheduling reorders instructions, and the " + spaceName(space) +
                         " space has no moves");
    if (budgetEvals < 0 || budgetSeconds < 0) return makeError("a budget cannot be negative");
    // The sip preset ends on its own temperature; every other algorithm needs a limit (a list
    // schedule ends after its few heuristics).
    if (budgetEvals == 0 && budgetSeconds == 0 && preset != AnnealPreset::Sip &&
        algorithm != Algorithm::ListSchedule)
        return makeError("give a budget: --budget-evals N or --budget-time 10m");
    if (maxEditsPerProposal < 1 || randomMaxEdits < 1) return makeError("edits per proposal must be >= 1");
    if (!(t0 > 0) || !(tEnd > 0) || tEnd > t0) return makeError("annealing needs 0 < tEnd <= t0");
    if (!(climbMargin >= 0) || climbSweeps < 1)
        return makeError("climbing needs a margin >= 0 and at least one sweep");
    if (candidatesPerGpu < 1 || candidatesPerGpu > 64)
        return makeError("candidates per GPU must be 1 to 64, not " + std::to_string(candidatesPerGpu));
    if (algorithm == Algorithm::Ppo) {
        if (Status s = search::validate(ppo); !s) return s;
        if (guide != ProposalGuide::Uniform)
            return makeError("the PPO agent learns where to look: it takes no guide");
    }
    return Ok{};
}

std::string SearchConfig::describe() const
{
    std::string s = algorithmName(algorithm);
    if (preset != AnnealPreset::Default) s += " (" + presetName(preset) + ")";
    s += " in " + spaceName(space);
    if (autoSpace != AutoSpace::Off) s += " (auto)";
    if (budgetEvals > 0) s += ", " + std::to_string(budgetEvals) + " evaluations";
    if (budgetSeconds > 0) {
        char b[32];
        std::snprintf(b, sizeof b, ", %.0f s", budgetSeconds);
        s += b;
    }
    if (guide != ProposalGuide::Uniform) s += ", guided by " + guideName(guide);
    if (algorithm == Algorithm::Climb && !climbRestarts) s += ", no restarts";
    return s + ", seed " + std::to_string(seed);
}

nlohmann::json toJson(const SearchConfig& c)
{
    return {{"algorithm", algorithmName(c.algorithm)},
            {"preset", presetName(c.preset)},
            {"space", spaceName(c.space)},
            {"space_requested", c.spaceRequested()},
            {"auto_space", autoSpaceName(c.autoSpace)},
            {"budget_evals", c.budgetEvals},
            {"budget_seconds", c.budgetSeconds},
            {"seed", c.seed},
            {"seed_with_list_schedule", c.seedWithListSchedule},
            {"max_edits_per_proposal", c.maxEditsPerProposal},
            {"random_max_edits", c.randomMaxEdits},
            {"remeasure_every", c.remeasureEvery},
            {"t0_floors", c.t0},
            {"t_end_floors", c.tEnd},
            {"climb_margin", c.climbMargin},
            {"climb_sweeps", c.climbSweeps},
            {"climb_restarts", c.climbRestarts},
            {"candidates_per_gpu", c.candidatesPerGpu},
            {"guide", guideName(c.guide)},
            {"ppo_preset", c.ppoPreset},
            {"ppo", toJson(c.ppo)}};
}

Result<SearchConfig> searchConfigFromJson(const nlohmann::json& j)
{
    try {
        SearchConfig c;
        auto algo = parseAlgorithm(j.at("algorithm").get<std::string>());
        auto space = parseSearchSpace(j.at("space").get<std::string>());
        if (!algo || !space) return makeError("unknown algorithm or space in the search configuration");
        c.algorithm = *algo;
        c.space = *space;
        auto rule = parseAutoSpace(j.value("auto_space", std::string("off")));
        if (!rule) return makeError("unknown auto_space in the search configuration");
        c.autoSpace = *rule;
        const std::string preset = j.value("preset", "");
        const std::string guide = j.value("guide", guideName(ProposalGuide::Uniform));
        auto parsedPreset = parsePreset(preset);
        if (!parsedPreset) return makeError("unknown preset '" + preset + "' (known: sip)");
        auto parsedGuide = parseGuide(guide);
        if (!parsedGuide) return makeError("unknown guide '" + guide + "' (uniform or stalls)");
        c.preset = *parsedPreset;
        c.guide = *parsedGuide;
        c.budgetEvals = j.value("budget_evals", int64_t(0));
        c.budgetSeconds = j.value("budget_seconds", 0.0);
        c.seed = j.value("seed", uint64_t(1));
        c.seedWithListSchedule = j.value("seed_with_list_schedule", true);
        c.maxEditsPerProposal = j.value("max_edits_per_proposal", c.maxEditsPerProposal);
        c.randomMaxEdits = j.value("random_max_edits", 30);
        c.remeasureEvery = j.value("remeasure_every", 50);
        // Temperatures in noise-floor units ("t0"/"t_end" of older runs were speed-up units: dropped).
        c.t0 = j.value("t0_floors", c.t0);
        c.tEnd = j.value("t_end_floors", c.tEnd);
        c.climbMargin = j.value("climb_margin", c.climbMargin);
        c.climbSweeps = j.value("climb_sweeps", c.climbSweeps);
        c.climbRestarts = j.value("climb_restarts", c.climbRestarts);
        c.candidatesPerGpu = j.value("candidates_per_gpu", c.candidatesPerGpu);
        c.ppoPreset = j.value("ppo_preset", std::string("sassx"));
        if (j.contains("ppo")) {
            // A checkpoint written before the reward settings existed ran step rewards, unnormalised ...
            PpoSettings before;
            before.reward = RewardMode::Step;
            before.normalizeReward = false;
            // ... and, before several environments, one environment whose episodes all started from the
            // original, with no list schedule first (strategy_ppo.cpp upgrades its state the same way).
            before.numEnvs = 1;
            before.startFromBest = 0.0;
            before.listSeed = false;
            before.editsPerEvaluation = 1;
            // ... and, before improving_only, walks that took every step.
            before.improvingOnly = false;
            auto ppo = ppoSettingsFromJson(j.at("ppo"), before);
            if (!ppo) return ppo.error();
            c.ppo = *ppo;
        }
        if (Status s = c.validate(); !s) return s.error();
        return c;
    } catch (const std::exception& e) {
        return makeError(std::string("unreadable search configuration: ") + e.what());
    }
}

} // namespace sassx::search
