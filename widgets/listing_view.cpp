#include "widgets/listing_view.h"

#include "core/session/kernel_edits.h"
#include "core/session/workspace.h"

#include "widgets/edit_text.h"

#include "core/session/search_runs.h"
#include "core/session/variant_tree.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/listing_delegate.h"
#include "widgets/models/listing_feed.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QSettings>
#include <QStyle>
#include <QTimer>

namespace sassx {

namespace {
constexpr auto kHeaderKey = "listing/headerState";
}

ListingView::ListingView(VariantTree* variants, SearchRuns* searches, EditController* controller,
                         QWidget* parent)
    : QTableView(parent), m_variants(variants), m_searches(searches), m_controller(controller),
      m_model(new ListingModel(this)),
      m_policyJobs(std::make_unique<JobTracker>(this, JobTracker::Policy::Supersede))
{
    followVariantTree(m_model, variants);
    setModel(m_model);
    setItemDelegate(new ListingDelegate(this));
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setSelectionBehavior(SelectRows);
    setSelectionMode(SingleSelection);
    setShowGrid(false);
    setWordWrap(false);
    setMouseTracking(true);
    setEditTriggers(NoEditTriggers);
    setHorizontalScrollMode(ScrollPerPixel);
    // 100,000 rows: fixed row heights keep layout O(1) (no per-row size hints).
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    verticalHeader()->hide();
    horizontalHeader()->setSectionsMovable(true);
    horizontalHeader()->setHighlightSections(false);
    horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    horizontalHeader()->setStretchLastSection(false);
    // The style's minimum section width would keep an empty column from giving way.
    horizontalHeader()->setMinimumSectionSize(narrowWidth());
    resetColumns();
    restoreHeaderState();
    setMinimumWidth(usableMinimumWidth());
    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column, int, int size) {
        // A column the user widens is no longer one that gave way.
        if (!m_fitting && size > narrowWidth()) m_narrowed.erase(column);
        // Another column changed width: the instruction column takes up (or gives back) the difference.
        if (column != ListingModel::InstructionColumn) fitInstructionColumn();
        if (!m_fitting) saveHeaderState();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &ListingView::giveWayEmptyColumns);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& from, const QModelIndex& to) {
                if (from.column() <= ListingModel::SamplesColumn &&
                    to.column() >= ListingModel::SamplesColumn)
                    giveWayEmptyColumns();
            });
    connect(horizontalHeader(), &QHeaderView::sectionMoved, this, [this] { saveHeaderState(); });
    connect(horizontalHeader(), &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        for (int c = 0; c < ListingModel::ColumnCount; ++c) {
            QAction* a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
            a->setCheckable(true);
            a->setChecked(!isColumnHidden(c));
            a->setEnabled(c != ListingModel::InstructionColumn);
            connect(a, &QAction::toggled, this, [this, c](bool on) {
                setColumnHidden(c, !on);
                fitInstructionColumn();
                saveHeaderState();
            });
        }
        menu.exec(horizontalHeader()->mapToGlobal(pos));
    });

    m_banner = new QLabel(viewport());
    m_banner->setObjectName(QStringLiteral("refusalBanner"));
    m_banner->setWordWrap(false);
    m_banner->setStyleSheet(
        QStringLiteral("QLabel { background: #fde2e1; color: #7a0c0c; border: 1px solid #d9534f;"
                       " border-radius: 3px; padding: 4px 6px; }"));
    m_banner->hide();
    m_bannerTimer = new QTimer(this);
    m_bannerTimer->setSingleShot(true);
    m_bannerTimer->setInterval(12000);
    connect(m_bannerTimer, &QTimer::timeout, m_banner, &QWidget::hide);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this] {
        if (m_banner->isVisible()) showRefusal(m_bannerRow, m_bannerReason, m_bannerWhat);
    });

    connect(selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!m_syncing && current.isValid()) {
                    const std::optional<InstrId> original = m_model->originalOfRow(current.row());
                    m_variants->setSelectedInstruction(original ? int(original->value()) : -1);
                }
            });
    connect(m_variants, &VariantTree::selectionChanged, this, &ListingView::syncFromSession);
    // Another kernel (or input) opens at its top, with no jump history or banner from the last one.
    // (variantsChanged: the whole tree was replaced, with its kernel.)
    connect(m_variants, &VariantTree::variantsChanged, this, [this] {
        m_history.clear();
        Q_EMIT historyChanged();
        m_banner->hide();
        cancelDrag();
        scrollToTop();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // A reset (edit, undo, variant switch) keeps the selected instruction selected, wherever it went.
        cancelDrag();
        syncFromSession();
    });
}

