#pragma once
// Undo commands over the session's variant tree. Each stores whole records (before/after) rather
// than the edit alone, so undo restores names and figures exactly, including a variant that the
// first edit on the original created.
#include "core/session/variant_record.h"

#include <QUndoCommand>

#include <optional>
#include <vector>

namespace sassx {
class Session;

class VariantEditCommand : public QUndoCommand
{
public:
    // `before` empty: the command creates `after` (the first edit on the original makes a variant).
    VariantEditCommand(Session* session, std::optional<VariantRecord> before, VariantRecord after,
                       int previousCurrent, const QString& text);
    void redo() override;
    void undo() override;
    int variantId() const { return m_after.id; }

private:
    Session* m_session;
    std::optional<VariantRecord> m_before;
    VariantRecord m_after;
    int m_previousCurrent;
};

class DeleteVariantCommand : public QUndoCommand
{
public:
    DeleteVariantCommand(Session* session, int id);
    void redo() override;
    void undo() override;

private:
    Session* m_session;
    VariantRecord m_record;
    std::vector<VariantRecord> m_children; // reparented by the delete; restored on undo
    int m_previousCurrent;
};

} // namespace sassx
