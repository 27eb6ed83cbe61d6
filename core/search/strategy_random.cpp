// Random search: independent legal variants of the start schedule, each measured against the best so far
// (docs/search.md). The baseline every other search must beat at equal evaluations.
#include "core/search/search_strategy.h"

namespace sassx::search {

namespace {

class RandomStrategy : public SearchStrategy
{
public:
    void step(SearchEngine& eng) override;
    bool restoresBestAtEnd() const override { return false; } // it has no walk to hand back
};

void RandomStrategy::step(SearchEngine& eng)
{
    auto candidates =
        eng.proposeFrom(eng.state().start, eng.startSchedule(), 1, eng.state().config.randomMaxEdits);
    if (candidates.empty()) return;
    // Only a candidate that beats the best so far is worth fresh confirmation rounds.
    auto results = eng.evaluate(candidates, EvalRequest{1.0 / eng.state().bestSpeedup, false});
    for (size_t i = 0; i < candidates.size(); ++i) {
        SearchEvaluation& e = eng.record(candidates[i], "candidate", results[i], 0.0);
        if (e.best) {
            e.outcome = Outcome::Accepted;
            eng.state().incumbent = e.step;
            eng.state().incumbentSpeedup = e.figures.speedup;
        }
        const SearchEvaluation copy = e;
        eng.publish(copy);
    }
}

// List scheduling: the one-shot heuristics of list_schedule.h are the whole search; the engine runs them
// as the list phase that seeds the other algorithms.
class ListScheduleStrategy : public SearchStrategy
{
public:
    void step(SearchEngine&) override {}
    bool wantsListPhase(const SearchConfig&) const override { return true; }
    bool listPhaseIsTheSearch() const override { return true; }
    bool ended(SearchEngine& eng) override
    {
        eng.state().finished = true;
        eng.state().stopReason = "done";
        return true;
    }
};

} // namespace

std::unique_ptr<SearchStrategy> makeRandomStrategy()
{
    return std::make_unique<RandomStrategy>();
}

std::unique_ptr<SearchStrategy> makeListScheduleStrategy()
{
    return std::make_unique<ListScheduleStrategy>();
}

} // namespace sassx::search