void ListingView::resetColumns()
{
    // Each column as wide as its header or its usual content (characters of the fixed font: "1a40",
    // "@!P0", "15", "Y1", "W2", "R-", "0----5", "a-c", cycles, live registers); the instruction
    // column takes what is left (fitInstructionColumn).
    QHeaderView* header = horizontalHeader();
    for (int c = 0; c < ListingModel::ColumnCount; ++c) {
        setColumnHidden(c, false);
        header->moveSection(header->visualIndex(c), c);
    }
    // The source line starts hidden: at the default window size the other columns take the whole width,
    // and the Source dock lists the lines (its check box, like the header's menu, shows the column).
    setColumnHidden(ListingModel::SourceColumn, true);
    const int chars[ListingModel::ColumnCount] = {6, 5, 0, 2, 2, 2, 2, 6, 3, 5, 3, 5, 15};
    const int ch = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    const QFontMetrics headerMetrics(header->font());
    m_fitting = true;
    for (int c = 0; c < ListingModel::ColumnCount; ++c) {
        const int title = headerMetrics.horizontalAdvance(m_model->headerData(c, Qt::Horizontal).toString());
        header->resizeSection(c, std::max(title + 12, chars[c] * ch + 8));
    }
    m_fitting = false;
    m_narrowed.clear();
    giveWayEmptyColumns();
    fitInstructionColumn();
}

int ListingView::narrowWidth() const
{
    return fontMetrics().horizontalAdvance(QLatin1Char('0')) + 6;
}

void ListingView::giveWayEmptyColumns()
{
    bool changed = false;
    m_fitting = true;
    for (int c : {int(ListingModel::PredicateColumn), int(ListingModel::SamplesColumn),
                  int(ListingModel::SourceColumn)}) {
        const bool empty = m_model->isColumnEmpty(c);
        const auto it = m_narrowed.find(c);
        if (empty && it == m_narrowed.end() && columnWidth(c) > narrowWidth()) {
            m_narrowed[c] = columnWidth(c);
            horizontalHeader()->resizeSection(c, narrowWidth());
            changed = true;
        } else if (!empty && it != m_narrowed.end()) {
            horizontalHeader()->resizeSection(c, it->second);
            m_narrowed.erase(it);
            changed = true;
        }
    }
    m_fitting = false;
    if (changed) fitInstructionColumn();
}

int ListingView::minimumInstructionWidth() const
{
    // Narrow windows give the instruction column's width up first (its tooltip has the whole text): the
    // control columns after it are what the tool is for, and stay in view down to 1024 px wide.
    return 18 * fontMetrics().horizontalAdvance(QLatin1Char('0')) + 10;
}

int ListingView::usableMinimumWidth() const
{
    const int address = fontMetrics().horizontalAdvance(QStringLiteral("00000")) + 12;
    return address + minimumInstructionWidth() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) +
           2 * frameWidth();
}

void ListingView::fitInstructionColumn()
{
    if (m_fitting) return;
    int others = 0;
    for (int c = 0; c < ListingModel::ColumnCount; ++c)
        if (c != ListingModel::InstructionColumn && !isColumnHidden(c)) others += columnWidth(c);
    const int want = std::max(minimumInstructionWidth(), viewport()->width() - others);
    if (columnWidth(ListingModel::InstructionColumn) == want) return;
    m_fitting = true;
    horizontalHeader()->resizeSection(ListingModel::InstructionColumn, want);
    m_fitting = false;
}

void ListingView::resizeEvent(QResizeEvent* event)
{
    QTableView::resizeEvent(event);
    fitInstructionColumn();
}

void ListingView::saveHeaderState() const
{
    QSettings().setValue(QLatin1String(kHeaderKey), horizontalHeader()->saveState());
}

