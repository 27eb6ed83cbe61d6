#pragma once
// The variant tree with each variant's figures and their source; measure, compare, diff, rename and
// delete act on the selected variants. Activating a variant makes it the current one (the listing
// shows it, and edits go to it).
#include <QModelIndex>
#include <QWidget>

#include <vector>

class QAction;
class QTimer;
class QTreeView;
class QToolButton;
class QUndoStack;

namespace sassx {
class VariantTree;
class MeasureQueue;
class VariantsModel;

class VariantsPanel : public QWidget
{
    Q_OBJECT
public:
    VariantsPanel(VariantTree* variants, MeasureQueue* measure, QUndoStack* undoStack,
                  QWidget* parent = nullptr);

    QTreeView* tree() const { return m_tree; }
    VariantsModel* model() const { return m_model; }
    std::vector<int> selectedVariants() const;
    void selectVariants(const std::vector<int>& ids);

    // Variant ▸ Import Cubin as Variant…: another cubin of the open kernel (another tool's, an earlier
    // export, a search's best) becomes a variant under the original, undoably, and the current one; a
    // schedule the checker refuses is imported too, marked, with the refusals in its tooltip.
    void importCubinDialog();
    // The same without the dialog: the new variant's id, or -1 with the one-line reason in *error.
    int importCubin(const QString& path, QString* error);
    void measureSelected();
    // Measure the selected variants: enabled only when they can be measured now (tooltip: why not).
    QAction* measureAction() const { return m_measureAction; }
    void deleteSelected();
    void renameSelected();
    // Column widths back to their defaults (View ▸ Reset Layout, and at start).
    void resetColumns();
    // The name column as wide as the widest name, within the room the other columns leave; names that
    // still do not fit are cut in the middle (their speed-up, at the end, stays). Not once the user
    // widened it.
    void fitNameColumn();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    void compareRequested(const std::vector<int>& ids);
    void diffRequested(int left, int right);

private:
    void updateActions();
    // The widest name under `parent` as drawn (bold, indented, with the import mark), in pixels.
    int widestName(const QModelIndex& parent, int depth) const;

    VariantTree* m_variants;
    MeasureQueue* m_queue;
    QUndoStack* m_undoStack;
    VariantsModel* m_model;
    QTreeView* m_tree;
    QToolButton* m_measure;
    QAction* m_measureAction;
    QToolButton* m_compare;
    QToolButton* m_diff;
    QToolButton* m_rename;
    QToolButton* m_delete;
    QTimer* m_fitNames = nullptr;
    int m_lastNameFit = 0; // the name column's width the last fit gave (0: none yet)
};

} // namespace sassx
