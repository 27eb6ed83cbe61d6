#pragma once
// Climbing's own state (strategy_climb.cpp), kept in the checkpoint as SearchState::climb so that a
// resumed climb continues exactly: the sweep in progress (rebuilt from its shuffle seed and position)
// or its probes, how many sweeps in a row kept nothing, and the restarts from a perturbed best. The
// checkpoint's "climb" object is this struct through one to_json/from_json pair; a key missing from an
// older checkpoint keeps its default.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sassx::search {

enum class ClimbPhase : uint8_t
{
    Sweep, // "sweep": every legal single edit of the incumbent in a shuffled order, probes between
    Probe, // "probe": after a sweep that kept nothing, combinations of edits from the same incumbent
};
std::string climbPhaseName(ClimbPhase p);
std::optional<ClimbPhase> parseClimbPhase(const std::string& name);

struct ClimbState
{
    // The incumbent of no sweep: a new sweep is due at the next step.
    static constexpr int kNoSweep = -2;

    ClimbPhase phase = ClimbPhase::Sweep;
    std::optional<uint64_t> sweepSeed; // the sweep's shuffle; none before the first sweep
    uint64_t position = 0;             // the sweep's next single edit
    int64_t turn = 0;                  // candidates drawn in this sweep (every other one is a probe)
    int64_t probesLeft = 0;            // the probe phase's remaining draws
    bool accepted = false;             // the sweep kept a candidate
    int fruitless = 0;                 // sweeps in a row (with their probes) that kept nothing
    int incumbent = kNoSweep;          // the incumbent the sweep was built from
    // Restarts from a perturbed best after the climb converged: how many, the last one's seed, and the
    // time and evaluation count at which it had converged before each.
    int restarts = 0;
    std::optional<uint64_t> restartSeed;
    std::vector<double> convergedSeconds;
    std::vector<int64_t> convergedEvaluations;

    bool operator==(const ClimbState&) const = default;
};

// The checkpoint's keys: phase, sweep_seed, position, turn, probes_left, accepted, fruitless,
// incumbent, restarts, restart_seed, converged_s, converged_evaluations.
void to_json(nlohmann::json& j, const ClimbState& s);
// Throws nlohmann::json's exceptions on a value of the wrong type or an unknown phase (the checkpoint
// reader turns them into its one-line error).
void from_json(const nlohmann::json& j, ClimbState& s);

} // namespace sassx::search
