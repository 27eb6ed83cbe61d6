#pragma once
// The one path every edit takes, whatever the gesture (drag, Alt+Up/Down, context menu): ask the
// legality checker, refuse with its reason, or push an undoable command onto the variant it belongs
// to (the first edit on the original creates a variant).
#include "core/session/kernel_edits.h"

#include <QObject>
#include <QString>

#include <string>
#include <vector>

class QUndoStack;

namespace sassx {
class VariantTree;

struct EditOutcome
{
    bool accepted = false;
    QString reason; // the checker's explanation when refused; what was derived when accepted so
};

// One value of the stall submenu: whether the checker accepts it on the instruction, and why not.
struct StallChoice
{
    int stall = 0;
    bool allowed = false;
    QString reason;
};

class EditController : public QObject
{
    Q_OBJECT
public:
    EditController(VariantTree* variants, QUndoStack* undoStack, QObject* parent = nullptr);

    // A move the checker refuses as it is goes in with control codes derived for its block when
    // deriveControlCodes() is on and the derivation makes it legal (Rescheduler::rescheduledMove):
    // one undoable step holding the move and the control edits, its text saying how many changed.
    EditOutcome apply(const Edit& edit);
    // DeepGEMM's FFMA yield/reuse interleave over the whole current variant (ffmaInterleaveEdits): one
    // undoable step holding every edit the checker accepts; refused when there is none, with the reason.
    EditOutcome applyFfmaInterleave(InterleaveReuse reuse = InterleaveReuse::Clear);
    void setDeriveControlCodes(bool on) { m_derive = on; }
    bool deriveControlCodes() const { return m_derive; }
    // Same verdict as apply() without editing.
    EditOutcome check(const Edit& edit) const;
    // Legal single-move targets (positions) of the instruction at `position` in the current variant.
    std::vector<Position> legalTargets(Position position) const;
    // One line for a drag that finds no target: the checker's refusal of a move to the nearest
    // neighbour (its rule and where the number comes from), and what would make it legal where that
    // exists (derived control codes when they are switched off).
    QString whyNoTarget(Position position) const;
    // Stall values 0-15 for the instruction at `position`, each judged by the checker (the current
    // value counts as allowed).
    std::vector<StallChoice> stallChoices(Position position) const;

    VariantTree* variants() const { return m_variants; }
    QUndoStack* undoStack() const { return m_undoStack; }

Q_SIGNALS:
    void refused(const Edit& edit, const QString& reason);

private:
    void push(const std::vector<Edit>& edits, const QString& text);
    // A checker message with its instructions named by their addresses in the variant shown.
    QString shownAddresses(const std::string& message) const;

    VariantTree* m_variants;
    QUndoStack* m_undoStack;
    bool m_derive = true;
};

} // namespace sassx
