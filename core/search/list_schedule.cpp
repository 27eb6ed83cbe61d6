#include "core/search/list_schedule.h"

#include <algorithm>

namespace sassx::search {

namespace {

// The weight of a scoreboard edge in the height: a variable-latency producer's result arrives after a
// memory round trip; 30 cycles is of the order of an L1 hit (docs/sass-facts.md), enough to rank.
constexpr int kScoreboardWeight = 30;

std::vector<int> dependencyHeights(const KernelAnalysis& a)
{
    const size_t n = a.listing.instructions.size();
    std::vector<int> height(n, 0);
    // Edges go forward in the original order (from < to), so one backward sweep settles every height.
    for (size_t k = n; k-- > 0;) {
        int h = 0;
        for (uint32_t ei : a.deps.outgoing(uint32_t(k))) {
            const Dependency& d = a.deps.edges()[ei];
            int w = d.hasDistanceBound() ? std::max(1, d.requiredDistance()) : 1;
            if (d.kind == DepKind::SbProducer) w = kScoreboardWeight;
            h = std::max(h, w + height[d.to]);
        }
        height[k] = h;
    }
    return height;
}

bool isLoad(const Instruction& i)
{
    return i.readsMemory() && !i.writesMemory();
}

bool isStore(const Instruction& i)
{
    return i.writesMemory() && !i.readsMemory();
}

// Moves the instruction to its earliest (or latest) legal position, if that differs.
void moveToExtreme(const LegalityChecker& checker, InstrId inst, bool earliest, Schedule& s,
                   std::vector<Edit>& edits)
{
    const Position p = s.positionOf()[inst];
    const auto targets = checker.legalTargets(s, p);
    if (targets.empty()) return;
    const Position t = earliest ? *std::min_element(targets.begin(), targets.end())
                                : *std::max_element(targets.begin(), targets.end());
    if (earliest ? t >= p : t <= p) return;
    s.move(p, t);
    checker.fixReuse(s);
    edits.push_back(Edit::move(p, t));
}

} // namespace

std::vector<std::string> listHeuristics(SearchSpace space)
{
    if (!spaceHasMoves(space)) return {};
    if (space == SearchSpace::Mem) return {"hoist-loads", "sink-stores"};
    return {"hoist-loads", "sink-stores", "critical-path"};
}

namespace {
constexpr double kShares[] = {0.25, 0.5, 1.0};
}

int listCandidateCount(SearchSpace space)
{
    return int(listHeuristics(space).size() * std::size(kShares));
}

std::pair<std::string, double> listCandidate(SearchSpace space, int k)
{
    const auto names = listHeuristics(space);
    const size_t n = std::size(kShares);
    return {names[size_t(k) / n], kShares[size_t(k) % n]};
}

std::vector<Edit> applyListHeuristic(const LegalityChecker& checker, const EditProposer& proposer,
                                     const std::string& name, Schedule& schedule,
                                     const std::atomic_bool* stop)
{
    const auto& a = checker.analysis();
    const auto& insts = a.listing.instructions;
    std::vector<InstrId> order = proposer.movable(); // ascending
    std::vector<Edit> edits;
    bool earliest = true;
    if (name == "hoist-loads") {
        std::erase_if(order, [&](InstrId i) { return !isLoad(insts[i.value()]); });
    } else if (name == "sink-stores") {
        std::erase_if(order, [&](InstrId i) { return !isStore(insts[i.value()]); });
        std::reverse(order.begin(), order.end());
        earliest = false;
    } else if (name == "critical-path") {
        const auto height = dependencyHeights(a);
        std::stable_sort(order.begin(), order.end(),
                         [&](InstrId x, InstrId y) { return height[x.value()] > height[y.value()]; });
    } else {
        return edits;
    }
    for (InstrId inst : order) {
        if (stop && stop->load()) break;
        moveToExtreme(checker, inst, earliest, schedule, edits);
    }
    return edits;
}

} // namespace sassx::search
