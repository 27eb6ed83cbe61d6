// Random search: independent legal variants of the start schedule, each measured against the best so far
// (docs/search.md). The baseline every other search must beat at equal evaluations.
#include "core/search/search_strategy.h"

namespace sassx::search {

namespace {

class RandomStrategy : public SearchStrategy
{
public:
    void step(StrategyContext& ctx) override;
    bool restoresBestAtEnd() const override { return false; } // it has no walk to hand back
};

void RandomStrategy::step(StrategyContext& ctx)
{
    auto candidates = ctx.proposeFrom(ctx.state().start, ctx.startSchedule(), 1, ctx.config().randomMaxEdits);
    if (candidates.empty()) return;
    // Only a candidate that beats the best so far is worth fresh confirmation rounds.
    auto results = ctx.evaluate(candidates, EvalRequest{1.0 / ctx.state().bestSpeedup, false});
    for (size_t i = 0; i < candidates.size(); ++i) {
        const SearchEvaluation& e = ctx.record(candidates[i], "candidate", results[i], 0.0);
        if (e.best) {
            ctx.accept(e.step);
            ctx.setIncumbent(e.step, e.figures.speedup, candidates[i].schedule);
        }
        ctx.publish(e.step);
    }
}

// List scheduling: the one-shot heuristics of list_schedule.h are the whole search; the engine runs them
// as the list phase that seeds the other algorithms.
class ListScheduleStrategy : public SearchStrategy
{
public:
    void step(StrategyContext&) override {}
    bool wantsListPhase(const SearchConfig&) const override { return true; }
    bool listPhaseIsTheSearch() const override { return true; }
    bool ended(StrategyContext& ctx) override
    {
        ctx.finish(StopReason::Done);
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
