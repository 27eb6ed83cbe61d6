#include "core/search/ppo_state.h"

#include "core/search/edits_json.h"

#include <algorithm>
#include <cmath>

namespace sassx::search {

namespace {

std::vector<Edit> editsOfJson(const nlohmann::json& j, const char* key)
{
    if (!j.contains(key) || j.at(key).is_null() || j.at(key).empty()) return {};
    auto v = editsFromJson(j.at(key));
    if (!v) throw nlohmann::json::other_error::create(501, "unreadable PPO edits: " + v.message(), &j);
    return std::move(*v);
}

} // namespace

RewardNormaliser RewardNormaliser::fresh(int envs)
{
    RewardNormaliser n;
    n.returns.assign(size_t(std::max(0, envs)), 0.0);
    return n;
}

double RewardNormaliser::normalise(int env, double gamma, double raw, bool end)
{
    double& r = returns.at(size_t(env));
    const double ret = r * gamma + raw;
    const double total = count + 1.0, delta = ret - mean;
    mean = mean + delta / total;
    var = (var * count + delta * delta * count / total) / total;
    count = total;
    r = end ? 0.0 : ret;
    return std::clamp(raw / std::sqrt(var + 1e-8), -10.0, 10.0);
}

void to_json(nlohmann::json& j, const PpoEpisode& e)
{
    j = {{"step", e.step},
         {"base", e.base},
         {"edits", editsJson(e.edits)},
         {"speedup", e.speedup},
         {"start_speedup", e.startSpeedup}};
}

void from_json(const nlohmann::json& j, PpoEpisode& e)
{
    e.step = j.at("step").get<int>();
    e.base = j.at("base").get<int>();
    e.edits = editsOfJson(j, "edits");
    e.speedup = j.at("speedup").get<double>();
    e.startSpeedup = j.value("start_speedup", 1.0);
}

void to_json(nlohmann::json& j, const PpoTransition& t)
{
    j = {{"env", t.env},
         {"base", t.base},
         {"walked", editsJson(t.walked)},
         {"episode_step", t.episodeStep},
         {"speedup", t.speedup},
         {"subset_seed", t.subsetSeed},
         {"action", t.action},
         {"evaluation", t.evaluation},
         {"raw_reward", t.rawReward},
         {"reward", t.reward},
         {"end", t.end}};
}

void from_json(const nlohmann::json& j, PpoTransition& t)
{
    t.env = j.value("env", 0); // one environment before several existed
    t.base = j.at("base").get<int>();
    t.walked = editsOfJson(j, "walked");
    t.episodeStep = j.at("episode_step").get<int>();
    t.speedup = j.at("speedup").get<double>();
    t.subsetSeed = j.at("subset_seed").get<uint64_t>();
    t.action = j.at("action").get<int>();
    t.evaluation = j.value("evaluation", -1);
    t.rawReward = j.value("raw_reward", 0.0);
    t.reward = j.at("reward").get<double>();
    t.end = j.at("end").get<bool>();
}

void to_json(nlohmann::json& j, const RewardNormaliser& n)
{
    j = {{"count", n.count}, {"mean", n.mean}, {"var", n.var}, {"return", n.returns}};
}

void from_json(const nlohmann::json& j, RewardNormaliser& n)
{
    n.count = j.at("count").get<double>();
    n.mean = j.at("mean").get<double>();
    n.var = j.at("var").get<double>();
    // One return before several environments existed.
    const nlohmann::json& r = j.at("return");
    n.returns = r.is_array() ? r.get<std::vector<double>>() : std::vector<double>{r.get<double>()};
}

void to_json(nlohmann::json& j, const PpoUpdateRecord& r)
{
    const UpdateStats& s = r.stats;
    j = {{"update", s.updates},
         {"evaluations", r.evaluations},
         {"policy_loss", s.policyLoss},
         {"value_loss", s.valueLoss},
         {"entropy", s.entropy},
         {"approx_kl", s.approxKl},
         {"epochs", s.epochs},
         {"clip_fraction", s.clipFraction},
         {"explained_variance", s.explainedVariance}};
}

void from_json(const nlohmann::json& j, PpoUpdateRecord& r)
{
    UpdateStats& s = r.stats;
    s.updates = j.value("update", 0);
    r.evaluations = j.value("evaluations", int64_t(0));
    s.policyLoss = j.value("policy_loss", 0.0);
    s.valueLoss = j.value("value_loss", 0.0);
    s.entropy = j.value("entropy", 0.0);
    s.approxKl = j.value("approx_kl", 0.0);
    s.epochs = j.value("epochs", 0);
    s.clipFraction = j.value("clip_fraction", 0.0);
    s.explainedVariance = j.value("explained_variance", 0.0);
}

void to_json(nlohmann::json& j, const PpoState& s)
{
    j = {{"num_envs", s.numEnvs}, {"envs", s.envs},         {"episodes", s.episodes}, {"updates", s.updates},
         {"rollout", s.rollout},  {"learning", s.learning}, {"agent", s.agent}};
    if (s.rewardUnit) j["reward_unit"] = *s.rewardUnit;
    if (!s.rewardUnitIs.empty()) j["reward_unit_is"] = s.rewardUnitIs;
    if (s.rewardNorm) j["reward_norm"] = *s.rewardNorm;
}

void from_json(const nlohmann::json& j, PpoState& s)
{
    if (j.contains("envs")) {
        s.numEnvs = j.at("num_envs").get<int>();
        s.envs = j.at("envs").get<std::vector<PpoEpisode>>();
    } else {
        // Before several environments: one episode at the top level, from the original's speed-up.
        PpoEpisode e = PpoEpisode::from(j.value("episode_base", -1), j.value("episode_speedup", 1.0));
        e.step = j.value("episode_step", 0);
        e.startSpeedup = 1.0;
        s.numEnvs = 1;
        s.envs = {e};
    }
    s.episodes = j.value("episodes", 0);
    s.updates = j.value("updates", 0);
    s.rollout = j.value("rollout", std::vector<PpoTransition>{});
    s.learning = j.value("learning", std::vector<PpoUpdateRecord>{});
    s.rewardUnit =
        j.contains("reward_unit") ? std::optional(j.at("reward_unit").get<double>()) : std::nullopt;
    s.rewardUnitIs = j.value("reward_unit_is", std::string());
    s.rewardNorm =
        j.contains("reward_norm") ? std::optional(j.at("reward_norm").get<RewardNormaliser>()) : std::nullopt;
    s.agent = j.value("agent", std::string());
}

} // namespace sassx::search
