#include "core/search/search_state.h"

#include "core/search/edits_json.h"

#include <cstdio>

namespace sassx::search {

namespace {

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c == '\n' ? ' ' : c;
    }
    return out + "\"";
}

} // namespace

std::string outcomeName(Outcome o)
{
    switch (o) {
    case Outcome::Accepted:
        return "accepted";
    case Outcome::Rejected:
        return "rejected";
    case Outcome::Failed:
        return "failed";
    case Outcome::Measure:
        return "measure";
    }
    return "?";
}

std::optional<Outcome> parseOutcome(const std::string& name)
{
    for (Outcome o : {Outcome::Accepted, Outcome::Rejected, Outcome::Failed, Outcome::Measure})
        if (outcomeName(o) == name) return o;
    return std::nullopt;
}

bool SpeedupFigures::clearlyAbove(double than) const
{
    if (!ok) return false;
    // An exact figure (the estimate) must still differ where a speed-up is printed (4 decimals): a
    // "1.0000x" best is no gain to show, keep or join the variants tree.
    if (rounds == 0) return speedup > than * (1.0 + 5e-5);
    return confirmed && low > than && speedup > than * (1.0 + noiseFloor);
}

namespace {

// A race's outcome from its name, where a timing or a history carries it as text; "" when not raced.
Result<std::optional<eval::RaceOutcome>> raceOutcomeFromText(const std::string& text)
{
    if (text.empty()) return std::optional<eval::RaceOutcome>();
    if (auto o = eval::parseRaceOutcome(text)) return std::optional(*o);
    std::string names;
    for (eval::RaceOutcome o :
         {eval::RaceOutcome::Dropped, eval::RaceOutcome::Rejected, eval::RaceOutcome::Won})
        names += (names.empty()                 ? ""
                  : o == eval::RaceOutcome::Won ? " or "
                                                : ", ") +
                 eval::raceOutcomeName(o);
    return makeError("a race outcome must be " + names + " (not '" + text + "')");
}

} // namespace

SpeedupFigures speedupFigures(const eval::EvalResult& r)
{
    SpeedupFigures f;
    f.ok = r.ok();
    f.failureKind = r.failureKind;
    f.failure = r.failure;
    f.source = r.source;
    if (!r.timing) {
        // A correct result without timing cannot be ranked: a failure of the evaluation, said so.
        if (f.ok) {
            f.ok = false;
            f.failureKind = eval::failure::kError;
            f.failure = "the evaluator returned no timing";
        }
        return f;
    }
    const auto& t = *r.timing;
    auto inv = [](double x) { return x > 0 ? 1.0 / x : 0.0; };
    f.speedup = inv(t.ratio.median);
    f.low = inv(t.ratio.high);
    f.high = inv(t.ratio.low);
    f.rounds = t.ratio.rounds;
    f.instances = t.ratio.instances;
    f.confirmed = t.confirmed;
    f.noiseFloor = t.noiseFloor;
    if (auto race = raceOutcomeFromText(t.race)) {
        f.race = *race;
    } else {
        f.ok = false;
        f.failureKind = eval::failure::kError;
        f.failure = race.message();
        return f;
    }
    if (t.paired) {
        f.paired = f.speedup;
        f.pairedLow = f.low;
        f.pairedHigh = f.high;
    }
    return f;
}

void chainToOriginal(SpeedupFigures& f, double baseSpeedup)
{
    if (f.paired == 0.0) return;
    f.speedup = f.paired * baseSpeedup;
    f.low = f.pairedLow * baseSpeedup;
    f.high = f.pairedHigh * baseSpeedup;
}

int SearchState::restarts() const
{
    return climb ? climb->restarts : 0;
}

std::string stopDescription(const SearchState& s)
{
    std::string restarts;
    if (const int n = s.restarts(); n > 0) {
        restarts = " after " + std::to_string(n) + (n == 1 ? " restart" : " restarts") +
                   " from a perturbed best (converged at ";
        const std::vector<double>& at = s.climb->convergedSeconds;
        for (size_t i = 0; i < at.size(); ++i) {
            const double seconds = at[i];
            char b[32];
            std::snprintf(b, sizeof b, "%s%.*f s", i > 0 ? ", " : "", seconds < 10 ? 1 : 0, seconds);
            restarts += b;
        }
        restarts += ")";
    }
    if (!s.stopReason) return {};
    switch (*s.stopReason) {
    case StopReason::Budget:
        return "budget spent" + restarts;
    case StopReason::Stopped:
        return "stopped early, before its budget" + (restarts.empty() ? "" : "," + restarts) +
               " (resume to continue)";
    case StopReason::Converged:
        return "converged: a whole round of single edits and probes kept nothing" + restarts +
               (s.config.climbRestarts ? "; the best offers no legal edit to restart from"
                                       : "; restarts are off");
    case StopReason::Exhausted:
        return "the space ran out of legal edits";
    case StopReason::Temperature:
        return "the annealing schedule reached its final temperature";
    case StopReason::Done:
        return "every list-scheduling heuristic was evaluated";
    }
    return stopReasonName(*s.stopReason);
}

