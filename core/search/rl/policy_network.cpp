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
    return batchLogits(actions.unsqueeze(0), state.unsqueeze(0)).squeeze(0);
}

torch::Tensor PolicyNetworkImpl::batchLogits(const torch::Tensor& actions, const torch::Tensor& states)
{
    // The first layer sees [action row, schedule features]; its product with the schedule's part is
    // the same for every row of a transition, so it is computed once per transition and broadcast
    // instead of copying the schedule's features beside every row (a quarter of that layer's work,
    // and the copy). Same parameters as the concatenated layer, so saved policies load unchanged.
    const auto first = actor[0]->as<torch::nn::Linear>();
    const int64_t actionDim = actions.size(2);
    const auto w = first->weight;
    auto h = torch::matmul(actions, w.narrow(1, 0, actionDim).t()) +
             torch::addmm(first->bias, states, w.narrow(1, actionDim, states.size(1)).t()).unsqueeze(1);
    h = torch::tanh(h);
    h = torch::tanh(actor[2]->as<torch::nn::Linear>()->forward(h));
    return actor[4]->as<torch::nn::Linear>()->forward(h).squeeze(2);
}

torch::Tensor PolicyNetworkImpl::value(const torch::Tensor& state)
{
    return critic->forward(state).squeeze(-1);
}

} // namespace sassx::search::rl
