#include "widgets/commands/edit_controller.h"

#include "core/session/session.h"
#include "widgets/commands/variant_edit_command.h"

#include <QUndoStack>

#include <algorithm>
#include <optional>

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
    std::vector<Edit> edits{edit};
    QString text = QString::fromStdString(edit.describe());
    QString derived;
    if (!verdict.accepted) {
        const LegalityChecker* checker = m_session->checker();
        std::optional<Result<std::pair<std::vector<Edit>, Schedule>>> r;
        if (m_derive && checker && edit.kind == Edit::Kind::Move)
            r = checker->rescheduledMove(m_session->schedule(), edit.from, edit.to);
        if (!r || !*r) {
            Q_EMIT refused(edit, verdict.reason);
            return verdict;
        }
        edits = (*r)->first;
        derived = tr("with control codes derived for the new order: %n instruction(s) changed", nullptr,
                     int(edits.size() - 1));
        text += QStringLiteral(" (") + derived + QStringLiteral(")");
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
    after.edits.insert(after.edits.end(), edits.begin(), edits.end());
    m_undoStack->push(new VariantEditCommand(m_session, before, after, current->id, text));
    return {true, derived};
}

std::vector<uint32_t> EditController::legalTargets(uint32_t position) const
{
    const LegalityChecker* checker = m_session->checker();
    if (!checker || position >= m_session->schedule().order.size()) return {};
    std::vector<uint32_t> targets = checker->legalTargets(m_session->schedule(), position);
    if (m_derive) {
        // Also where the move is legal with derived control codes (what apply() then does).
        for (const auto& [t, s] : checker->rescheduledTargets(m_session->schedule(), position))
            if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
        std::sort(targets.begin(), targets.end());
    }
    return targets;
}

} // namespace sassx