Result<std::vector<Edit>> editsOfEvaluation(const std::vector<SearchEvaluation>& history, int step)
{
    if (step < -1 || step >= int(history.size()))
        return makeError("no evaluation " + std::to_string(step) + " in this search (it holds " +
                         std::to_string(history.size()) + ")");
    std::vector<int> chain;
    for (int i = step; i >= 0; i = history[size_t(i)].base) {
        const int base = history[size_t(i)].base;
        // Bases point strictly backwards, so the walk ends; a history that says otherwise is refused.
        if (base >= i || base < -1)
            return makeError("evaluation " + std::to_string(i) + " names base " + std::to_string(base) +
                             ", which does not come before it");
        chain.push_back(i);
    }
    std::vector<Edit> out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const auto& e = history[size_t(*it)].edits;
        out.insert(out.end(), e.begin(), e.end());
    }
    return out;
}

std::vector<Edit> SearchState::editsOf(int index) const
{
    auto edits = editsOfEvaluation(history, index);
    return edits ? std::move(*edits) : std::vector<Edit>{};
}

nlohmann::json toJson(const SpeedupFigures& f)
{
    nlohmann::json j{{"ok", f.ok},
                     {"speedup", f.speedup},
                     {"low", f.low},
                     {"high", f.high},
                     {"rounds", f.rounds},
                     {"instances", f.instances},
                     {"confirmed", f.confirmed},
                     {"noise_floor", f.noiseFloor},
                     {"source", f.source.label()}};
    if (f.paired != 0.0) {
        j["paired"] = f.paired;
        j["paired_low"] = f.pairedLow;
        j["paired_high"] = f.pairedHigh;
    }
    if (f.race) j["race"] = eval::raceOutcomeName(*f.race);
    if (!f.ok) {
        j["failure_kind"] = f.failureKind;
        j["failure"] = f.failure;
    }
    return j;
}

SpeedupFigures speedupFiguresFromJson(const nlohmann::json& j)
{
    SpeedupFigures f;
    if (!j.is_object()) return f;
    f.ok = j.value("ok", false);
    f.speedup = j.value("speedup", 0.0);
    f.low = j.value("low", f.speedup);
    f.high = j.value("high", f.speedup);
    f.rounds = j.value("rounds", 0);
    f.instances = j.value("instances", 1);
    f.confirmed = j.value("confirmed", false);
    f.noiseFloor = j.value("noise_floor", 0.0);
    f.source = eval::FigureSource::fromLabel(j.value("source", std::string()));
    f.failureKind = j.value("failure_kind", std::string());
    f.failure = j.value("failure", std::string());
    f.paired = j.value("paired", 0.0);
    f.pairedLow = j.value("paired_low", f.paired);
    f.pairedHigh = j.value("paired_high", f.paired);
    f.race = eval::parseRaceOutcome(j.value("race", std::string())); // evaluationFromJson refuses others
    return f;
}

nlohmann::json toJson(const SearchEvaluation& e)
{
    return {{"step", e.step},
            {"seconds", e.seconds},
            {"base", e.base},
            {"edits", editsJson(e.edits)},
            {"kind", e.kind},
            {"figures", toJson(e.figures)},
            {"outcome", outcomeName(e.outcome)},
            {"best", e.best},
            {"temperature", e.temperature}};
}

Result<SearchEvaluation> evaluationFromJson(const nlohmann::json& j)
{
    try {
        SearchEvaluation e;
        e.step = j.at("step").get<int>();
        e.seconds = j.at("seconds").get<double>();
        e.base = j.at("base").get<int>();
        auto edits = editsFromJson(j.at("edits"));
        if (!edits) return edits.error();
        e.edits = std::move(*edits);
        e.kind = j.at("kind").get<std::string>();
        if (!j.at("figures").contains("ok")) return makeError("a search evaluation has no figures");
        if (auto race = raceOutcomeFromText(j.at("figures").value("race", std::string())); !race)
            return makeError("a search evaluation: " + race.message());
        e.figures = speedupFiguresFromJson(j.at("figures"));
        auto outcome = parseOutcome(j.at("outcome").get<std::string>());
        if (!outcome) return makeError("unknown outcome in a search history");
        e.outcome = *outcome;
        e.best = j.value("best", false);
        e.temperature = j.value("temperature", 0.0);
        return e;
    } catch (const std::exception& ex) {
        return makeError(std::string("unreadable search evaluation: ") + ex.what());
    }
}

nlohmann::json toJson(const SearchState& s)
{
    nlohmann::json history = nlohmann::json::array();
    for (const auto& e : s.history)
        history.push_back(toJson(e));
    nlohmann::json j = toJsonWithoutHistory(s);
    j["history"] = std::move(history);
    return j;
}

