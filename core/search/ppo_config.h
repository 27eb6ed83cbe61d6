#pragma once
// PPO settings as JSON: what `--ppo-config FILE` reads, what every checkpoint and report keeps. Presets
// name whole sets; a file may set any subset of the keys on top of a preset (docs/ppo.md lists them).
#include "core/common/result.h"
#include "core/search/agent.h"

#include <nlohmann/json.hpp>

namespace sassx::search {

// "cuasmrl": CuAsmRL's published settings (CGO 2025): lr 2.5e-4, γ 0.99, λ 0.95, clip 0.2, 64 steps per
// update, with CleanRL's PPO defaults for the rest (4 epochs, no target KL). Its policy does not move
// (docs/ppo.md, "Learnability"). "sassx", the default: the same with lr 1e-3, 10 epochs and a target-KL
// stop at 0.05, episode-end rewards (γ = 1) and running reward normalisation.
Result<PpoSettings> ppoPreset(const std::string& name);
nlohmann::json toJson(const PpoSettings& s);
// Reads keys over `base`; an unknown key or a value out of range is an error naming it.
Result<PpoSettings> ppoSettingsFromJson(const nlohmann::json& j, PpoSettings base = {});
Status validate(const PpoSettings& s);

} // namespace sassx::search
