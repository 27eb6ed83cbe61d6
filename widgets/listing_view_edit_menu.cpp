// ListingView's context-menu edits of one instruction: stall, yield and reuse (each value judged by the
// checker first), DeepGEMM's FFMA interleave and a policy's suggestions. A read-only listing (a Blackwell
// kernel, ListingView::editRefusal) never builds these.
#include "widgets/listing_view.h"

#include "core/session/kernel_edits.h"
#include "core/session/variant_tree.h"
#include "widgets/commands/edit_controller.h"

#include <QLabel>
#include <QMenu>

namespace sassx {

// Stall, yield and reuse of the instruction at `position`, the FFMA interleave and a policy's suggestions.
void ListingView::addEditActions(QMenu& menu, Position position, int row)
{
    const InstrId orig = m_variants->schedule().order[position];
    const Control c = m_variants->schedule().control[orig];
    QMenu* stall = menu.addMenu(tr("Stall"));
    stall->setToolTipsVisible(true);
    // Each value asks the checker: the allowed ones can be chosen, the others say why not.
    for (const StallChoice& choice : m_controller->stallChoices(position)) {
        const int s = choice.stall;
        QAction* a = stall->addAction(choice.allowed ? QString::number(s) : tr("%1 — not allowed").arg(s));
        a->setCheckable(true);
        a->setChecked(s == c.stall);
        a->setEnabled(choice.allowed);
        a->setToolTip(choice.allowed ? tr("Allowed") : choice.reason);
        a->setStatusTip(a->toolTip());
        connect(a, &QAction::triggered, this, [this, position, s, row] {
            applyEdit(Edit::control(position, uint8_t(s), std::nullopt, std::nullopt), row);
        });
    }
    if (c.yield && (c.reuse & 7)) {
        // Clearing the bit of an instruction with reuse flags is two distinct edits: the flags kept
        // (nvdisasm then prints no .reuse marks) or cleared with it (what ptxas writes).
        QMenu* yield = menu.addMenu(tr("Yield bit"));
        yield->addAction(tr("Clear, Keep Reuse Flags"), this, [this, position, row] {
            applyEdit(Edit::control(position, std::nullopt, uint8_t(0), std::nullopt), row);
        });
        yield->addAction(tr("Clear with Reuse Flags"), this, [this, position, row] {
            applyEdit(Edit::control(position, std::nullopt, uint8_t(0), uint8_t(0)), row);
        });
    } else {
        QAction* yield = menu.addAction(tr("Yield bit"));
        yield->setCheckable(true);
        yield->setChecked(c.yield);
        connect(yield, &QAction::triggered, this, [this, position, c, row] {
            applyEdit(Edit::control(position, std::nullopt, uint8_t(c.yield ? 0 : 1), std::nullopt), row);
        });
    }
    QMenu* reuse = menu.addMenu(tr("Reuse flags"));
    static const char* slotNames[] = {"a", "b", "c"};
    for (int k = 0; k < 3; ++k) {
        QAction* a = reuse->addAction(tr("Slot %1").arg(QLatin1String(slotNames[k])));
        a->setCheckable(true);
        a->setChecked((c.reuse >> k) & 1);
        connect(a, &QAction::triggered, this, [this, position, c, k, row] {
            applyEdit(Edit::control(position, std::nullopt, std::nullopt, uint8_t(c.reuse ^ (1 << k))), row);
        });
    }
    // DeepGEMM's named edit over the whole kernel, each of its edits judged like a hand-made one, in
    // both forms: the Rb flag cleared with the flip (DeepGEMM's) or kept.
    for (InterleaveReuse form : {InterleaveReuse::Clear, InterleaveReuse::Keep}) {
        const QString label = form == InterleaveReuse::Clear ? tr("Yield/Reuse Interleave (FFMA Runs)")
                                                             : tr("Yield Interleave, Reuse Kept (FFMA Runs)");
        menu.addAction(label, this, [this, row, form] {
            const EditOutcome outcome = m_controller->applyFfmaInterleave(form);
            if (!outcome.accepted) {
                showRefusal(row, outcome.reason, tr("Yield/reuse interleave"));
                return;
            }
            m_banner->hide();
            Q_EMIT statusMessage(outcome.reason.isEmpty()
                                     ? tr("Done: yield/reuse interleave")
                                     : tr("Done: yield/reuse interleave, %1").arg(outcome.reason));
        });
    }
    addPolicySuggestions(menu, position, row);
}

} // namespace sassx
