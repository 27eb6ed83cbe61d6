#pragma once
// One handle on the checker's three parts over one kernel model: the schedule checker
// (schedule_checker.h), the move/edit enumerator (move_enumerator.h) and the rescheduler
// (rescheduler.h), all judging by the kernel model's rule table (kernel_model.h). What the workspace,
// the searches and the views hold per kernel; each call goes to the part that owns it. Walls added
// later make a new model and new parts: the model itself never changes.
#include "core/rewrite/kernel_model.h"
#include "core/rewrite/move_enumerator.h"
#include "core/rewrite/rescheduler.h"
#include "core/rewrite/schedule_checker.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sassx {

class LegalityChecker
{
public:
    explicit LegalityChecker(std::shared_ptr<const KernelAnalysis> analysis);

    const KernelModel& model() const { return *m_model; }
    const ScheduleChecker& scheduleChecker() const { return m_checker; }
    const MoveEnumerator& moveEnumerator() const { return m_enumerator; }
    const Rescheduler& rescheduler() const { return m_rescheduler; }

    // Instructions the cubin writer cannot follow (offsets it does not rewrite): walls with a reason.
    void addWalls(const std::vector<std::pair<InstrId, std::string>>& walls);

    // The schedule checker's.
    LegalityReport check(const Schedule& schedule, const CheckOptions& options = {}) const
    {
        return m_checker.check(schedule, options);
    }
    LegalityReport check(const std::vector<Edit>& edits, const CheckOptions& options = {}) const
    {
        return m_checker.check(edits, options);
    }
    void fixReuse(Schedule& schedule) const { m_checker.fixReuse(schedule); }

    // The move/edit enumerator's.
    std::vector<Position> legalTargets(const Schedule& current, Position pos) const
    {
        return m_enumerator.legalTargets(current, pos);
    }
    std::vector<std::pair<Position, Position>> legalMoves(const Schedule& current, bool memoryOnly) const
    {
        return m_enumerator.legalMoves(current, memoryOnly);
    }
    class MoveTester : public MoveEnumerator::MoveTester
    {
    public:
        MoveTester(const LegalityChecker& checker, const Schedule& current)
            : MoveEnumerator::MoveTester(checker.m_enumerator, current)
        {
        }
    };
    std::vector<Edit> legalControlEdits(const Schedule& current, ControlSpace space,
                                        const std::vector<Position>& onlyPositions = {}) const
    {
        return m_enumerator.legalControlEdits(current, space, onlyPositions);
    }

    // The rescheduler's (rescheduled moves and targets and latency repair: rescheduler()).
    std::optional<std::string> reschedule(Schedule& schedule, const std::vector<int>& blocks,
                                          bool minimal = false) const
    {
        return m_rescheduler.reschedule(schedule, blocks, minimal);
    }

    // The kernel model's.
    const ControlRules& controlRules() const { return m_model->controlRules(); }
    const KernelAnalysis& analysis() const { return m_model->analysis(); }
    bool isWall(InstrId i) const { return m_model->isWall(i); }
    std::string wallReasonOf(InstrId i) const { return m_model->wallReasonOf(i); }

private:
    explicit LegalityChecker(std::shared_ptr<const KernelModel> model);

    std::shared_ptr<const KernelModel> m_model;
    ScheduleChecker m_checker;
    MoveEnumerator m_enumerator;
    Rescheduler m_rescheduler;
};

} // namespace sassx
