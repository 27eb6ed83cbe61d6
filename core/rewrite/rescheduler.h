#pragma once
// Control codes derived for a new order (docs/legality.md, "Rescheduling"), and the repairs built on
// them. Every judgement is the schedule checker's: the rescheduler only chooses stall counts over the
// kernel model and asks the checker whether they suffice, so derived codes obey the same rule table
// as every other edit.
#include "core/common/result.h"
#include "core/rewrite/move_enumerator.h"
#include "core/rewrite/schedule_checker.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sassx {

class Rescheduler
{
public:
    explicit Rescheduler(std::shared_ptr<const KernelModel> model);

    // Control codes derived for the order of `blocks`. Every reschedulable instruction
    // (KernelModel::stallFloor) whose successor is no longer the one ptxas gave it (or every one, with
    // `minimal`) gets the least stall the rules allow with its yield bit; the others keep their stall,
    // since ptxas' stalls also carry throughput spacing the latency model does not know (ptxas' order
    // with every stall lowered ran slower on a Triton attention kernel). Then, walking the block from
    // its start, cycles are added between each instruction that issues too early and the one it
    // depends on, nearest it first, until the checker finds no hazard. Scoreboard fields and wait
    // masks are kept, so every scoreboard edge must keep its direction; reuse flags follow
    // ScheduleChecker::fixReuse. Leaves `schedule` legal and returns nullopt, or returns the refusal (a
    // hazard no stall fixes) and leaves it partly rewritten.
    std::optional<std::string> reschedule(Schedule& schedule, const std::vector<int>& blocks,
                                          bool minimal = false) const;
    // A move of the instruction at `from` to `to` with control codes derived for its block, as edits
    // that replay it (the move, then one control edit per instruction whose bits differ from what the
    // move and the reuse fix-up leave), and the resulting schedule; or the refusal.
    Result<std::pair<std::vector<Edit>, Schedule>> rescheduledMove(const Schedule& current, Position from,
                                                                   Position to) const;
    // Targets of the instruction at `position` whose order is legal with derived control codes: the
    // nearest positions in its block, up to `maxDistance` away, that cross no wall, pinned instruction
    // or dependency (MoveEnumerator::orderTargets), and for which `reschedule` succeeds. The schedules
    // come with them. `refusals` (optional) gets reschedule's refusal of each order target that failed.
    std::vector<std::pair<Position, Schedule>>
    rescheduledTargets(const Schedule& current, Position position, int maxDistance = 32,
                       std::vector<std::string>* refusals = nullptr) const;

    // Repair mode: raise stall counts so that every latency bound is met; returns false if the
    // schedule has hazards a stall cannot fix.
    bool repairLatencies(Schedule& schedule) const;

    const KernelModel& model() const { return *m_model; }

private:
    std::shared_ptr<const KernelModel> m_model;
    ScheduleChecker m_checker;
    MoveEnumerator m_enumerator;
};

} // namespace sassx
