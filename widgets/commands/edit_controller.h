#pragma once
// The one path every edit takes, whatever the gesture (drag, Alt+Up/Down, context menu): ask the
// legality checker, refuse with its reason, or push an undoable command onto the variant it belongs
// to (the first edit on the original creates a variant).
#include "core/rewrite/variant.h"

#include <QObject>
#include <QString>

#include <vector>

class QUndoStack;

namespace sassx {
class Session;

struct EditOutcome
{
    bool accepted = false;
    QString reason; // the checker's explanation when refused
};

class EditController : public QObject
{
    Q_OBJECT
public:
    EditController(Session* session, QUndoStack* undoStack, QObject* parent = nullptr);

    EditOutcome apply(const Edit& edit);
    // Same verdict as apply() without editing.
    EditOutcome check(const Edit& edit) const;
    // Legal single-move targets (positions) of the instruction at `position` in the current variant.
    std::vector<uint32_t> legalTargets(uint32_t position) const;

    Session* session() const { return m_session; }
    QUndoStack* undoStack() const { return m_undoStack; }

Q_SIGNALS:
    void refused(const Edit& edit, const QString& reason);

private:
    Session* m_session;
    QUndoStack* m_undoStack;
};

} // namespace sassx