nlohmann::json toJsonWithoutHistory(const SearchState& s)
{
    return {{"format", "sassx-search-state"},
            {"version", 1},
            {"config", toJson(s.config)},
            {"rng", s.rng},
            {"steps", s.steps},
            {"seconds", s.seconds},
            {"incumbent", s.incumbent},
            {"incumbent_speedup", s.incumbentSpeedup},
            {"best", s.best},
            {"best_speedup", s.bestSpeedup},
            {"time_to_best", s.timeToBest},
            {"list_schedule_next", s.listScheduleNext},
            {"start", s.start},
            {"finished", s.finished},
            {"stop_reason", s.stopReason ? stopReasonName(*s.stopReason) : std::string()},
            {"legal_at_start", s.legalAtStart},
            {"refused_by_check", s.refusedByCheck},
            {"agent", s.agent ? nlohmann::json(*s.agent) : nlohmann::json()},
            {"climb", s.climb ? nlohmann::json(*s.climb) : nlohmann::json()}};
}

Result<SearchState> searchStateFromJson(const nlohmann::json& j)
{
    try {
        if (j.value("format", "") != "sassx-search-state") return makeError("not a sassx search checkpoint");
        if (j.value("version", 0) != 1) return makeError("unsupported search checkpoint version");
        SearchState s;
        auto config = searchConfigFromJson(j.at("config"));
        if (!config) return config.error();
        s.config = *config;
        s.rng = j.at("rng").get<std::string>();
        s.steps = j.at("steps").get<int64_t>();
        s.seconds = j.at("seconds").get<double>();
        s.incumbent = j.at("incumbent").get<int>();
        s.incumbentSpeedup = j.at("incumbent_speedup").get<double>();
        s.best = j.at("best").get<int>();
        s.bestSpeedup = j.at("best_speedup").get<double>();
        s.timeToBest = j.value("time_to_best", 0.0);
        s.listScheduleNext = j.value("list_schedule_next", 0);
        s.start = j.value("start", -1);
        s.finished = j.value("finished", false);
        if (const std::string why = j.value("stop_reason", ""); !why.empty()) {
            s.stopReason = parseStopReason(why);
            if (!s.stopReason) return makeError("unknown stop reason '" + why + "' in the search checkpoint");
        }
        s.legalAtStart = j.value("legal_at_start", int64_t(-1));
        s.refusedByCheck = j.value("refused_by_check", 0);
        if (j.contains("agent") && !j.at("agent").is_null()) s.agent = j.at("agent").get<PpoState>();
        if (j.contains("climb") && !j.at("climb").is_null()) s.climb = j.at("climb").get<ClimbState>();
        for (const auto& e : j.at("history")) {
            auto ev = evaluationFromJson(e);
            if (!ev) return ev.error();
            s.history.push_back(std::move(*ev));
        }
        const int n = int(s.history.size());
        auto inRange = [n](int i) { return i >= -1 && i < n; };
        if (!inRange(s.incumbent) || !inRange(s.best) || !inRange(s.start))
            return makeError("search checkpoint refers to evaluations it does not hold");
        for (const auto& e : s.history)
            if (e.base >= e.step || e.base < -1 || e.step >= n)
                return makeError("search checkpoint history is inconsistent");
        return s;
    } catch (const std::exception& e) {
        return makeError(std::string("unreadable search checkpoint: ") + e.what());
    }
}

std::string historyCsvHeader()
{
    return "step,seconds,kind,base,move,ok,failure,speedup,low,high,rounds,confirmed,outcome,best,"
           "temperature,paired,race\n";
}

std::string historyCsvRow(const SearchEvaluation& e)
{
    std::string move;
    for (const Edit& ed : e.edits)
        move += (move.empty() ? "" : "; ") + ed.describe();
    const SpeedupFigures& f = e.figures;
    char nums[256];
    std::snprintf(nums, sizeof nums, "%.6f,%.6f,%.6f,%d,%d", f.speedup, f.low, f.high, f.rounds,
                  f.confirmed ? 1 : 0);
    char head[64];
    std::snprintf(head, sizeof head, "%d,%.3f,", e.step, e.seconds);
    char tail[96];
    std::snprintf(tail, sizeof tail, ",%s,%d,%.6g,%.6f,%s\n", outcomeName(e.outcome).c_str(), e.best ? 1 : 0,
                  e.temperature, f.paired, f.race ? eval::raceOutcomeName(*f.race).c_str() : "");
    return head + csvField(e.kind) + "," + std::to_string(e.base) + "," + csvField(move) + "," +
           (f.ok ? "1" : "0") + "," + csvField(f.ok ? "" : f.failureKind + ": " + f.failure) + "," + nums +
           tail;
}

} // namespace sassx::search
