#include "widgets/variants_panel.h"

#include "core/session/measure_queue.h"
#include "core/session/variant_tree.h"
#include "widgets/commands/variant_edit_command.h"
#include "widgets/models/variants_model.h"

#include <QAction>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMessageBox>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>

namespace sassx {

VariantsPanel::VariantsPanel(VariantTree* variants, MeasureQueue* measure, QUndoStack* undoStack,
                             QWidget* parent)
    : QWidget(parent), m_variants(variants), m_queue(measure), m_undoStack(undoStack),
      m_model(new VariantsModel(variants, measure, this))
{
    m_tree = new QTreeView(this);
    m_tree->setModel(m_model);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Only the name of a variant other than the original is editable: F2 and Rename edit that cell
    // whatever column is current (the view's own F2 would try the current cell and warn when it is not
    // editable).
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* renameAction = new QAction(tr("Rename"), m_tree);
    renameAction->setShortcut(QKeySequence(Qt::Key_F2));
    renameAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_tree->addAction(renameAction);
    connect(renameAction, &QAction::triggered, this, &VariantsPanel::renameSelected);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setMinimumSectionSize(24);
    // A name carries its speed-up at its end ("climb best 1.0123× est."): when it must be cut, the
    // middle goes, and the tooltip has it whole.
    m_tree->setTextElideMode(Qt::ElideMiddle);
    resetColumns();
    m_tree->expandAll();
    // Once per batch of changes (a search adds thousands of variants): a walk over every name.
    m_fitNames = new QTimer(this);
    m_fitNames->setSingleShot(true);
    m_fitNames->setInterval(0);
    connect(m_fitNames, &QTimer::timeout, this, &VariantsPanel::fitNameColumn);
    auto fitSoon = [this] { m_fitNames->start(); };
    connect(m_model, &QAbstractItemModel::rowsInserted, this, fitSoon);
    connect(m_model, &QAbstractItemModel::rowsMoved, this, fitSoon);
    connect(m_model, &QAbstractItemModel::modelReset, this, fitSoon);
    connect(m_model, &QAbstractItemModel::dataChanged, this, fitSoon);
    m_tree->viewport()->installEventFilter(this);

    auto button = [this](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    // One action for the button and Variant ▸ Measure (Ctrl+M): disabled in one, disabled in both.
    m_measureAction = new QAction(tr("&Measure"), this);
    m_measureAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    m_measure = button(tr("Measure"), {});
    m_measure->setDefaultAction(m_measureAction);
    m_compare =
        button(tr("Compare"), tr("Show the selected variants' figures side by side in the metrics view"));
    m_diff = button(tr("Diff"), tr("Side-by-side listing of two selected variants"));
    m_rename = button(tr("Rename"), tr("Rename the selected variant (F2)"));
    m_delete =
        button(tr("Delete"), tr("Delete the selected variant (undoable; its children move to its parent)"));
    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(2, 2, 2, 2);
    for (QToolButton* b : {m_measure, m_compare, m_diff, m_rename, m_delete})
        buttons->addWidget(b);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_tree, 1);

    connect(m_measureAction, &QAction::triggered, this, &VariantsPanel::measureSelected);
    connect(m_compare, &QToolButton::clicked, this, [this] { Q_EMIT compareRequested(selectedVariants()); });
    connect(m_diff, &QToolButton::clicked, this, [this] {
        const auto ids = selectedVariants();
        if (ids.size() == 2)
            Q_EMIT diffRequested(ids[0], ids[1]);
        else if (ids.size() == 1)
            Q_EMIT diffRequested(
                m_variants->variant(ids[0])->parent < 0 ? 0 : m_variants->variant(ids[0])->parent, ids[0]);
    });
    connect(m_rename, &QToolButton::clicked, this, &VariantsPanel::renameSelected);
    connect(m_delete, &QToolButton::clicked, this, &VariantsPanel::deleteSelected);
    connect(m_tree, &QTreeView::activated, this,
            [this](const QModelIndex& index) { m_variants->setCurrentVariant(m_model->variantIdOf(index)); });
    // A reset (a new kernel, a restored session) starts over: everything expanded, the current variant
    // selected. Added, moved and removed variants arrive as row changes, which keep the user's
    // selection and expansion; only a parent that gets its first child is expanded, so the new row is
    // seen (a collapsed parent that already had children stays collapsed).
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_tree->expandAll();
        selectVariants({m_variants->currentVariantId()});
    });
    auto expandFirstChildren = [this](const QModelIndex& parent, int first, int last) {
        if (parent.isValid() && m_model->rowCount(parent) == last - first + 1) m_tree->expand(parent);
    };
    connect(m_model, &QAbstractItemModel::rowsInserted, this, expandFirstChildren);
    connect(m_model, &QAbstractItemModel::rowsMoved, this,
            [expandFirstChildren](const QModelIndex&, int first, int last, const QModelIndex& parent, int) {
                expandFirstChildren(parent, first, last);
            });
    connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &VariantsPanel::updateActions);
    connect(m_variants, &VariantTree::variantChanged, this, &VariantsPanel::updateActions);
    connect(m_variants, &VariantTree::currentVariantChanged, this, [this](int id) { selectVariants({id}); });
    connect(m_queue, &MeasureQueue::measureFinished, this, &VariantsPanel::updateActions);
    connect(m_queue, &MeasureQueue::measureFailed, this, &VariantsPanel::updateActions);
    updateActions();
}

