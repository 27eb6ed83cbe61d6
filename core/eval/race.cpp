#include "core/eval/race.h"

#include <algorithm>

namespace sassx::eval {

std::string raceOutcomeName(RaceOutcome o)
{
    switch (o) {
    case RaceOutcome::Dropped:
        return "dropped";
    case RaceOutcome::Rejected:
        return "rejected";
    case RaceOutcome::Won:
        return "won";
    }
    return "dropped";
}

std::optional<RaceOutcome> parseRaceOutcome(const std::string& name)
{
    for (RaceOutcome o : {RaceOutcome::Dropped, RaceOutcome::Rejected, RaceOutcome::Won})
        if (raceOutcomeName(o) == name) return o;
    return std::nullopt;
}

namespace {

// The screen: stages until the interval lies wholly on one side of the bar or the rounds run out.
// True when the candidate goes on to confirmation.
bool screen(const RacePlan& plan, const RaceMeasure& measure, RaceRun& run)
{
    RaceResult& r = run.result;
    std::vector<double> ref, cand;
    int next = std::max(2, plan.firstRounds);
    bool fresh = false;
    for (;;) {
        if (auto e = measure(next, fresh, ref, cand)) {
            run.error = e;
            return false;
        }
        r.ratio = ratioInterval(ref, cand);
        r.screenRounds = int(ref.size());
        r.referenceUs = ref;
        r.candidateUs = cand;
        // Even the optimistic end cannot clear the bar: a loser, or a neutral edit.
        if (r.ratio.low >= plan.bar) return false;
        // Futility on the median: after the first stage a candidate that does not even look faster
        // than the reference, and after the second one that does not look past the bar, is dropped.
        // A true gain at the bar keeps its median below it in most draws, so this costs few winners and
        // halves what a neutral edit costs (most of a search's candidates are neutral).
        if (r.screenRounds >= std::max(2, plan.firstRounds) && r.ratio.median >= 1.0) return false;
        if (r.screenRounds >= std::max(2, plan.firstRounds) + std::max(2, plan.stageRounds) &&
            r.ratio.median >= plan.bar)
            return false;
        // The whole interval below the bar: worth fresh rounds.
        if (r.ratio.high < plan.bar) return true;
        if (r.screenRounds >= plan.maxScreenRounds) return r.ratio.median < plan.bar;
        next = std::max(2, std::min(plan.stageRounds, plan.maxScreenRounds - r.screenRounds));
        fresh = true;
    }
}

} // namespace

RaceRun runRace(const RacePlan& plan, const RaceMeasure& measure)
{
    RaceRun run;
    RaceResult& r = run.result;
    r.outcome = RaceOutcome::Dropped;
    if (!screen(plan, measure, run)) return run;

    // Fresh rounds only, each stage on fresh instances: the screen selected this candidate, partly for
    // luck, so its rounds must not also judge it.
    std::vector<double> ref, cand;
    const int stage = plan.confirmStage > 0 ? plan.confirmStage : plan.confirmRounds;
    RatioInterval fresh;
    while (int(ref.size()) < plan.confirmRounds) {
        const int n = std::max(2, std::min(stage, plan.confirmRounds - int(ref.size())));
        std::vector<double> a, b;
        if (auto e = measure(n, true, a, b)) {
            run.error = e;
            return run;
        }
        ref.insert(ref.end(), a.begin(), a.end());
        cand.insert(cand.end(), b.begin(), b.end());
        fresh = ratioInterval(ref, cand);
        // It can no longer win: its optimistic end is at the bar.
        if (fresh.low >= plan.bar) break;
    }
    r.ratio = fresh;
    r.confirmed = true;
    r.confirmationRounds = int(ref.size());
    r.referenceUs = std::move(ref);
    r.candidateUs = std::move(cand);
    r.outcome = fresh.rounds >= 2 && fresh.high < plan.bar ? RaceOutcome::Won : RaceOutcome::Rejected;
    return run;
}

nlohmann::json toJson(const RacePlan& p)
{
    return {{"bar", p.bar},
            {"first_rounds", p.firstRounds},
            {"stage_rounds", p.stageRounds},
            {"max_screen_rounds", p.maxScreenRounds},
            {"confirm_rounds", p.confirmRounds},
            {"confirm_stage", p.confirmStage}};
}

RacePlan racePlanFromJson(const nlohmann::json& j)
{
    RacePlan p;
    if (!j.is_object()) return p;
    p.bar = j.value("bar", p.bar);
    p.firstRounds = std::max(2, j.value("first_rounds", p.firstRounds));
    p.stageRounds = std::max(2, j.value("stage_rounds", p.stageRounds));
    p.maxScreenRounds = std::max(p.firstRounds, j.value("max_screen_rounds", p.maxScreenRounds));
    p.confirmRounds = std::max(2, j.value("confirm_rounds", p.confirmRounds));
    p.confirmStage = std::max(0, j.value("confirm_stage", p.confirmStage));
    return p;
}

} // namespace sassx::eval
