#pragma once
// Decides whether a whole schedule (an order of every block plus control bits) keeps the kernel's
// results, and explains every hazard in words. Sound by construction: anything the model cannot
// prove safe is refused (see docs/legality.md).
#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/control_rules.h"
#include "core/rewrite/variant.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sassx {

enum class HazardKind : uint8_t
{
    Register,   // RAW/WAR/WAW order inverted
    Scoreboard, // a consumer no longer after the wait covering its producer; SB set too soon after a wait
    ImplicitCoverage, // a producer without its own SB moved past the producer whose SB covers it
    Latency,          // fixed-latency distance below the bound
    MemoryOrder,      // two conflicting accesses to one state space swapped
    IssueSpacing,     // same-class memory instructions closer than ptxas ever placed them
    Wall,             // something crossed a wall (barrier, control flow, opaque opcode, …)
    Pinned,           // an instruction whose protection the analysis could not attribute
    Structure,        // not a permutation inside blocks, block boundary moved, bad control value
    Reuse,            // a reuse flag that is not valid in the new order (or set where nothing reuses it)
};

struct Hazard
{
    HazardKind kind = HazardKind::Structure;
    uint32_t first = 0; // original instruction indices involved
    uint32_t second = 0;
    std::string message;   // a sentence a person can read, naming the hazard and both instructions
    int missingCycles = 0; // for Latency: how many stall cycles a repair would add
    bool padAfter = false; // (i, i) distances to the block's end: the cycles go after `first`, not before
};

struct LegalityReport
{
    std::vector<Hazard> hazards;
    bool legal() const { return hazards.empty(); }
    std::string summary() const; // first hazard's message, or "legal"
};

struct CheckOptions
{
    bool stopAtFirst = false; // searches only need a yes/no
    // Only these basic blocks (indices); empty: all. Every rule is judged within one block (the
    // cross-block bounds are per instruction), so a schedule whose other blocks are unchanged from a
    // legal one is judged by checking the changed blocks alone: what a search does per candidate.
    std::vector<int> blocks;
};

class LegalityChecker
{
public:
    explicit LegalityChecker(std::shared_ptr<const KernelAnalysis> analysis);

    LegalityReport check(const Schedule& schedule, const CheckOptions& options = {}) const;
    LegalityReport check(const std::vector<Edit>& edits, const CheckOptions& options = {}) const;

    // All legal single moves from the current schedule of the instruction at position `pos`
    // (positions in the current schedule), as target positions.
    std::vector<uint32_t> legalTargets(const Schedule& current, uint32_t pos) const;
    // Every legal single move (from position, to position) of the current schedule, computed in one pass.
    std::vector<std::pair<uint32_t, uint32_t>> legalMoves(const Schedule& current, bool memoryOnly) const;
    // Single moves of one schedule tested one (from, to) pair at a time, by the same rules as
    // legalTargets and legalMoves (which are built on it): for a search that needs a sample of the legal
    // moves rather than all of them (EditProposer::sampleActions). Holds references to both arguments.
    class MoveTester
    {
    public:
        MoveTester(const LegalityChecker& checker, const Schedule& current);
        // Positions the instruction at `from` may reach before distances and scoreboards are weighed
        // (its block, its dependencies, walls): [first, second], empty when first > second.
        std::pair<uint32_t, uint32_t> range(uint32_t from) const;
        bool legal(uint32_t from, uint32_t to) const;

    private:
        const LegalityChecker& m_checker;
        const Schedule& m_current;
        std::vector<uint32_t> m_pos;
        std::vector<std::vector<int>> m_cycles; // per block: issue cycle of each position, then the end
        mutable std::vector<std::pair<uint32_t, uint32_t>> m_ranges; // per position, computed on demand
        mutable std::vector<bool> m_rangeKnown;
    };

    // Every single control edit of the current schedule in `space` that keeps it legal: yield flips
    // (Edit::control(pos, {}, newYield, {}); a flip to Y0 of an instruction with reuse flags clears them
    // too, Edit::control(pos, {}, 0, 0), as ptxas never pairs reuse flags with Y0) and reuse edits that
    // clear or set one flag (Edit::control(pos, {}, {}, newMask)), positions in `current`, in position
    // order; with ControlSpace::Stall also one stall decrease per instruction (the least stall, from
    // rescheduleStallFloor up, that keeps the block legal). Candidates are judged by the same rules
    // check() applies (ControlRules, then the checker's own pass over the block), so each returned edit
    // applied to a legal `current` passes check(); a block that is already illegal offers none. Yield
    // and reuse edits of different instructions are independent; stall decreases are not (two in one
    // block may together shorten one distance too much).
    // `onlyPositions` (non-empty) limits the answer to those positions: what a search needs after it
    // changed the control bits of a few instructions, since the others' edits stay as they were.
    std::vector<Edit> legalControlEdits(const Schedule& current, ControlSpace space,
                                        const std::vector<uint32_t>& onlyPositions = {}) const;
    const ControlRules& controlRules() const { return m_controlRules; }

    // Reuse fix-up: clears reuse flags whose pairing changed in the new order (a reuse flag on operand
    // slot k is valid only if the next instruction reads the same register in the same slot;
    // ControlRules::reuseRefusal). Clearing a flag is always legal.
    void fixReuse(Schedule& schedule) const;

    // Repair mode: raise stall counts so that every latency bound is met; returns false if the
    // schedule has hazards a stall cannot fix.
    bool repairLatencies(Schedule& schedule) const;

