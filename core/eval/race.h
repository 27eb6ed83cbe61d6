#pragma once
// Racing: a candidate timed against a reference (the original, or a search's incumbent) in paired,
// interleaved rounds until the evidence says whether it clears a bar. Most candidates of a schedule
// search are neutral or worse; timing each of them for a fixed 10 + 50 rounds spends the GPU on losers.
// A race screens with a few rounds, adds rounds (on a freshly loaded instance) only while the interval
// still straddles the bar, drops a candidate as soon as even the optimistic end of its interval cannot
// clear the bar (or its median does not look faster after the first stage, or past the bar after the
// second), and confirms a survivor on fresh rounds and fresh instances alone, so the rounds that
// selected it never also estimate it (the winner's curse: timing_stats.h).
//
// Pure logic over a measuring callback: the worker (gpu_session.cpp) races real kernels, the tests'
// noisy fake evaluator races simulated ones, and both go through this one decision procedure.
#include "core/eval/timing_stats.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sassx::eval {

struct RacePlan
{
    // The ratio candidate/reference (< 1: candidate faster) a winner's whole confirmed 95% interval
    // must lie below: 1 / (1 + margin). 0 disables racing.
    double bar = 0.0;
    int firstRounds = 4;      // the first screen (even: the rounds alternate which kernel goes first)
    int stageRounds = 4;      // rounds added per screen stage, each on a fresh instance
    int maxScreenRounds = 16; // a candidate still undecided here is dropped unless its median clears the bar
    int confirmRounds = 24;   // fresh rounds of a survivor
    int confirmStage = 8;     // per fresh instance; the confirmation stops early once it cannot win
    bool enabled() const { return bar > 0.0; }
};

enum class RaceOutcome
{
    Dropped,  // the screen showed it cannot clear the bar
    Rejected, // it survived the screen, and fresh rounds did not confirm it
    Won,      // fresh rounds put its whole interval below the bar
};
std::string raceOutcomeName(RaceOutcome o);
std::optional<RaceOutcome> parseRaceOutcome(const std::string& name);

struct RaceResult
{
    RaceOutcome outcome = RaceOutcome::Dropped;
    RatioInterval ratio;    // of the confirmation rounds when confirmed, else of the screen
    bool confirmed = false; // `ratio` comes from fresh confirmation rounds
    int screenRounds = 0;   // spent screening
    int confirmationRounds = 0;
    std::vector<double> referenceUs, candidateUs; // the rounds behind `ratio`
};

// Times `rounds` interleaved rounds of reference and candidate, appending per-launch microseconds to
// the two vectors; `fresh` asks for freshly loaded instances first. Returns an error message or nothing.
using RaceMeasure = std::function<std::optional<std::string>(int rounds, bool fresh, std::vector<double>& ref,
                                                             std::vector<double>& cand)>;

struct RaceRun
{
    std::optional<std::string> error; // the measuring callback failed; `result` holds what was done
    RaceResult result;
};
RaceRun runRace(const RacePlan& plan, const RaceMeasure& measure);

nlohmann::json toJson(const RacePlan& p);
RacePlan racePlanFromJson(const nlohmann::json& j);

} // namespace sassx::eval