void ListingView::restoreHeaderState()
{
    const QByteArray state = QSettings().value(QLatin1String(kHeaderKey)).toByteArray();
    if (!state.isEmpty()) horizontalHeader()->restoreState(state);
    fitInstructionColumn();
}

void ListingView::syncFromSession()
{
    const int selected = m_variants->selectedInstruction();
    const int row = selected < 0 ? -1 : m_model->rowOfOriginal(InstrId(uint32_t(selected)));
    m_syncing = true;
    if (row < 0) {
        clearSelection();
    } else if (currentIndex().row() != row) {
        setCurrentIndex(m_model->index(row, ListingModel::InstructionColumn));
        scrollTo(m_model->index(row, 0));
    }
    m_syncing = false;
    viewport()->update();
}

void ListingView::selectRow(int row, bool pushHistory)
{
    if (row < 0 || !m_model->positionOfRow(row)) return;
    if (pushHistory && m_variants->selectedInstruction() >= 0) {
        m_history.push_back(InstrId(uint32_t(m_variants->selectedInstruction())));
        Q_EMIT historyChanged();
    }
    setCurrentIndex(m_model->index(row, ListingModel::InstructionColumn));
    scrollTo(m_model->index(row, 0), PositionAtCenter);
}

bool ListingView::goToAddress(uint64_t offset)
{
    const int row = m_model->rowOfAddress(offset & ~uint64_t(15));
    if (row < 0) {
        Q_EMIT statusMessage(tr("No instruction at 0x%1").arg(offset, 0, 16));
        return false;
    }
    selectRow(row, true);
    return true;
}

bool ListingView::followBranch()
{
    const QVariant target = m_model->index(currentIndex().row(), 0).data(ListingModel::BranchTargetRole);
    if (!target.isValid()) {
        Q_EMIT statusMessage(tr("The selected instruction is not a direct branch"));
        return false;
    }
    return goToAddress(target.toULongLong());
}

bool ListingView::goBack()
{
    if (m_history.empty()) return false;
    const InstrId original = m_history.back();
    m_history.pop_back();
    Q_EMIT historyChanged();
    selectRow(m_model->rowOfOriginal(original));
    return true;
}

QString ListingView::refusalText() const
{
    return m_banner->isHidden() ? QString() : m_bannerFull;
}

void ListingView::showRefusal(int row, const QString& reason, const QString& what)
{
    m_bannerRow = row;
    m_bannerReason = reason;
    m_bannerWhat = what.isEmpty() ? tr("this move") : what;
    m_bannerFull = tr("Refused %1: %2").arg(m_bannerWhat, reason);
    // One line, as wide as the view: it covers only the row below the refused target, and a narrow
    // listing elides it instead of cutting it off (the whole sentence is in the tooltip and status bar).
    const int width = std::max(viewport()->width() - 16, 200);
    m_banner->setFixedWidth(width);
    m_banner->setText(QFontMetrics(m_banner->font()).elidedText(m_bannerFull, Qt::ElideRight, width - 20));
    m_banner->setToolTip(m_bannerFull);
    m_banner->adjustSize();
    const QRect rowRect = visualRect(m_model->index(std::max(row, 0), ListingModel::InstructionColumn));
    int y = rowRect.bottom() + 3;
    if (y + m_banner->height() > viewport()->height())
        y = std::max(0, rowRect.top() - m_banner->height() - 3);
    m_banner->move(8, y);
    m_banner->show();
    m_banner->raise();
    m_bannerTimer->start();
    Q_EMIT statusMessage(m_bannerFull);
}

void ListingView::applyEdit(const Edit& edit, int row)
{
    // Named before it applies: the positions refer to the schedule as it is now.
    const QString what = describeEdit(*m_variants, edit);
    const EditOutcome outcome = m_controller->apply(edit);
    if (!outcome.accepted) {
        showRefusal(row, outcome.reason, what);
        return;
    }
    m_banner->hide();
    // Confirm every accepted edit (and replace the drag hint), with what was derived for it.
    Q_EMIT statusMessage(outcome.reason.isEmpty() ? tr("Done: %1").arg(what)
                                                  : tr("Done: %1, %2").arg(what, outcome.reason));
}

