#include "core/search/ppo_config.h"

#include <functional>
#include <map>
#include <stdexcept>

namespace sassx::search {

namespace {

struct Field
{
    std::function<nlohmann::json(const PpoSettings&)> get;
    std::function<void(PpoSettings&, const nlohmann::json&)> set;
};

// A setter throws std::invalid_argument with the reason, which follows the key in the error.
template <typename T> Field field(T PpoSettings::*m)
{
    return {[m](const PpoSettings& s) { return nlohmann::json(s.*m); },
            [m](PpoSettings& s, const nlohmann::json& v) {
                if (!v.is_number()) throw std::invalid_argument("takes a number");
                s.*m = v.get<T>();
            }};
}

Field flag(bool PpoSettings::*m)
{
    return {[m](const PpoSettings& s) { return nlohmann::json(s.*m); },
            [m](PpoSettings& s, const nlohmann::json& v) {
                if (!v.is_boolean()) throw std::invalid_argument("takes true or false");
                s.*m = v.get<bool>();
            }};
}

Field rewardField()
{
    return {[](const PpoSettings& s) {
                return nlohmann::json(s.reward == RewardMode::Episode ? "episode" : "step");
            },
            [](PpoSettings& s, const nlohmann::json& v) {
                const std::string mode = v.is_string() ? v.get<std::string>() : std::string();
                if (mode == "step")
                    s.reward = RewardMode::Step;
                else if (mode == "episode")
                    s.reward = RewardMode::Episode;
                else
                    throw std::invalid_argument("takes \"step\" or \"episode\"");
            }};
}

const std::map<std::string, Field>& fields()
{
    static const std::map<std::string, Field> f{
        {"learning_rate", field(&PpoSettings::learningRate)},
        {"gamma", field(&PpoSettings::gamma)},
        {"gae_lambda", field(&PpoSettings::lambda)},
        {"clip", field(&PpoSettings::clip)},
        {"steps_per_update", field(&PpoSettings::stepsPerUpdate)},
        {"epochs", field(&PpoSettings::epochs)},
        {"minibatches", field(&PpoSettings::minibatches)},
        {"entropy_coef", field(&PpoSettings::entropyCoef)},
        {"value_coef", field(&PpoSettings::valueCoef)},
        {"max_grad_norm", field(&PpoSettings::maxGradNorm)},
        {"hidden", field(&PpoSettings::hidden)},
        {"episode_length", field(&PpoSettings::episodeLength)},
        {"max_actions", field(&PpoSettings::maxActions)},
        {"reward_scale", field(&PpoSettings::rewardScale)},
        {"target_kl", field(&PpoSettings::targetKl)},
        {"reward", rewardField()},
        {"normalize_reward", flag(&PpoSettings::normalizeReward)},
        {"num_envs", field(&PpoSettings::numEnvs)},
        {"start_from_best", field(&PpoSettings::startFromBest)},
        {"list_seed", flag(&PpoSettings::listSeed)},
        {"edits_per_evaluation", field(&PpoSettings::editsPerEvaluation)},
        {"improving_only", flag(&PpoSettings::improvingOnly)},
    };
    return f;
}

} // namespace

Result<PpoSettings> ppoPreset(const std::string& name)
{
    if (name.empty() || name == "sassx") return PpoSettings{};
    if (name == "cuasmrl") {
        PpoSettings s;
        s.learningRate = 2.5e-4;
        s.epochs = 4; // CleanRL's default, which CuAsmRL kept
        s.targetKl = 0.0;
        s.reward = RewardMode::Step; // Δ speed-up per step, unnormalised
        s.normalizeReward = false;
        // CuAsmRL's rollout of 64 steps, every step measured, episodes from ptxas' schedule; all rows.
        s.stepsPerUpdate = 64;
        s.maxActions = 1024;
        s.editsPerEvaluation = 1;
        s.startFromBest = 0.0;
        s.listSeed = false;
        s.improvingOnly = false;
        return s;
    }
    return makeError("unknown PPO preset '" + name + "' (known: sassx, cuasmrl)");
}

nlohmann::json toJson(const PpoSettings& s)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, f] : fields())
        j[key] = f.get(s);
    return j;
}

Result<PpoSettings> ppoSettingsFromJson(const nlohmann::json& j, PpoSettings base)
{
    if (!j.is_object()) return makeError("PPO settings must be a JSON object");
    for (const auto& [key, value] : j.items()) {
        if (key == "preset" || key.starts_with("//")) continue; // "//": comments in a settings file
        auto it = fields().find(key);
        if (it == fields().end())
            return makeError("unknown PPO setting '" + key + "' (docs/ppo.md lists them)");
        try {
            it->second.set(base, value);
        } catch (const std::invalid_argument& e) {
            return makeError("PPO setting '" + key + "' " + e.what());
        } catch (const std::exception& e) {
            return makeError("PPO setting '" + key + "': " + e.what());
        }
    }
    if (Status s = validate(base); !s) return s.error();
    return base;
}

Status validate(const PpoSettings& s)
{
    auto bad = [](const std::string& what) { return Status(makeError("PPO setting " + what)); };
    if (!(s.learningRate > 0 && s.learningRate < 1)) return bad("learning_rate must be in (0, 1)");
    if (!(s.gamma >= 0 && s.gamma <= 1)) return bad("gamma must be in [0, 1]");
    if (!(s.lambda >= 0 && s.lambda <= 1)) return bad("gae_lambda must be in [0, 1]");
    if (!(s.clip > 0 && s.clip < 1)) return bad("clip must be in (0, 1)");
    if (s.stepsPerUpdate < 2 || s.stepsPerUpdate > 65536)
        return bad("steps_per_update must be in [2, 65536]");
    if (s.epochs < 1 || s.epochs > 100) return bad("epochs must be in [1, 100]");
    if (s.minibatches < 1 || s.minibatches > s.stepsPerUpdate)
        return bad("minibatches must be in [1, steps_per_update]");
    if (!(s.entropyCoef >= 0) || !(s.valueCoef >= 0)) return bad("coefficients cannot be negative");
    if (!(s.maxGradNorm > 0)) return bad("max_grad_norm must be > 0");
    if (s.hidden < 4 || s.hidden > 4096) return bad("hidden must be in [4, 4096]");
    if (s.episodeLength < 1 || s.episodeLength > 10000) return bad("episode_length must be in [1, 10000]");
    if (s.maxActions < 2 || s.maxActions > 1000000) return bad("max_actions must be in [2, 1000000]");
    if (!(s.rewardScale > 0)) return bad("reward_scale must be > 0");
    if (!(s.targetKl >= 0)) return bad("target_kl cannot be negative (0: no early stop)");
    if (s.numEnvs < 0 || s.numEnvs > 1024) return bad("num_envs must be in [0, 1024] (0: automatic)");
    if (!(s.startFromBest >= 0 && s.startFromBest <= 1)) return bad("start_from_best must be in [0, 1]");
    if (s.editsPerEvaluation < 1 || s.editsPerEvaluation > s.episodeLength)
        return bad("edits_per_evaluation must be in [1, episode_length]");
    return Ok{};
}

} // namespace sassx::search
