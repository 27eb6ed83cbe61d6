#include "core/search/rl/ppo_agent.h"

#include "core/search/rl/explained_variance.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <sstream>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sassx::search::rl {

namespace {

// Every minibatch allocates and frees the same few CPU tensors of 0.1-1 MB. glibc hands blocks of that
// size back to the kernel when they are freed (mmap above its threshold, trimming the heap's top), and the
// kernel zeroes fresh pages on the next fault: on flash_attn_fwd under the estimate that was 7 s of system
// time in a 33 s run (docs/status.md, "PPO agent time"). Fixed thresholds keep those blocks in
// the heap, at ~15 MB more resident memory. Process-wide, so set once, by the first agent.
void keepTensorMemory()
{
#if defined(__GLIBC__)
    static std::once_flag once;
    std::call_once(once, [] {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 128 << 20);
    });
#endif
}

} // namespace

PpoAgent::PpoAgent(const PpoSettings& settings, int actionDim, int stateDim, uint64_t seed)
    : m_settings(settings), m_actionDim(actionDim), m_stateDim(stateDim), m_net(nullptr)
{
    // One thread: the networks are small, and a fixed reduction order keeps seeded runs reproducible.
    torch::set_num_threads(1);
    torch::manual_seed(seed);
    keepTensorMemory();
    m_net = PolicyNetwork(actionDim, stateDim, settings.hidden);
    m_optimizer = std::make_unique<torch::optim::Adam>(
        m_net->parameters(), torch::optim::AdamOptions(settings.learningRate).eps(1e-5));
}

std::string PpoAgent::describe() const
{
    int64_t params = 0;
    for (const auto& p : m_net->parameters())
        params += p.numel();
    std::ostringstream s;
    s << "PPO (libtorch " << TORCH_VERSION << "), 2x" << m_settings.hidden << " hidden, " << params
      << " parameters";
    return s.str();
}

std::pair<torch::Tensor, torch::Tensor> PpoAgent::tensors(const Observation& obs) const
{
    auto a = torch::from_blob(const_cast<float*>(obs.actions.data()), {obs.count(), int64_t(obs.actionDim)},
                              torch::kFloat32)
                 .clone();
    auto s = torch::from_blob(const_cast<float*>(obs.state.data()), {int64_t(obs.stateDim)}, torch::kFloat32)
                 .clone();
    return {a, s};
}

void PpoAgent::keep(torch::Tensor actions, torch::Tensor state, int action, int env,
                    const torch::Tensor& logProbs)
{
    torch::NoGradGuard guard;
    Transition t;
    t.env = env;
    t.logProb = logProbs[action].item<float>();
    t.value = m_net->value(state).item<float>();
    t.actions = std::move(actions);
    t.state = std::move(state);
    t.action = action;
    if (env >= int(m_lastOf.size())) m_lastOf.resize(size_t(env) + 1, -1);
    m_lastOf[size_t(env)] = int(m_rollout.size());
    m_rollout.push_back(std::move(t));
}

int PpoAgent::act(const Observation& obs, std::mt19937_64& rng, int env)
{
    auto [a, s] = tensors(obs);
    torch::Tensor logp;
    std::vector<double> p;
    {
        torch::NoGradGuard guard;
        logp = torch::log_softmax(m_net->logits(a, s), 0);
        const auto probs = logp.to(torch::kFloat64).exp().contiguous();
        p.assign(probs.data_ptr<double>(), probs.data_ptr<double>() + probs.numel());
    }
    // Sampled with the search's engine, not torch's: the run's seed and checkpoint fix every draw.
    const int action = int(std::discrete_distribution<size_t>(p.begin(), p.end())(rng));
    keep(std::move(a), std::move(s), action, env, logp);
    return action;
}

void PpoAgent::replay(const Observation& obs, int action, int env)
{
    auto [a, s] = tensors(obs);
    torch::Tensor logp;
    {
        torch::NoGradGuard guard;
        logp = torch::log_softmax(m_net->logits(a, s), 0);
    }
    keep(std::move(a), std::move(s), action, env, logp);
}

void PpoAgent::reward(double r, bool episodeEnd, int env)
{
    if (env < 0 || env >= int(m_lastOf.size()) || m_lastOf[size_t(env)] < 0) return;
    Transition& t = m_rollout[size_t(m_lastOf[size_t(env)])];
    t.reward = float(r);
    t.end = episodeEnd;
}

