#pragma once
// Tree model of the variant tree (original → edits), with each variant's figures and where they came
// from. The name column is editable (rename, through the tree).
//
// The model follows the tree's fine-grained signals with row insertions, moves and removals (a search
// adds thousands of variants; a reset per variant would drop the views' selection and expansion and
// cost O(n) each). Only variantsChanged (the whole list replaced) resets. The model keeps its own copy
// of the structure and of each record (taken when the tree announces it), because the tree's data has
// already changed when most signals arrive, and so that data() never reads the tree.
#include "core/session/variant_record.h"

#include <QAbstractItemModel>

#include <unordered_map>
#include <vector>

namespace sassx {
class VariantTree;
class MeasureQueue;
struct VariantRecord;

class VariantsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns
    {
        NameColumn,
        EditsColumn,
        SpeedupColumn,
        IntervalColumn,
        CorrectColumn,
        SourceColumn,
        ColumnCount
    };
    enum Roles
    {
        VariantIdRole = Qt::UserRole + 1, // int
        IsCurrentRole,                    // bool
        HasFiguresRole,                   // bool
        SpeedupRole,                      // double (baseline / variant), invalid without timing
        SourceLabelRole,                  // QString: "estimate", "measured on …"
        MeasuringRole,                    // bool: an evaluation is running for it
        // QStringList: an imported variant's differences the checker refuses, with its reasons (empty:
        // none, or not imported)
        CheckerRefusalsRole,
    };

    explicit VariantsModel(VariantTree* variants, MeasureQueue* measure, QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // O(log siblings): the row is found by binary search in the parent's id-sorted child list.
    QModelIndex indexOfVariant(int id, int column = 0) const;
    int variantIdOf(const QModelIndex& index) const;

    // "Imported from PATH; not checked legal: N refusal(s) by the checker." (and, with
    // `withReasons`, each refusal on a line of its own): what the tooltips and the panel's Measure say.
    static QString importNote(const VariantImport& imported, bool withReasons);
    // "not checked legal: N refusal(s) by the checker" for an imported variant the checker refuses, else
    // empty: what every message about such a variant (diff header, measure and export messages) adds.
    static QString uncheckedNote(const VariantRecord* variant);

private:
    void rebuild();
    void variantAdded(int id);
    void variantReparented(int id);
    void variantAboutToBeRemoved(int id);
    void variantChanged(int id);
    void currentVariantChanged(int id);

    // Where `id` hangs in this model: its session parent when the model holds it, else the root (-1).
    int treeParentOf(int id) const;
    int rowOf(int id, int parent) const;
    bool isInSubtree(int id, int root) const;
    // Moves `id` (and its subtree) under `newParent`, keeping the children sorted by id. False (and
    // nothing moved) when that would put it under itself.
    bool moveTo(int id, int newParent);
    const VariantRecord* record(const QModelIndex& index) const;

    VariantTree* m_variants;
    std::unordered_map<int, std::vector<int>> m_children; // parent id (-1 = root) → child ids, sorted
    std::unordered_map<int, int> m_parent;                // id → parent id in this model (-1 = root)
    std::unordered_map<int, bool> m_measuring;
    std::unordered_map<int, VariantRecord> m_records; // id → the record as last announced
    int m_current = -1; // the variant drawn as current (to repaint it when the current one changes)
};

} // namespace sassx
