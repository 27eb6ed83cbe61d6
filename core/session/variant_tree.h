#pragma once
// The variant tree of the open kernel: the records (edits, figures, stall samples), the current
// variant and its resolved schedule, and the selected instruction. One of the Session's parts
// (docs/architecture.md, "The GUI's session"): the views of the listing, the diff, the variants and
// the metrics observe this object and nothing else for the schedule they show.
//
// The tree holds the kernel it belongs to (an immutable KernelWorkspace); the Session replaces it when
// another kernel opens (reset) and when a session file is restored (replace).
#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/legality.h"
#include "core/rewrite/variant.h"
#include "core/session/kernel_stalls.h"
#include "core/session/variant_record.h"
#include "core/session/workspace.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace sassx {

class VariantTree : public QObject
{
    Q_OBJECT
public:
    explicit VariantTree(QObject* parent = nullptr);

    // ---- the kernel the variants edit -----------------------------------------------------------
    std::shared_ptr<const KernelWorkspace> kernel() const { return m_kernel; }
    std::shared_ptr<const KernelAnalysis> analysis() const;
    const LegalityChecker* checker() const;

    // ---- records ----------------------------------------------------------------------------
    const std::vector<VariantRecord>& variants() const { return m_variants; } // sorted by id; [0] original
    const VariantRecord* variant(int id) const;
    std::vector<int> childrenOf(int id) const;
    int currentVariantId() const { return m_current; }
    const VariantRecord* currentVariant() const { return variant(m_current); }
    void setCurrentVariant(int id);
    // The current variant resolved (identity when no kernel is open).
    const Schedule& schedule() const { return m_schedule; }
    Result<Schedule> scheduleOf(int id) const;

    // Creates a variant (id < 0: a fresh id). Returns its id.
    int addVariant(int parent, const QString& name, std::vector<Edit> edits, int id = -1);
    // Replaces (or recreates) a whole record, figures included: what undo needs to restore exactly.
    void restoreVariant(const VariantRecord& record);
    // Removes a variant; its children move to its parent (their edit lists are complete already).
    bool removeVariant(int id);
    void renameVariant(int id, const QString& name);
    // New edits drop the figures (they described another schedule).
    void setVariantEdits(int id, std::vector<Edit> edits);
    QString nextVariantName() const;
    int nextVariantId() const { return m_nextId; }
    // A record for the schedule of the open kernel that another input holds (variant_import.h: a
    // cubin of the same kernel, an earlier export, a search's best), under the original, with a fresh
    // id and a name from the file's not used yet; its `imported` carries the checker's refusals. Not
    // added: the caller adds it (undoably). The error is one line, and nothing changes.
    Result<VariantRecord> importedRecord(const QString& path) const;
    // The checker's verdict on a variant's edits plus `extra`.
    LegalityReport checkEdits(int variantId, const std::vector<Edit>& extra) const;

    // Figures and samples that an evaluator returned for `edits` of `id` on `kernel`; dropped (false)
    // when the variant was deleted or edited, or another kernel opened, meanwhile: they belong to a
    // schedule that no longer exists.
    bool attachFigures(int id, const std::vector<Edit>& edits,
                       const std::shared_ptr<const KernelWorkspace>& kernel, VariantFigures figures);
    bool attachStalls(int id, const std::vector<Edit>& edits,
                      const std::shared_ptr<const KernelWorkspace>& kernel, eval::StallProfile profile);
    // A variant's samples mapped onto the kernel (per original instruction, block, reason).
    std::optional<KernelStalls> kernelStalls(int variantId) const;

    // ---- selection ----------------------------------------------------------------------------
    int selectedInstruction() const { return m_selected; } // original index, -1 none
    void setSelectedInstruction(int originalIndex);

    // ---- for the Session ----------------------------------------------------------------------
    // Only the original of `kernel` (null: none), nothing selected; silent until announceReset.
    void reset(std::shared_ptr<const KernelWorkspace> kernel);
    // A whole restored tree (sorted by id, [0] the original); silent until announceReset.
    void replace(std::vector<VariantRecord> records, int current);
    // Tells the views the tree was replaced: selectionChanged(-1) first when `selection`, then
    // variantsChanged, currentVariantChanged and (with a kernel) scheduleChanged.
    void announceReset(bool selection);

Q_SIGNALS:
    // Finely, so views insert and remove rows instead of resetting (a search adds thousands):
    // variantAdded after a record is inserted; variantAboutToBeRemoved before one goes (its children
    // are moved to its parent first, each announced by variantReparented); and variantsChanged only
    // when the whole list is replaced (a new kernel, a restored session).
    void variantsChanged();
    void variantAdded(int id);
    void variantAboutToBeRemoved(int id);
    void variantRemoved(int id);
    void variantReparented(int id, int oldParent);
    void variantChanged(int id); // name, edits, figures or samples of one variant
    void currentVariantChanged(int id);
    void scheduleChanged(); // the current variant's order or control bits
    void selectionChanged(int originalIndex);
    // Something a session file keeps changed (the session is now modified).
    void edited();

private:
    VariantRecord* mutableVariant(int id);
    void recomputeSchedule();
    void scheduleChangedIfCurrent(int id);

    std::shared_ptr<const KernelWorkspace> m_kernel;
    std::vector<VariantRecord> m_variants;
    int m_current = 0;
    int m_nextId = 1;
    Schedule m_schedule;
    int m_selected = -1;
};

} // namespace sassx
