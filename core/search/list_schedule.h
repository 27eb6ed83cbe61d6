#pragma once
// The list-scheduling baseline: one-shot heuristics that reorder a schedule greedily through the
// checker's legal moves, so every result is legal by construction. Their best result starts the other
// algorithms (search_config.h, seedWithListSchedule).
#include "core/search/search_space.h"

#include <atomic>
#include <string>
#include <vector>

namespace sassx::search {

struct ListCandidate
{
    std::string name;        // "hoist-loads", "sink-stores", "critical-path"
    std::vector<Edit> edits; // from the start schedule
};

// Heuristic names offered in `space`, in the order they are evaluated.
std::vector<std::string> listHeuristics(SearchSpace space);

// The list candidates a search evaluates: each heuristic's first quarter, first half and all of its
// moves (a heuristic is a greedy sequence; its best prefix is often better than all of it), named
// "hoist-loads 1/4" etc. Index `k` of listCandidateCount(space) maps to (heuristic, share).
int listCandidateCount(SearchSpace space);
std::pair<std::string, double> listCandidate(SearchSpace space, int k);

// Applies heuristic `name` to `start` and returns its edits (possibly none: nothing could move).
//  - hoist-loads: every load, in program order, moves to the earliest position the checker allows;
//  - sink-stores: every store, last first, moves to the latest position allowed;
//  - critical-path: the movable instructions by decreasing dependency height (the longest chain of
//    required distances to the block's end, scoreboard waits counted as a memory latency) each move to
//    the earliest position allowed: the critical path issues first.
// `stop` is polled between instructions.
std::vector<Edit> applyListHeuristic(const LegalityChecker& checker, const EditProposer& proposer,
                                     const std::string& name, Schedule& schedule,
                                     const std::atomic_bool* stop = nullptr);

} // namespace sassx::search
