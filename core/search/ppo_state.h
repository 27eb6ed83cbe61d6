#pragma once
// The PPO strategy's own state (strategy_ppo.cpp), kept in the checkpoint as SearchState::agent so that a
// resumed run continues exactly: each environment's episode, the rollout since the last update (enough
// to rebuild its observations and replay them into the agent), the reward normaliser's statistics, the
// reward's unit and the updates' statistics. The checkpoint's "agent" object is this struct through
// one to_json/from_json pair per type; a checkpoint from before several environments (one episode at
// the top level, one return) reads as one environment's.
#include "core/search/agent.h"

#include "core/rewrite/variant.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sassx::search {

// An environment's episode: its step, the last evaluation of its walk (-1: the original) and the edits it
// made since (edits_per_evaluation > 1), the speed-up last evaluated, and the speed-up the episode
// started from (its reward's zero).
struct PpoEpisode
{
    int step = 0;
    int base = -1;
    std::vector<Edit> edits;
    double speedup = 1.0;
    double startSpeedup = 1.0;

    static PpoEpisode from(int base, double speedup) { return {0, base, {}, speedup, speedup}; }
    bool operator==(const PpoEpisode&) const = default;
};

// One step of the rollout since the last update: what it saw (its environment's base, walk, step,
// speed-up and action sample) and did, and what it earned.
struct PpoTransition
{
    int env = 0;
    int base = -1;
    std::vector<Edit> walked; // the edits since `base` before this step's
    int episodeStep = 0;
    double speedup = 1.0;
    uint64_t subsetSeed = 0;
    int action = 0;      // the chosen row of the observation
    int evaluation = -1; // the history index of its evaluation (-1: not evaluated at this step)
    double rawReward = 0.0, reward = 0.0;
    bool end = false;

    bool operator==(const PpoTransition&) const = default;
};

// CleanRL's NormalizeReward (gym 0.21): the discounted return so far of each environment joins a running
// mean and variance shared by all of them; starts as gymnasium's RunningMeanStd (count ε, mean 0, var 1).
struct RewardNormaliser
{
    double count = 1e-4;
    double mean = 0.0;
    double var = 1.0;
    std::vector<double> returns; // per environment

    static RewardNormaliser fresh(int envs);
    // The reward of environment `env` divided by the running std and clipped to ±10 (CleanRL's
    // TransformReward); the environment's return restarts after its episode's end. The environments
    // of one lock-step join the statistics one after the other, in their order (gymnasium joins them as
    // one batch: the same statistics up to rounding, and a fixed order keeps runs reproducible).
    double normalise(int env, double gamma, double raw, bool end);
    bool operator==(const RewardNormaliser&) const = default;
};

// One update of the agent, as the report's "learning" lists them.
struct PpoUpdateRecord
{
    UpdateStats stats;
    int64_t evaluations = 0; // the run's evaluations when it ran
};

struct PpoState
{
    int numEnvs = 1;
    std::vector<PpoEpisode> envs; // empty until the first step (after the list phase)
    int episodes = 0;
    int updates = 0;
    std::vector<PpoTransition> rollout;
    std::vector<PpoUpdateRecord> learning;
    // Rewards in noise floors on a GPU, reward_scale on the estimate; none in a checkpoint from before
    // reward units (the strategy then takes reward_scale).
    std::optional<double> rewardUnit;
    std::string rewardUnitIs; // "noise floors" or "reward_scale"
    std::optional<RewardNormaliser> rewardNorm;
    std::string agent; // the agent's description
};

void to_json(nlohmann::json& j, const PpoEpisode& e);
void from_json(const nlohmann::json& j, PpoEpisode& e);
void to_json(nlohmann::json& j, const PpoTransition& t);
void from_json(const nlohmann::json& j, PpoTransition& t);
void to_json(nlohmann::json& j, const RewardNormaliser& n);
void from_json(const nlohmann::json& j, RewardNormaliser& n);
void to_json(nlohmann::json& j, const PpoUpdateRecord& r);
void from_json(const nlohmann::json& j, PpoUpdateRecord& r);
// Keys: num_envs, envs, episodes, updates, rollout, learning, reward_unit, reward_unit_is, reward_norm,
// agent. Reading throws nlohmann::json's exceptions on a wrong type or unreadable edits (the checkpoint
// reader turns them into its one-line error).
void to_json(nlohmann::json& j, const PpoState& s);
void from_json(const nlohmann::json& j, PpoState& s);

} // namespace sassx::search