bool ListingView::moveCurrent(int delta)
{
    const int row = currentIndex().row();
    const std::optional<Position> position = m_model->positionOfRow(row);
    if (!position) return false;
    if (int64_t(position->value()) + delta < 0) return false;
    const Position target = *position + delta;
    if (target >= m_variants->schedule().order.endIndex()) return false;
    const int targetRow = m_model->rowOfPosition(target);
    if (const QString refusal = editRefusal(); !refusal.isEmpty()) {
        showRefusal(row, refusal);
        return false;
    }
    // Block boundary: applyEdits would refuse with a structural message; say it plainly instead.
    const ControlFlowGraph& cfg = m_variants->analysis()->cfg;
    if (blockAt(cfg, *position) != blockAt(cfg, target)) {
        showRefusal(row, tr("Instructions never leave their basic block (block starts stay fixed so every "
                            "branch stays valid)."));
        return false;
    }
    const Edit edit = Edit::move(*position, target);
    // Named before it applies: the positions refer to the schedule as it is now.
    const QString what = describeEdit(*m_variants, edit);
    const EditOutcome outcome = m_controller->apply(edit);
    if (!outcome.accepted) {
        showRefusal(targetRow, outcome.reason, what);
        return false;
    }
    m_banner->hide();
    Q_EMIT statusMessage(outcome.reason.isEmpty() ? tr("Done: %1").arg(what)
                                                  : tr("Done: %1, %2").arg(what, outcome.reason));
    return true;
}

// ---- drag and drop ------------------------------------------------------------------------------
// Not QDrag: a drop inside one view needs no MIME round trip, and plain mouse events keep the legal
// targets painted live and let tests drive the gesture with QTest.

void ListingView::mousePressEvent(QMouseEvent* event)
{
    m_banner->hide();
    m_pressRow = -1;
    if (event->button() == Qt::LeftButton && editRefusal().isEmpty()) {
        const int row = rowAt(event->pos().y());
        if (row >= 0 && m_model->index(row, 0).data(ListingModel::IsMemoryRole).toBool()) {
            m_pressRow = row;
            m_pressPos = event->pos();
        }
    }
    QTableView::mousePressEvent(event);
}

void ListingView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_pressRow >= 0 && !m_dragging &&
        (event->pos() - m_pressPos).manhattanLength() >= QApplication::startDragDistance()) {
        m_dragging = true;
        m_dragPosition = m_model->positionOfRow(m_pressRow);
        m_legalRows.clear();
        if (m_dragPosition)
            for (Position p : m_controller->legalTargets(*m_dragPosition))
                m_legalRows.insert(m_model->rowOfPosition(p));
        viewport()->setCursor(Qt::ClosedHandCursor);
        Q_EMIT statusMessage(
            m_legalRows.empty() && m_dragPosition
                ? m_controller->whyNoTarget(*m_dragPosition)
                : tr("Drop on a highlighted row: %n legal position(s)", nullptr, int(m_legalRows.size())));
    }
    if (m_dragging) {
        m_hoverRow = rowAt(event->pos().y());
        viewport()->update();
        return; // no rubber-band selection while dragging
    }
    QTableView::mouseMoveEvent(event);
}

void ListingView::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_dragging) {
        finishDrag(rowAt(event->pos().y()));
        return;
    }
    m_pressRow = -1;
    QTableView::mouseReleaseEvent(event);
}

void ListingView::finishDrag(int targetRow)
{
    const std::optional<Position> from = m_dragPosition;
    cancelDrag();
    const std::optional<Position> to = m_model->positionOfRow(targetRow);
    if (!from || !to || *to == *from) return;
    const ControlFlowGraph& cfg = m_variants->analysis()->cfg;
    if (blockAt(cfg, *from) != blockAt(cfg, *to)) {
        showRefusal(targetRow,
                    tr("Instructions never leave their basic block (block starts stay fixed so every "
                       "branch stays valid)."),
                    describeEdit(*m_variants, Edit::move(*from, *to)));
        return;
    }
    applyEdit(Edit::move(*from, *to), targetRow);
}

