#include "core/search/rl/policy_network.h"

#include <cmath>

namespace sassx::search::rl {

namespace {

torch::nn::Linear layer(int in, int out, double gain)
{
    torch::nn::Linear l(in, out);
    torch::NoGradGuard guard;
    torch::nn::init::orthogonal_(l->weight, gain);
    torch::nn::init::constant_(l->bias, 0.0);
    return l;
}

} // namespace

PolicyNetworkImpl::PolicyNetworkImpl(int actionDim, int stateDim, int hidden)
{
    const double root2 = std::sqrt(2.0);
    actor = register_module("actor", torch::nn::Sequential(layer(actionDim + stateDim, hidden, root2),
                                                           torch::nn::Tanh(), layer(hidden, hidden, root2),
                                                           torch::nn::Tanh(), layer(hidden, 1, 0.01)));
    critic = register_module("critic", torch::nn::Sequential(layer(stateDim, hidden, root2),
                                                             torch::nn::Tanh(), layer(hidden, hidden, root2),
                                                             torch::nn::Tanh(), layer(hidden, 1, 0.01)));
}

torch::Tensor PolicyNetworkImpl::logits(const torch::Tensor& actions, const torch::Tensor& state)
{
    const auto n = actions.size(0);
    auto input = torch::cat({actions, state.unsqueeze(0).expand({n, state.size(0)})}, 1);
    return actor->forward(input).squeeze(1);
}

torch::Tensor PolicyNetworkImpl::batchLogits(const torch::Tensor& actions, const torch::Tensor& states)
{
    const auto b = actions.size(0), n = actions.size(1);
    auto input = torch::cat({actions, states.unsqueeze(1).expand({b, n, states.size(1)})}, 2);
    return actor->forward(input).squeeze(2);
}

torch::Tensor PolicyNetworkImpl::value(const torch::Tensor& state)
{
    return critic->forward(state).squeeze(-1);
}

} // namespace sassx::search::rl
