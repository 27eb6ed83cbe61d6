#pragma once
// One search algorithm: what it proposes and how it decides, behind one interface. The engine
// (search_engine.h) owns the budget, the checkpoints, the list-schedule seeding phase, the history and
// the one rule for a best; a strategy takes steps through the engine's narrow context
// (strategy_context.h) and keeps its own state either in the checkpoint (the context's climbState,
// agentState: so that a resumed run continues exactly) or rebuilt from it in begin().
// Adding an algorithm: a new strategy_<name>.cpp and one line in search_strategy.cpp's table.
#include "core/search/strategy_context.h"

#include <memory>

namespace sassx::search {

class SearchStrategy
{
public:
    virtual ~SearchStrategy() = default;
    // After start() (resuming false) or resume(): set up what is kept beside the SearchState.
    virtual Status begin(StrategyContext&, bool /*resuming*/) { return Ok{}; }
    // One step: propose, have it measured, decide, record and publish.
    virtual void step(StrategyContext& ctx) = 0;
    // Checked before each step: true when the algorithm has reached its own end (it sets
    // StrategyContext::finish).
    virtual bool ended(StrategyContext&) { return false; }
    // Annealing's temperature (status, history); 0 for the others.
    virtual double temperature(const StrategyContext&) const { return 0.0; }
    // Whether list-schedule heuristics seed the run first (SearchConfig::seedWithListSchedule).
    virtual bool wantsListPhase(const SearchConfig& c) const
    {
        return c.seedWithListSchedule && spaceHasMoves(c.space);
    }
    // List scheduling itself: its evaluations are the result, not a seed.
    virtual bool listPhaseIsTheSearch() const { return false; }
    // The walk is handed back at its best when the run ends.
    virtual bool restoresBestAtEnd() const { return true; }
    // After an incumbent re-measure falls clearly below the best, the walk goes back to the best.
    virtual bool returnsToBestBelowIt(const StrategyContext&) const { return false; }
};

std::unique_ptr<SearchStrategy> makeStrategy(Algorithm algorithm);

} // namespace sassx::search