void ListingView::cancelDrag()
{
    m_dragging = false;
    m_pressRow = -1;
    m_dragPosition.reset();
    m_hoverRow = -1;
    m_legalRows.clear();
    viewport()->unsetCursor();
    viewport()->update();
}

void ListingView::paintEvent(QPaintEvent* event)
{
    QTableView::paintEvent(event);
    if (!m_dragging) return;
    QPainter p(viewport());
    const int first = std::max(0, rowAt(0));
    int last = rowAt(viewport()->height());
    if (last < 0) last = m_model->rowCount() - 1;
    const int sourceRow = m_dragPosition ? m_model->rowOfPosition(*m_dragPosition) : -1;
    for (int row = first; row <= last; ++row) {
        const int y = rowViewportPosition(row);
        const QRect band(0, y, viewport()->width(), rowHeight(row));
        if (m_legalRows.count(row)) p.fillRect(band, QColor(60, 180, 75, 60));
        if (row == sourceRow) p.fillRect(band, QColor(0, 0, 0, 40));
    }
    if (m_hoverRow >= 0 && m_hoverRow != sourceRow) {
        const bool legal = m_legalRows.count(m_hoverRow);
        const int y = rowViewportPosition(m_hoverRow);
        p.setPen(QPen(legal ? QColor(30, 140, 50) : QColor(200, 30, 30), 2));
        p.drawRect(QRect(1, y, viewport()->width() - 3, rowHeight(m_hoverRow) - 1));
    }
}

// ---- keyboard, context menu ---------------------------------------------------------------------

void ListingView::keyPressEvent(QKeyEvent* event)
{
    if (event->modifiers() == Qt::AltModifier &&
        (event->key() == Qt::Key_Up || event->key() == Qt::Key_Down)) {
        moveCurrent(event->key() == Qt::Key_Up ? -1 : +1);
        return;
    }
    if (event->modifiers() == Qt::AltModifier && event->key() == Qt::Key_Left) {
        goBack();
        return;
    }
    if (event->key() == Qt::Key_Escape && m_dragging) {
        cancelDrag();
        return;
    }
    QTableView::keyPressEvent(event);
}

void ListingView::mouseDoubleClickEvent(QMouseEvent* event)
{
    const int row = rowAt(event->pos().y());
    if (row >= 0 && m_model->index(row, 0).data(ListingModel::BranchTargetRole).isValid()) {
        selectRow(row);
        followBranch();
        return;
    }
    QTableView::mouseDoubleClickEvent(event);
}

void ListingView::contextMenuEvent(QContextMenuEvent* event)
{
    const int row = rowAt(event->pos().y());
    const std::optional<Position> position = m_model->positionOfRow(row);
    if (!position) return;
    // The row is under the pointer: select it where it is. Centring it (selectRow) scrolled the listing
    // by several rows, and the menu then opened beside another instruction.
    setCurrentIndex(m_model->index(row, ListingModel::InstructionColumn));
    QMenu menu(this);
    const QString refusal = editRefusal();
    if (refusal.isEmpty()) {
        addEditActions(menu, *position, row);
    } else {
        QAction* off = menu.addAction(tr("Edits Are Off (Hover for Why)"));
        off->setEnabled(false);
        off->setToolTip(refusal);
        off->setStatusTip(refusal);
        menu.setToolTipsVisible(true);
    }
    menu.addSeparator();
    QAction* up = menu.addAction(tr("Move Up"), this, [this] { moveCurrent(-1); });
    up->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    up->setEnabled(refusal.isEmpty());
    QAction* down = menu.addAction(tr("Move Down"), this, [this] { moveCurrent(+1); });
    down->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    down->setEnabled(refusal.isEmpty());
    menu.addSeparator();
    QAction* follow = menu.addAction(tr("Jump to Branch Target"), this, [this] { followBranch(); });
    follow->setEnabled(m_model->index(row, 0).data(ListingModel::BranchTargetRole).isValid());
    QAction* back = menu.addAction(tr("Back"), this, [this] { goBack(); });
    back->setEnabled(canGoBack());
    menu.exec(event->globalPos());
}

QString ListingView::editRefusal() const
{
    const auto kernel = m_variants->kernel();
    return kernel ? QString::fromStdString(kernel->editRefusal()) : QString();
}

} // namespace sassx