std::vector<int> VariantsPanel::selectedVariants() const
{
    std::vector<int> ids;
    for (const QModelIndex& i : m_tree->selectionModel()->selectedRows())
        ids.push_back(m_model->variantIdOf(i));
    std::sort(ids.begin(), ids.end());
    return ids;
}

void VariantsPanel::selectVariants(const std::vector<int>& ids)
{
    QItemSelection selection;
    for (int id : ids) {
        const QModelIndex i = m_model->indexOfVariant(id);
        if (i.isValid()) selection.select(i, m_model->indexOfVariant(id, VariantsModel::ColumnCount - 1));
    }
    m_tree->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    if (!ids.empty())
        m_tree->selectionModel()->setCurrentIndex(m_model->indexOfVariant(ids.front()),
                                                  QItemSelectionModel::NoUpdate);
}

void VariantsPanel::resetColumns()
{
    // Widths from what the columns hold ("1.023×", "[0.998, 1.012]", "not run"), so that a dock a third
    // of the default window wide shows every column; the name takes what is left and Source, last,
    // stretches (its full text is in the tooltip).
    const QFontMetrics fm(m_tree->font());
    auto w = [&](const QString& sample, int column) {
        const QString title = m_model->headerData(column, Qt::Horizontal).toString();
        return std::max(fm.horizontalAdvance(sample), fm.horizontalAdvance(title)) + 16;
    };
    QHeaderView* h = m_tree->header();
    // The stretched last column (Source) never shrinks below the width it had when stretching was
    // turned on: stretch again only after it is small.
    h->setStretchLastSection(false);
    h->resizeSection(VariantsModel::SourceColumn, w(QStringLiteral("estimate"), VariantsModel::SourceColumn));
    h->resizeSection(VariantsModel::EditsColumn, w(QStringLiteral("999"), VariantsModel::EditsColumn));
    h->resizeSection(VariantsModel::SpeedupColumn, w(tr("1.023× est."), VariantsModel::SpeedupColumn));
    h->resizeSection(VariantsModel::IntervalColumn,
                     w(QStringLiteral("[0.998, 1.012]"), VariantsModel::IntervalColumn));
    h->resizeSection(VariantsModel::CorrectColumn,
                     w(QStringLiteral("not run"), VariantsModel::CorrectColumn));
    // A name like "anneal #12" one level down the tree (longer ones are elided, whole in the tooltip;
    // the mark of an imported variant the checker refuses takes its room from the name, since a wider
    // column would push Source out of a dock a third of the window wide).
    h->resizeSection(VariantsModel::NameColumn,
                     w(QStringLiteral("anneal #12"), VariantsModel::NameColumn) + m_tree->indentation());
    h->setStretchLastSection(true);
    m_lastNameFit = 0;
    fitNameColumn();
}

int VariantsPanel::widestName(const QModelIndex& parent, int depth) const
{
    // Bold is the current variant's font: the widest a name is ever drawn.
    QFont bold = m_tree->font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    const int icon = m_tree->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, m_tree);
    int widest = 0;
    for (int r = 0; r < m_model->rowCount(parent); ++r) {
        const QModelIndex i = m_model->index(r, VariantsModel::NameColumn, parent);
        int w = fm.horizontalAdvance(i.data().toString()) + m_tree->indentation() * (depth + 1) + 16;
        if (!i.data(Qt::DecorationRole).isNull()) w += icon + 4;
        widest = std::max({widest, w, widestName(i, depth + 1)});
    }
    return widest;
}

