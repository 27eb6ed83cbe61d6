#include "core/search/random_variants.h"

#include "core/rewrite/block_positions.h"

#include <algorithm>

namespace sassx {

std::vector<Edit> randomLegalEdits(const LegalityChecker& checker, std::mt19937_64& rng,
                                   const RandomVariantOptions& options, Schedule& schedule)
{
    // Its own draw sequence: the modes below must keep theirs, since GPU evidence replays them by seed.
    if (options.yieldOnly) return randomYieldFlips(checker, rng, options, schedule);
    const auto& a = checker.analysis();
    const uint32_t n = uint32_t(a.listing.instructions.size());
    std::vector<Edit> applied;
    if (n == 0) return applied;
    std::vector<InstrId> candidates;
    for (InstrId i : indexRange<InstrId>(n))
        if (!checker.isWall(i) && !a.deps.unresolved()[i.value()] &&
            (!options.memoryOnly || a.listing.instructions[i.value()].isMemory()))
            candidates.push_back(i);
    if (candidates.empty()) return applied;
    int count = std::uniform_int_distribution<int>(options.minEdits, options.maxEdits)(rng);
    std::uniform_real_distribution<double> coin(0, 1);
    CheckOptions stop;
    stop.stopAtFirst = true;
    for (int k = 0, tries = 0; k < count && tries < count * 20; ++tries) {
        auto pos = schedule.positionOf();
        InstrId inst = candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)];
        Position p = pos[inst];
        if (options.onlyRaiseStalls || coin(rng) < options.controlEditProbability) {
            Schedule trial = schedule;
            Control& c = trial.control[inst];
            // Stall edits only: yield flips have their own mode (yieldOnly), so these draws stay as they
            // were.
            int stall =
                std::uniform_int_distribution<int>(options.onlyRaiseStalls ? c.stall + 1 : 1, 15)(rng);
            if (stall > 15) continue;
            if (stall == c.stall) continue;
            c.stall = uint8_t(stall);
            const Edit e = Edit::control(p, uint8_t(stall), std::nullopt, std::nullopt);
            if (!checker.check(trial, stop).legal()) continue;
            schedule = std::move(trial);
            applied.push_back(e);
            ++k;
            continue;
        }
        auto targets = checker.legalTargets(schedule, p);
        if (targets.empty()) continue;
        Position t = targets[std::uniform_int_distribution<size_t>(0, targets.size() - 1)(rng)];
        schedule.move(p, t);
        checker.fixReuse(schedule);
        applied.push_back(Edit::move(p, t));
        ++k;
    }
    return applied;
}

std::vector<Edit> randomYieldFlips(const LegalityChecker& checker, std::mt19937_64& rng,
                                   const RandomVariantOptions& options, Schedule& schedule)
{
    std::vector<Edit> applied;
    auto candidates = checker.legalControlEdits(schedule, options.withReuse ? ControlSpace::YieldAndReuse
                                                                            : ControlSpace::Yield);
    IndexVector<Position, char> edited(schedule.order.size(), 0);
    if (candidates.empty()) return applied;
    const int count = std::uniform_int_distribution<int>(options.minEdits, options.maxEdits)(rng);
    CheckOptions stop;
    stop.stopAtFirst = true;
    while (int(applied.size()) < count && !candidates.empty()) {
        const size_t pick = std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng);
        const Edit e = candidates[pick];
        candidates[pick] = candidates.back();
        candidates.pop_back();
        if (edited[e.at]) continue; // one edit per instruction
        // Flips of different instructions are independent (legalControlEdits); the full check guards
        // that claim rather than trusting it.
        Schedule trial = schedule;
        Control& c = trial.control[trial.order[e.at]];
        if (e.yield) c.yield = *e.yield;
        if (e.reuse) c.reuse = *e.reuse; // a flip to Y0 may drop the reuse flags (legalControlEdits)
        if (!checker.check(trial, stop).legal()) continue;
        edited[e.at] = 1;
        schedule = std::move(trial);
        applied.push_back(e);
    }
    return applied;
}

std::vector<Edit> sipRuleEdits(const KernelAnalysis& a, std::mt19937_64& rng, int swaps, Schedule& schedule)
{
    std::vector<Edit> applied;
    const auto& insts = a.listing.instructions;
    auto movable = [&](InstrId i) {
        const Op op = insts[i.value()].op;
        return op == Op::LDG || op == Op::STG || op == Op::LDS || op == Op::LDSM || op == Op::LDGSTS;
    };
    std::vector<InstrId> candidates;
    for (InstrId i : indexRange<InstrId>(uint32_t(insts.size())))
        if (movable(i)) candidates.push_back(i);
    if (candidates.empty()) return applied;
    for (int k = 0, tries = 0; k < swaps && tries < swaps * 20; ++tries) {
        auto pos = schedule.positionOf();
        Position p = pos[candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)]];
        bool up = std::uniform_int_distribution<int>(0, 1)(rng) == 0;
        if ((up && p == Position(0)) || (!up && p + 1 >= schedule.order.endIndex())) continue;
        Position q = up ? p - 1 : p + 1;
        if (blockAt(a.cfg, p) != blockAt(a.cfg, q)) continue;
        std::swap(schedule.order[p], schedule.order[q]);
        applied.push_back(Edit::move(p, q));
        ++k;
    }
    return applied;
}

} // namespace sassx