    // Control codes derived for the order of `blocks` (docs/legality.md, "Rescheduling"). Every
    // reschedulable instruction (rescheduleStallFloor) whose successor is no longer the one ptxas gave
    // it (or every one, with `minimal`) gets the least stall the rules allow with its yield bit; the
    // others keep their stall, since ptxas' stalls also carry throughput spacing the latency model does
    // not know (ptxas' order with every stall lowered ran 4% slower on a Triton attention kernel).
    // Then, walking the block from its start, cycles are added between each instruction that issues too
    // early and the one it depends on, nearest it first, until check() finds no hazard. Scoreboard
    // fields and wait masks are kept, so every scoreboard edge must keep its direction; reuse flags
    // follow fixReuse. Leaves `schedule` legal and returns nullopt, or returns the refusal (a hazard no
    // stall fixes) and leaves it partly rewritten.
    std::optional<std::string> reschedule(Schedule& schedule, const std::vector<int>& blocks,
                                          bool minimal = false) const;
    // The least stall `reschedule` gives instruction i when nothing needs more, or nullopt when i keeps
    // its stall: walls, pinned instructions, stall 0 or above 11, and an instruction issued right
    // before a wall in `schedule` (its distance to the wall is not modelled).
    std::optional<uint8_t> rescheduleStallFloor(const Schedule& schedule, uint32_t position) const;
    // A move of the instruction at `from` to `to` with control codes derived for its block, as edits
    // that replay it (the move, then one control edit per instruction whose bits differ from what the
    // move and the reuse fix-up leave), and the resulting schedule; or the refusal.
    Result<std::pair<std::vector<Edit>, Schedule>> rescheduledMove(const Schedule& current, uint32_t from,
                                                                   uint32_t to) const;
    // Positions the instruction at `position` can reach in its block, nearest first on each side up to
    // `maxDistance`, without crossing a wall, a pinned instruction or an instruction it has a
    // dependency with: where an order is legal before control codes are considered.
    std::vector<uint32_t> orderTargets(const Schedule& current, uint32_t position, int maxDistance) const;
    // Targets of the instruction at `position` whose order is legal with derived control codes: the
    // nearest positions in its block, up to `maxDistance` away, that cross no wall, pinned instruction
    // or dependency, and for which `reschedule` succeeds. The schedules come with them. `refusals`
    // (optional) gets reschedule's refusal of each order target that failed.
    std::vector<std::pair<uint32_t, Schedule>>
    rescheduledTargets(const Schedule& current, uint32_t position, int maxDistance = 32,
                       std::vector<std::string>* refusals = nullptr) const;

    const KernelAnalysis& analysis() const { return *m_analysis; }

    // Instructions the cubin writer cannot follow (offsets it does not rewrite): walls with a reason.
    void addWalls(const std::vector<std::pair<uint32_t, std::string>>& walls);
    bool isWall(uint32_t i) const;
    std::string wallReasonOf(uint32_t i) const;

private:
    void checkBlock(const Schedule& s, const std::vector<uint32_t>& pos, int block, LegalityReport& report,
                    const CheckOptions& options) const;
    // checkBlock()'s steps, in order, over what they share (legality.cpp); each returns false when the
    // check stops: an instruction left its block, or a hazard was found and options.stopAtFirst is set.
    struct BlockCheck;
    bool checkPlacement(BlockCheck& c) const;           // walls, pinned instructions, block membership
    bool checkDependencyEdges(BlockCheck& c) const;     // edge directions and distance bounds
    bool checkCrossBlockDistances(BlockCheck& c) const; // distances to the block's start and end
    bool checkNewOrderSpacing(BlockCheck& c) const;     // the walk over the new order, with these steps:
    bool checkWaitsAfterSetters(BlockCheck& c, uint32_t instruction, int cycle) const;
    bool checkSettersAfterWaits(BlockCheck& c, uint32_t instruction, int cycle) const;
    bool checkIssueSpacing(BlockCheck& c, uint32_t instruction, int cycle) const;
    bool checkReuseFlags(BlockCheck& c, uint32_t instruction, uint32_t position) const;
    bool checkSettersAtBlockEnd(BlockCheck& c) const;
    void checkControlValues(BlockCheck& c) const; // control values against ptxas' own bits
    void computeCrossBlockDistances();
    std::vector<uint32_t> targetsFor(const Schedule& current, const std::vector<uint32_t>& pos,
                                     const std::vector<int>& blockCycles, uint32_t position) const;
    std::pair<uint32_t, uint32_t> targetRange(const Schedule& current, const std::vector<uint32_t>& pos,
                                              uint32_t position) const;
    bool targetLegal(const Schedule& current, const std::vector<uint32_t>& pos,
                     const std::vector<int>& blockCycles, uint32_t position, uint32_t target) const;
    bool reuseValid(const Schedule& s, uint32_t instruction, uint32_t position, uint8_t flags) const;

    std::shared_ptr<const KernelAnalysis> m_analysis;
    std::vector<std::string> m_extraWalls; // per instruction, empty if none
    // Cycles since the last fixed-latency write of each register when a block starts (entry) and
    // until its first read after the block ends (exit), capped at the longest fixed latency.
    std::vector<std::vector<uint8_t>> m_entryAge, m_exitDistance;
    int m_maxFixed = 15;
    std::vector<int> m_needFromStart, m_needToEnd;
    std::vector<int> m_origTail; // cycles from each instruction's issue to its block's end, as ptxas left it
    ControlRules m_controlRules;
    // Per memory class (base opcode): the smallest issue distance ptxas left between two of them.
    std::map<std::string, int> m_spacing;
};

} // namespace sassx