void VariantsPanel::fitNameColumn()
{
    QHeaderView* h = m_tree->header();
    // A column widened by hand beyond the last fit stays as the user left it.
    if (m_lastNameFit > 0 && h->sectionSize(VariantsModel::NameColumn) > m_lastNameFit) return;
    // The other columns keep their widths, and Source (stretched, last) at least its default: the name
    // takes what is left, as much as its widest name needs, and never less than the default.
    int others = 0;
    for (int c = VariantsModel::EditsColumn; c < VariantsModel::SourceColumn; ++c)
        others += h->sectionSize(c);
    const QFontMetrics fm(m_tree->font());
    const int source =
        fm.horizontalAdvance(m_model->headerData(VariantsModel::SourceColumn, Qt::Horizontal).toString()) +
        16;
    const int least = fm.horizontalAdvance(QStringLiteral("anneal #12")) + 16 + m_tree->indentation();
    // In a narrow dock the name keeps over half the width (the columns after it scroll): it is what tells
    // the variants apart.
    const int room =
        std::max(m_tree->viewport()->width() - others - source, m_tree->viewport()->width() * 55 / 100);
    const int want = std::max(least, std::min(widestName({}, 0), room));
    m_lastNameFit = want;
    if (h->sectionSize(VariantsModel::NameColumn) == want) return;
    h->setStretchLastSection(false);
    h->resizeSection(VariantsModel::NameColumn, want);
    h->setStretchLastSection(true);
}

bool VariantsPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_tree->viewport() && event->type() == QEvent::Resize) fitNameColumn();
    return QWidget::eventFilter(watched, event);
}

void VariantsPanel::updateActions()
{
    const auto ids = selectedVariants();
    QString why = ids.empty() ? tr("Select a variant to measure") : QString();
    for (int id : ids)
        if (why.isEmpty()) why = m_queue->measureUnavailableReason(id);
    m_measureAction->setEnabled(why.isEmpty() && !m_queue->isMeasuring());
    QString tip = why.isEmpty() ? tr("Run the evaluator on the selected variants in the background "
                                     "(GPU worker when available, otherwise the estimate backend)")
                                : why;
    // Measuring a schedule the checker refuses is allowed (that is why it was imported), never silent.
    for (int id : ids)
        if (const VariantRecord* v = m_variants->variant(id);
            v && v->imported && !v->imported->checkedLegal())
            tip += QLatin1Char('\n') + QString::fromStdString(v->name) + QStringLiteral(": ") +
                   VariantsModel::importNote(*v->imported, false);
    m_measureAction->setToolTip(tip);
    m_compare->setEnabled(!ids.empty());
    m_diff->setEnabled(ids.size() == 1 || ids.size() == 2);
    const bool oneEditable = ids.size() == 1 && ids[0] != 0;
    m_rename->setEnabled(oneEditable);
    m_delete->setEnabled(oneEditable);
}

void VariantsPanel::importCubinDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Cubin as Variant"), QString(),
                                                      tr("Kernels (*.cubin *.fatbin *.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (importCubin(path, &error) < 0) QMessageBox::warning(this, tr("Import Cubin as Variant"), error);
}

int VariantsPanel::importCubin(const QString& path, QString* error)
{
    auto record = m_variants->importedRecord(path);
    if (!record) {
        if (error) *error = QString::fromStdString(record.message());
        return -1;
    }
    const QString text = tr("Import %1").arg(QString::fromStdString(record->name));
    m_undoStack->push(
        new VariantEditCommand(m_variants, std::nullopt, *record, m_variants->currentVariantId(), text));
    return record->id;
}

void VariantsPanel::measureSelected()
{
    if (!m_measureAction->isEnabled()) return; // its tooltip says why
    for (int id : selectedVariants())
        m_queue->measure(id);
    updateActions();
}

void VariantsPanel::deleteSelected()
{
    const auto ids = selectedVariants();
    if (ids.size() == 1 && ids[0] != 0) m_undoStack->push(new DeleteVariantCommand(m_variants, ids[0]));
}

void VariantsPanel::renameSelected()
{
    const auto ids = selectedVariants();
    if (ids.size() == 1 && ids[0] != 0)
        m_tree->edit(m_model->indexOfVariant(ids[0], VariantsModel::NameColumn));
}

} // namespace sassx
