#include "widgets/commands/edit_controller.h"

#include "core/session/session.h"
#include "widgets/commands/variant_edit_command.h"

#include <QUndoStack>

namespace sassx {

EditController::EditController(Session* session, QUndoStack* undoStack, QObject* parent)
    : QObject(parent), m_session(session), m_undoStack(undoStack)
{
}

EditOutcome EditController::check(const Edit& edit) const
{
    const LegalityReport report = m_session->checkEdits(m_session->currentVariantId(), {edit});
    if (report.legal()) return {true, {}};
    QString reason = QString::fromStdString(report.hazards.front().message);
    if (report.hazards.size() > 1)
        reason += tr(" (and %n more hazard(s))", nullptr, int(report.hazards.size() - 1));
    return {false, reason};
}

EditOutcome EditController::apply(const Edit& edit)
{
    const EditOutcome verdict = check(edit);
    if (!verdict.accepted) {
        Q_EMIT refused(edit, verdict.reason);
        return verdict;
    }
    const VariantRecord* current = m_session->currentVariant();
    std::optional<VariantRecord> before;
    VariantRecord after;
    if (current->isOriginal()) {
        after.id = m_session->nextVariantId();
        after.parent = current->id;
        after.name = m_session->nextVariantName().toStdString();
    } else {
        before = *current;
        after = *current;
        after.figures.reset(); // figures describe the schedule before this edit
    }
    after.edits.push_back(edit);
    m_undoStack->push(new VariantEditCommand(m_session, before, after, current->id,
                                             QString::fromStdString(edit.describe())));
    return {true, {}};
}

std::vector<uint32_t> EditController::legalTargets(uint32_t position) const
{
    const LegalityChecker* checker = m_session->checker();
    if (!checker || position >= m_session->schedule().order.size()) return {};
    return checker->legalTargets(m_session->schedule(), position);
}

} // namespace sassx
