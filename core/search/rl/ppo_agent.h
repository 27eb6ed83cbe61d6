#pragma once
// PPO (clipped objective, GAE, value head, entropy bonus; CleanRL's update) over the masked action sets
// of agent.h. Plug-in only (libtorch).
#include "core/search/agent.h"
#include "core/search/rl/policy_network.h"

#include <memory>
#include <vector>

namespace sassx::search::rl {

class PpoAgent final : public ScheduleAgent
{
public:
    PpoAgent(const PpoSettings& settings, int actionDim, int stateDim, uint64_t seed);

    std::string describe() const override;
    int act(const Observation& obs, std::mt19937_64& rng, int env = 0) override;
    void replay(const Observation& obs, int action, int env = 0) override;
    void reward(double r, bool episodeEnd, int env = 0) override;
    int pending() const override { return int(m_rollout.size()); }
    using ScheduleAgent::update;
    UpdateStats update(const std::vector<Observation>& next, std::mt19937_64& rng) override;
    std::vector<double> probabilities(const Observation& obs) override;
    std::string save() const override;
    std::string load(const std::string& bytes, bool withOptimizer) override;

private:
    struct Transition
    {
        torch::Tensor actions, state;
        int action = 0;
        int env = 0;
        float logProb = 0, value = 0, reward = 0;
        bool end = false;
    };
    std::pair<torch::Tensor, torch::Tensor> tensors(const Observation& obs) const;
    void keep(torch::Tensor actions, torch::Tensor state, int action, int env, const torch::Tensor& logProbs);
    double minibatchStep(const std::vector<size_t>& batch, const std::vector<float>& advantages,
                         const std::vector<float>& returns, UpdateStats& stats);

    PpoSettings m_settings;
    int m_actionDim, m_stateDim;
    PolicyNetwork m_net;
    std::unique_ptr<torch::optim::Adam> m_optimizer;
    std::vector<Transition> m_rollout;
    std::vector<int> m_lastOf; // per environment, its last transition in m_rollout (-1: none)
    int m_updates = 0;
};

} // namespace sassx::search::rl
