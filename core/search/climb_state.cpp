#include "core/search/climb_state.h"

namespace sassx::search {

std::string climbPhaseName(ClimbPhase p)
{
    switch (p) {
    case ClimbPhase::Sweep:
        return "sweep";
    case ClimbPhase::Probe:
        return "probe";
    }
    return "?";
}

std::optional<ClimbPhase> parseClimbPhase(const std::string& name)
{
    for (ClimbPhase p : {ClimbPhase::Sweep, ClimbPhase::Probe})
        if (climbPhaseName(p) == name) return p;
    return std::nullopt;
}

void to_json(nlohmann::json& j, const ClimbState& s)
{
    j = {{"phase", climbPhaseName(s.phase)},
         {"position", s.position},
         {"turn", s.turn},
         {"probes_left", s.probesLeft},
         {"accepted", s.accepted},
         {"fruitless", s.fruitless},
         {"incumbent", s.incumbent},
         {"restarts", s.restarts},
         {"converged_s", s.convergedSeconds},
         {"converged_evaluations", s.convergedEvaluations}};
    if (s.sweepSeed) j["sweep_seed"] = *s.sweepSeed;
    if (s.restartSeed) j["restart_seed"] = *s.restartSeed;
}

void from_json(const nlohmann::json& j, ClimbState& s)
{
    const ClimbState defaults;
    const std::string phase = j.value("phase", climbPhaseName(defaults.phase));
    const auto parsed = parseClimbPhase(phase);
    if (!parsed) throw nlohmann::json::other_error::create(501, "unknown climb phase '" + phase + "'", &j);
    s.phase = *parsed;
    s.sweepSeed = j.contains("sweep_seed") ? std::optional(j.at("sweep_seed").get<uint64_t>()) : std::nullopt;
    s.position = j.value("position", defaults.position);
    s.turn = j.value("turn", defaults.turn);
    s.probesLeft = j.value("probes_left", defaults.probesLeft);
    s.accepted = j.value("accepted", defaults.accepted);
    s.fruitless = j.value("fruitless", defaults.fruitless);
    s.incumbent = j.value("incumbent", defaults.incumbent);
    s.restarts = j.value("restarts", defaults.restarts);
    s.restartSeed =
        j.contains("restart_seed") ? std::optional(j.at("restart_seed").get<uint64_t>()) : std::nullopt;
    s.convergedSeconds = j.value("converged_s", defaults.convergedSeconds);
    s.convergedEvaluations = j.value("converged_evaluations", defaults.convergedEvaluations);
}

} // namespace sassx::search
