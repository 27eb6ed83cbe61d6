#pragma once
// The actor-critic of the PPO agent. The actor scores each legal action's feature row together with the
// schedule's features and gives one logit per row, so one network serves kernels of any length and any
// number of legal actions; the softmax over those rows is the masked policy. The critic maps the
// schedule's features to a value. Two tanh layers each, initialised as CleanRL's PPO does (orthogonal,
// gain √2; 0.01 for the policy output), except the value output, also at 0.01: at gain 1 its first
// guesses are off by the returns' whole scale and the critic explained nothing (docs/ppo.md).
// Plug-in only (libtorch): never include from files that see Qt's `slots` macro.
#include <torch/torch.h>

namespace sassx::search::rl {

struct PolicyNetworkImpl : torch::nn::Module
{
    PolicyNetworkImpl(int actionDim, int stateDim, int hidden);
    // actions [n, actionDim], state [stateDim] → logits [n]
    torch::Tensor logits(const torch::Tensor& actions, const torch::Tensor& state);
    // A padded batch: actions [b, n, actionDim], states [b, stateDim] → logits [b, n] (padding rows get
    // logits too: the caller masks them).
    torch::Tensor batchLogits(const torch::Tensor& actions, const torch::Tensor& states);
    // state [stateDim] or [b, stateDim] → value [] or [b]
    torch::Tensor value(const torch::Tensor& state);

    torch::nn::Sequential actor{nullptr}, critic{nullptr};
};
TORCH_MODULE(PolicyNetwork);

} // namespace sassx::search::rl
