#pragma once
// Decides whether a whole schedule (an order of every block plus control bits) keeps the kernel's
// results, and explains every hazard in words. Sound by construction: anything the model cannot
// prove safe is refused (see docs/legality.md). Judges by the kernel model's rule table, which the
// move/edit enumerator (move_enumerator.h) and the rescheduler (rescheduler.h) share.
#include "core/rewrite/kernel_model.h"

#include <cstdint>
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
    InstrId first; // the instructions involved
    InstrId second;
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

class ScheduleChecker
{
public:
    explicit ScheduleChecker(std::shared_ptr<const KernelModel> model);

    LegalityReport check(const Schedule& schedule, const CheckOptions& options = {}) const;
    // The schedule the edits make (with the reuse fix-up after every move), checked.
    LegalityReport check(const std::vector<Edit>& edits, const CheckOptions& options = {}) const;
    // One block of a schedule that is a permutation; `positions` is schedule.positionOf().
    void checkBlock(const Schedule& schedule, const IndexVector<InstrId, Position>& positions, int block,
                    LegalityReport& report, const CheckOptions& options) const;

    // Reuse fix-up: clears reuse flags whose pairing changed in the new order (a reuse flag on operand
    // slot k is valid only if the next instruction reads the same register in the same slot;
    // ControlRules::reuseRefusal). Clearing a flag is always legal.
    void fixReuse(Schedule& schedule) const;

    const KernelModel& model() const { return *m_model; }

private:
    // checkBlock()'s steps, in order, over what they share (schedule_checker.cpp); each returns false
    // when the check stops: an instruction left its block, or a hazard was found and
    // options.stopAtFirst is set.
    struct BlockCheck;
    bool checkPlacement(BlockCheck& c) const;           // walls, pinned instructions, block membership
    bool checkDependencyEdges(BlockCheck& c) const;     // edge directions and distance bounds
    bool checkCrossBlockDistances(BlockCheck& c) const; // distances to the block's start and end
    bool checkNewOrderSpacing(BlockCheck& c) const;     // the walk over the new order, with these steps:
    bool checkWaitsAfterSetters(BlockCheck& c, InstrId instruction, int cycle) const;
    bool checkSettersAfterWaits(BlockCheck& c, InstrId instruction, int cycle) const;
    bool checkIssueSpacing(BlockCheck& c, InstrId instruction, int cycle) const;
    bool checkReuseFlags(BlockCheck& c, InstrId instruction, Position position) const;
    bool checkSettersAtBlockEnd(BlockCheck& c) const;
    void checkControlValues(BlockCheck& c) const; // control values against ptxas' own bits
    bool reuseValid(const Schedule& s, InstrId instruction, Position position, uint8_t flags) const;

    std::shared_ptr<const KernelModel> m_model;
};

} // namespace sassx
