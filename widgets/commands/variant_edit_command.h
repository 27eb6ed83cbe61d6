#pragma once
// Undo commands over the session's variant tree. Each stores whole records (before/after) rather
// than the edit alone, so undo restores names and figures exactly, including a variant that the
// first edit on the original created.
#include "core/session/variant_record.h"

#include <QUndoCommand>

#include <optional>
#include <vector>

namespace sassx {
class VariantTree;

class VariantEditCommand : public QUndoCommand
{
public:
    // `before` empty: the command creates `after` (the first edit on the original makes a variant).
    VariantEditCommand(VariantTree* variants, std::optional<VariantRecord> before, VariantRecord after,
                       int previousCurrent, const QString& text);
    void redo() override;
    void undo() override;
    int variantId() const { return m_after.id; }

private:
    VariantTree* m_variants;
    std::optional<VariantRecord> m_before;
    VariantRecord m_after;
    int m_previousCurrent;
};

class DeleteVariantCommand : public QUndoCommand
{
public:
    DeleteVariantCommand(VariantTree* variants, int id);
    void redo() override;
    void undo() override;

private:
    VariantTree* m_variants;
    VariantRecord m_record;
    std::vector<VariantRecord> m_children; // reparented by the delete; restored on undo
    int m_previousCurrent;
};

} // namespace sassx