std::vector<double> PpoAgent::probabilities(const Observation& obs)
{
    if (obs.count() == 0) return {};
    auto [a, s] = tensors(obs);
    torch::NoGradGuard guard;
    const auto probs = torch::softmax(m_net->logits(a, s).to(torch::kFloat64), 0).contiguous();
    return {probs.data_ptr<double>(), probs.data_ptr<double>() + probs.numel()};
}

double PpoAgent::minibatchStep(const std::vector<size_t>& batch, const std::vector<float>& advantages,
                               const std::vector<float>& returns, UpdateStats& stats)
{
    const double clip = m_settings.clip;
    const auto size = int64_t(batch.size());
    // One padded batch through the network: rows beyond a transition's own action count are masked.
    int64_t rows = 0;
    for (size_t i : batch)
        rows = std::max(rows, m_rollout[i].actions.size(0));
    auto actions = torch::zeros({size, rows, int64_t(m_actionDim)});
    auto mask = torch::zeros({size, rows}, torch::kBool);
    std::vector<torch::Tensor> states;
    std::vector<int64_t> picked;
    std::vector<float> oldLogp, oldValue, adv, ret;
    for (int64_t b = 0; b < size; ++b) {
        const Transition& t = m_rollout[batch[size_t(b)]];
        const int64_t n = t.actions.size(0);
        actions[b].narrow(0, 0, n).copy_(t.actions);
        mask[b].narrow(0, 0, n).fill_(true);
        states.push_back(t.state);
        picked.push_back(t.action);
        oldLogp.push_back(t.logProb);
        oldValue.push_back(t.value);
        adv.push_back(advantages[batch[size_t(b)]]);
        ret.push_back(returns[batch[size_t(b)]]);
    }
    auto vec = [](std::vector<float>& v) { return torch::from_blob(v.data(), {int64_t(v.size())}).clone(); };
    auto advantage = vec(adv);
    // Advantages normalised per minibatch (CleanRL's norm_adv).
    if (size > 1) advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8);
    const auto stateBatch = torch::stack(states);
    const auto logits = m_net->batchLogits(actions, stateBatch).masked_fill(~mask, -1e9);
    const auto logp = torch::log_softmax(logits, 1);
    const auto index = torch::tensor(picked, torch::kInt64).unsqueeze(1);
    const auto newLogp = logp.gather(1, index).squeeze(1);
    const auto entropy = -(logp.exp() * logp).masked_fill(~mask, 0.0).sum(1).mean();
    const auto logRatio = newLogp - vec(oldLogp);
    const auto ratio = logRatio.exp();
    const auto pgLoss =
        torch::max(-advantage * ratio, -advantage * torch::clamp(ratio, 1 - clip, 1 + clip)).mean();
    // Clipped value loss (CleanRL's clip_vloss).
    const auto v = m_net->value(stateBatch);
    const auto v0 = vec(oldValue), r = vec(ret);
    const auto vClipped = v0 + torch::clamp(v - v0, -clip, clip);
    const auto vLoss = (0.5 * torch::max((v - r).pow(2), (vClipped - r).pow(2))).mean();
    const auto loss = pgLoss - m_settings.entropyCoef * entropy + m_settings.valueCoef * vLoss;
    m_optimizer->zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(m_net->parameters(), m_settings.maxGradNorm);
    m_optimizer->step();
    torch::NoGradGuard guard;
    stats.policyLoss = pgLoss.item<double>();
    stats.valueLoss = vLoss.item<double>();
    stats.entropy = entropy.item<double>();
    stats.approxKl = ((ratio - 1) - logRatio).mean().item<double>();
    return ((ratio - 1).abs() > clip).to(torch::kFloat64).mean().item<double>();
}

