#include "core/search/search_strategy.h"

namespace sassx::search {

// The registry: one line per algorithm (its factory lives in its strategy_<name>.cpp).
#define SASSX_SEARCH_STRATEGIES(X)                                                                           \
    X(Climb, makeClimbStrategy)                                                                              \
    X(Anneal, makeAnnealStrategy)                                                                            \
    X(Greedy, makeGreedyStrategy)                                                                            \
    X(Random, makeRandomStrategy)                                                                            \
    X(ListSchedule, makeListScheduleStrategy)                                                                \
    X(Ppo, makePpoStrategy)

#define SASSX_DECLARE_STRATEGY(algorithm, factory) std::unique_ptr<SearchStrategy> factory();
SASSX_SEARCH_STRATEGIES(SASSX_DECLARE_STRATEGY)
#undef SASSX_DECLARE_STRATEGY

std::unique_ptr<SearchStrategy> makeStrategy(Algorithm algorithm)
{
#define SASSX_MAKE_STRATEGY(name, factory)                                                                   \
    if (algorithm == Algorithm::name) return factory();
    SASSX_SEARCH_STRATEGIES(SASSX_MAKE_STRATEGY)
#undef SASSX_MAKE_STRATEGY
    return nullptr;
}

} // namespace sassx::search
