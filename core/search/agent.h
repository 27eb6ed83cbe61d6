#pragma once
// A learning agent that plays the assembly game (docs/ppo.md): at each step it sees an observation of the
// current schedule (one feature row per legal action, plus the schedule's own features) and picks one
// row. Masking is by construction: the observation only ever holds legal actions (the checker's legal
// edits of the search space, core/search/schedule_features.h), so the agent's softmax runs over legal
// actions alone, never a penalty for illegal ones.
//
// The agent lives in a plug-in (libsassx_ppo.so, core/search/rl/) that is built when libtorch is found
// and loaded at run time (agent_loader.h), as CUPTI and the driver are: sassx starts without libtorch,
// and a GPU machine can build the plug-in against its own libtorch. This header is the whole boundary,
// so it holds only standard-library types; kAgentAbiVersion changes whenever it does.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sassx::search {

inline constexpr int kAgentAbiVersion = 5;

// What a step's reward is (docs/ppo.md, "Rewards"). Step: the change in speed-up the step made. Episode: 0
// for every step but an episode's last, which gets the speed-up of the episode's final schedule over the
// original − 1, from that schedule's own evaluation (one paired measurement against the original on a
// GPU), with γ = 1.
enum class RewardMode
{
    Step,
    Episode
};

// The PPO hyper-parameters (ppo_config.h reads and writes them as JSON; docs/ppo.md documents each).
// The defaults are the "sassx" preset: CuAsmRL's with the learning rate, the epochs and the target-KL stop
// that tests/core/search/test_ppo_learnability.cpp chose (docs/ppo.md, "Learnability"), episode-end
// rewards and reward normalisation, and the rollout, rows, walks and starts that the estimate tables
// chose (docs/ppo.md; docs/status.md, "PPO against random on the estimate").
struct PpoSettings
{
    double learningRate = 1e-3;
    double gamma = 0.99;
    double lambda = 0.95; // GAE
    double clip = 0.2;
    int stepsPerUpdate = 32; // transitions collected before each update, all environments together
    int epochs = 10;         // passes over each rollout (at most: see targetKl)
    int minibatches = 4;
    double entropyCoef = 0.01;
    double valueCoef = 0.5;
    double maxGradNorm = 0.5;
    int hidden = 64;          // width of the two hidden layers of both heads
    int episodeLength = 16;   // moves per episode from the start schedule
    int maxActions = 256;     // legal actions shown per step (a seeded sample when there are more)
    double rewardScale = 100; // reward = Δ speed-up × this (100: percentage points)
    double targetKl = 0.05;   // an update stops its epochs once approx-KL passes this (0: never)
    // Environments played in lock-step, their N candidates measured as one batch (0: the evaluator's
    // parallelism, one per GPU of the pool; kAutoEstimateEnvs on the estimate). docs/ppo.md.
    int numEnvs = 0;
    // The share of episodes that start from the run's best schedule instead of the start (exploitation).
    double startFromBest = 0.5;
    // Edits an episode makes between two evaluations of its schedule (1: every step is measured); an
    // episode's last step is always measured. Rewards of the steps between are 0.
    int editsPerEvaluation = 4;
    // The list-schedule heuristics seed the run first, as they seed the other searches (unless the run
    // says --no-list-seed), and episodes start from the best of them instead of ptxas' schedule.
    bool listSeed = true;
    // An episode keeps an evaluated step only when it is faster than the episode's schedule before it
    // (by the noise floor on a GPU); otherwise the episode stays where it was, and the step's reward is
    // still what it would have changed. Off: every step is taken, better or worse (CuAsmRL's walk). On in
    // the preset: on the estimate it turned 3 of 12 wins against random into 10 of 12
    // (docs/status.md, "PPO against random on the estimate").
    bool improvingOnly = true;
    // Episode-end rewards by default: on the estimate they learned faster than step rewards on
    // sgemm_leakyrelu (docs/ppo.md, "Rewards"), and on a GPU they carry one measurement's noise, not two.
    RewardMode reward = RewardMode::Episode;
    // Rewards divided by a running std of the discounted return (CleanRL's NormalizeReward), clipped to
    // ±10; the search keeps the running statistics in its checkpoint (strategy_ppo.cpp).
    bool normalizeReward = true;
};

// The discount the update and the reward normaliser use: an episode-end reward is the episode's whole
// return, so it reaches every step of its episode undiscounted.
inline double effectiveGamma(const PpoSettings& s)
{
    return s.reward == RewardMode::Episode ? 1.0 : s.gamma;
}

// One step's view of the schedule. Rows of `actions` are actionDim floats each.
struct Observation
{
    int actionDim = 0;
    int stateDim = 0;
    std::vector<float> actions; // count() × actionDim, row-major
    std::vector<float> state;   // stateDim
    int count() const { return actionDim > 0 ? int(actions.size()) / actionDim : 0; }
};

struct UpdateStats
{
    int updates = 0; // updates done so far
    int epochs = 0;  // epochs this update ran (fewer than PpoSettings::epochs after a target-KL stop)
    double policyLoss = 0, valueLoss = 0, entropy = 0, approxKl = 0, clipFraction = 0;
    double explainedVariance = 0;
};

class ScheduleAgent
{
public:
    virtual ~ScheduleAgent() = default;
    virtual std::string describe() const = 0; // "PPO (libtorch 2.11.0), 2×64 hidden, 12,345 parameters"

    // Samples an action of `obs` (a row index) with `rng` and keeps the transition, of environment `env`
    // (several play in lock-step: docs/ppo.md), for the next update.
    virtual int act(const Observation& obs, std::mt19937_64& rng, int env = 0) = 0;
    // Keeps a transition whose action is already known (replaying a checkpoint's rollout).
    virtual void replay(const Observation& obs, int action, int env = 0) = 0;
    // The reward of environment `env`'s last action, and whether its episode ended with it.
    virtual void reward(double r, bool episodeEnd, int env = 0) = 0;
    // Transitions kept since the last update, all environments together.
    virtual int pending() const = 0;
    // PPO's update over the kept transitions, GAE along each environment's own transitions; `next[e]` is
    // environment e's observation after its last one (its value bootstraps an episode cut by the
    // rollout; missing or empty: 0). Shuffles minibatches with `rng`. Clears the rollout.
    virtual UpdateStats update(const std::vector<Observation>& next, std::mt19937_64& rng) = 0;
    // One environment's.
    UpdateStats update(const Observation& next, std::mt19937_64& rng)
    {
        return update(std::vector<Observation>{next}, rng);
    }

    // The policy's probabilities of the rows of `obs` (no sampling, nothing kept): suggestions.
    virtual std::vector<double> probabilities(const Observation& obs) = 0;

    // The network and optimizer as bytes (a libtorch archive), and back. The dimensions must match.
    virtual std::string save() const = 0;
    // Empty on success, else why not in one line.
    virtual std::string load(const std::string& bytes, bool withOptimizer) = 0;
};

// The plug-in's one entry point (extern "C", named kAgentFactorySymbol): returns a new agent, or null
// with `error` set. `abi` must equal kAgentAbiVersion.
using AgentFactoryFn = ScheduleAgent* (*)(int abi, const PpoSettings* settings, int actionDim, int stateDim,
                                          uint64_t seed, std::string* error);
inline constexpr const char* kAgentFactorySymbol = "sassx_make_ppo_agent";

} // namespace sassx::search