UpdateStats PpoAgent::update(const std::vector<Observation>& next, std::mt19937_64& rng)
{
    UpdateStats stats;
    const size_t n = m_rollout.size();
    if (n == 0) return stats;
    // GAE along each environment's own transitions (interleaved in the rollout when several play in
    // lock-step); an episode cut by the rollout bootstraps from that environment's next observation.
    std::vector<float> advantages(n), returns(n);
    const double gamma = effectiveGamma(m_settings);
    for (size_t env = 0; env < m_lastOf.size(); ++env) {
        float v1 = 0;
        if (env < next.size() && next[env].stateDim == m_stateDim && !next[env].state.empty()) {
            torch::NoGradGuard guard;
            v1 = m_net->value(tensors(next[env]).second).item<float>();
        }
        float last = 0;
        for (size_t k = n; k-- > 0;) {
            const Transition& t = m_rollout[k];
            if (size_t(t.env) != env) continue;
            const float nonTerminal = t.end ? 0.0f : 1.0f;
            const float delta = t.reward + float(gamma) * v1 * nonTerminal - t.value;
            last = delta + float(gamma * m_settings.lambda) * nonTerminal * last;
            advantages[k] = last;
            returns[k] = last + t.value;
            v1 = t.value;
        }
    }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    const size_t mb = std::max<size_t>(1, n / size_t(std::max(1, m_settings.minibatches)));
    double clipFraction = 0;
    int batches = 0;
    for (int epoch = 0; epoch < m_settings.epochs; ++epoch) {
        std::shuffle(order.begin(), order.end(), rng);
        double epochKl = 0;
        int epochBatches = 0;
        for (size_t start = 0; start < n; start += mb) {
            std::vector<size_t> batch(order.begin() + std::ptrdiff_t(start),
                                      order.begin() + std::ptrdiff_t(std::min(n, start + mb)));
            clipFraction += minibatchStep(batch, advantages, returns, stats);
            epochKl += stats.approxKl;
            ++batches;
            ++epochBatches;
        }
        stats.approxKl = epochKl / std::max(1, epochBatches);
        stats.epochs = epoch + 1;
        // Target-KL early stop (CleanRL's target_kl): the policy moved as far as one rollout warrants.
        if (m_settings.targetKl > 0 && stats.approxKl > m_settings.targetKl) break;
    }
    stats.clipFraction = batches ? clipFraction / batches : 0.0;
    // How much of the returns' variance the value head explains (explained_variance.h).
    std::vector<double> values(n);
    for (size_t k = 0; k < n; ++k)
        values[k] = m_rollout[k].value;
    stats.explainedVariance = explainedVariance(std::vector<double>(returns.begin(), returns.end()), values);
    m_rollout.clear();
    m_lastOf.clear();
    stats.updates = ++m_updates;
    return stats;
}

std::string PpoAgent::save() const
{
    torch::serialize::OutputArchive archive;
    m_net->save(archive);
    torch::serialize::OutputArchive optimizer;
    m_optimizer->save(optimizer);
    archive.write("optimizer", optimizer);
    archive.write("dims",
                  torch::tensor({int64_t(m_actionDim), int64_t(m_stateDim), int64_t(m_settings.hidden),
                                 int64_t(kAgentAbiVersion), int64_t(m_updates)}));
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
}

std::string PpoAgent::load(const std::string& bytes, bool withOptimizer)
{
    try {
        std::istringstream in(bytes);
        torch::serialize::InputArchive archive;
        archive.load_from(in);
        torch::Tensor dims;
        archive.read("dims", dims);
        if (dims.numel() < 5) return "not a sassx policy (no dimensions)";
        const auto d = dims.to(torch::kInt64);
        const int64_t a = d[0].item<int64_t>(), s = d[1].item<int64_t>(), h = d[2].item<int64_t>();
        if (a != m_actionDim || s != m_stateDim || h != m_settings.hidden) {
            std::ostringstream why;
            why << "saved for " << a << " action and " << s << " state features with " << h
                << " hidden units; this run uses " << m_actionDim << ", " << m_stateDim << " and "
                << m_settings.hidden;
            return why.str();
        }
        m_net->load(archive);
        if (withOptimizer) {
            torch::serialize::InputArchive optimizer;
            archive.read("optimizer", optimizer);
            m_optimizer->load(optimizer);
            m_updates = int(d[4].item<int64_t>());
        }
        m_rollout.clear();
        m_lastOf.clear();
        return {};
    } catch (const std::exception& e) {
        std::string what = e.what();
        return "unreadable policy: " + what.substr(0, what.find('\n'));
    }
}

} // namespace sassx::search::rl
