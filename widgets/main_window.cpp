#include "widgets/main_window.h"

#include "widgets/export_actions.h"

#include "core/session/input_loader.h"
#include "core/session/session.h"
#include "core/session/variant_record.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/diff_view.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/metrics_view.h"
#include "widgets/models/metrics_model.h"
#include "widgets/models/variants_model.h"
#include "widgets/search_panel.h"
#include "widgets/source_panel.h"
#include "widgets/stalls_panel.h"
#include "widgets/tune_dashboard_data.h"
#include "widgets/variants_panel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

namespace sassx {

namespace {

// The size the layout defaults are chosen for (docs/user-guide.md's screenshots use it too).
constexpr QSize kDefaultSize(1400, 850);

} // namespace

MainWindow::MainWindow(Session* session, QWidget* parent)
    : QMainWindow(parent), m_session(session ? session : new Session(this)), m_undoStack(new QUndoStack(this))
{
    setObjectName(QStringLiteral("sassxMainWindow"));
    m_controller = new EditController(m_session->variantTree(), m_undoStack, this);
    m_listing = new ListingPanel(m_session->variantTree(), m_session->searchRuns(), m_controller, this);
    setCentralWidget(m_listing);

    m_variants = new VariantsPanel(m_session->variantTree(), m_session->measureQueue(), m_undoStack, this);
    auto* variantsDock = new QDockWidget(tr("Variants"), this);
    variantsDock->setObjectName(QStringLiteral("variantsDock"));
    variantsDock->setWidget(dockContent(m_variants));
    addDockWidget(Qt::RightDockWidgetArea, variantsDock);

    m_metrics = new MetricsView(m_session->variantTree(), this);
    auto* metricsDock = new QDockWidget(tr("Metrics"), this);
    metricsDock->setObjectName(QStringLiteral("metricsDock"));
    metricsDock->setWidget(dockContent(m_metrics));
    addDockWidget(Qt::RightDockWidgetArea, metricsDock);

    m_stalls = new StallsPanel(m_session->variantTree(), m_session->measureQueue(), this);
    auto* stallsDock = new QDockWidget(tr("Stalls"), this);
    stallsDock->setObjectName(QStringLiteral("stallsDock"));
    stallsDock->setWidget(dockContent(m_stalls));
    addDockWidget(Qt::RightDockWidgetArea, stallsDock);
    // Beside Metrics as a tab: both describe the current variant's measurement.
    tabifyDockWidget(metricsDock, stallsDock);
    // Source lines (from the line tables) as a third tab: with Stalls, where the kernel's time goes.
    auto* sourceDock = new QDockWidget(tr("Source"), this);
    sourceDock->setObjectName(QStringLiteral("sourceDock"));
    auto* sourcePanel = new SourcePanel(m_session->variantTree(), m_listing->view(), sourceDock);
    sourceDock->setWidget(dockContent(sourcePanel));
    // The folders the user points to for missing source files are the session's (saved with it).
    sourcePanel->setSourceFolders(m_session->sourceFolders());
    connect(sourcePanel, &SourcePanel::sourceFoldersChosen, m_session, &Session::setSourceFolders);
    connect(m_session, &Session::sourceFoldersChanged, sourcePanel,
            [this, sourcePanel] { sourcePanel->setSourceFolders(m_session->sourceFolders()); });
    addDockWidget(Qt::RightDockWidgetArea, sourceDock);
    tabifyDockWidget(stallsDock, sourceDock);
    metricsDock->raise();
    connect(m_session->measureQueue(), &MeasureQueue::stallsFinished, this, [this, stallsDock](int id) {
        stallsDock->show();
        stallsDock->raise();
        const VariantRecord* v = m_session->variantTree()->variant(id);
        statusBar()->showMessage(tr("Stall samples of %1 arrived: the Samples column shows them")
                                     .arg(v ? QString::fromStdString(v->name) : QString()),
                                 10000);
    });
    connect(m_session->measureQueue(), &MeasureQueue::stallsFailed, this, [this](int, const QString& why) {
        statusBar()->showMessage(tr("Stall sampling failed: %1").arg(why), 15000);
    });

    m_diff = new DiffView(m_session->variantTree(), this);
    auto* diffDock = new QDockWidget(tr("Diff"), this);
    diffDock->setObjectName(QStringLiteral("diffDock"));
    auto* diffBox = new QWidget(diffDock);
    auto* diffLayout = new QVBoxLayout(diffBox);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    // Summary (kept current by the view: it follows edits) and change navigation.
    auto* diffBar = new QHBoxLayout;
    auto* diffSummary = new QLabel(diffBox);
    diffSummary->setObjectName(QStringLiteral("diffSummary"));
    diffSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    diffSummary->setWordWrap(true); // unwrapped, a long summary would widen the dock and the window
    auto* previousChange = new QToolButton(diffBox);
    previousChange->setObjectName(QStringLiteral("diffPrevious"));
    previousChange->setText(tr("◀ Previous change"));
    previousChange->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7));
    auto* nextChange = new QToolButton(diffBox);
    nextChange->setObjectName(QStringLiteral("diffNext"));
    nextChange->setText(tr("Next change ▶"));
    nextChange->setShortcut(QKeySequence(Qt::Key_F7));
    auto* changePosition = new QLabel(diffBox);
    diffBar->addWidget(diffSummary, 1);
    diffBar->addWidget(changePosition);
    diffBar->addWidget(previousChange);
    diffBar->addWidget(nextChange);
    diffLayout->addLayout(diffBar);
    diffLayout->addWidget(m_diff, 1);
    diffDock->setWidget(dockContent(diffBox));
    addDockWidget(Qt::BottomDockWidgetArea, diffDock);
    diffDock->hide();
    connect(m_diff, &DiffView::summaryChanged, diffSummary, &QLabel::setText);
    connect(m_diff, &DiffView::summaryChanged, this, [this, changePosition, previousChange, nextChange] {
        const int n = int(m_diff->changeRows().size());
        changePosition->setText(n ? tr("%n change(s)", nullptr, n) : QString());
        previousChange->setEnabled(n > 0);
        nextChange->setEnabled(n > 0);
    });
    connect(m_diff, &DiffView::changeShown, changePosition, [changePosition](int index, int count) {
        changePosition->setText(tr("%1 of %2").arg(index + 1).arg(count));
    });
    connect(previousChange, &QToolButton::clicked, m_diff, [this] {
        if (!m_diff->previousChange()) statusBar()->showMessage(tr("No change above"), 3000);
    });
    connect(nextChange, &QToolButton::clicked, m_diff, [this] {
        if (!m_diff->nextChange()) statusBar()->showMessage(tr("No change below"), 3000);
    });
    connect(m_variants, &VariantsPanel::diffRequested, this, [this, diffDock](int l, int r) {
        showDiff(l, r);
        diffDock->show();
        diffDock->raise();
    });
    // The Search dock (hidden until asked for: Variant ▸ Search…). A point clicked in its plot becomes
    // the current variant, and the diff shows it against the original.
    m_search = new SearchPanel(m_session->variantTree(), m_session->searchRuns(), this);
    auto* searchDock = new QDockWidget(tr("Search"), this);
    searchDock->setObjectName(QStringLiteral("searchDock"));
    searchDock->setWidget(dockContent(m_search));
    addDockWidget(Qt::BottomDockWidgetArea, searchDock);
    // Diff and Search share the bottom as tabs: side by side neither fits the default window (a diff
    // needs two listings' width), and a clicked search point should not hide the plot.
    tabifyDockWidget(diffDock, searchDock);
    searchDock->hide();
    connect(m_search, &SearchPanel::evaluationOpened, this, [this, diffDock](int id) {
        showDiff(0, id);
        diffDock->show();
    });
    connect(m_session->searchRuns(), &SearchRuns::searchRecorded, this, [this](int index, int) {
        const auto& r = m_session->searchRuns()->searches()[size_t(index)];
        statusBar()->showMessage(
            tr("Search finished: %1").arg(QString::fromStdString(r.report.value("summary", std::string()))),
            15000);
    });
    connect(m_variants, &VariantsPanel::compareRequested, this,
            [this, metricsDock](const std::vector<int>& ids) {
                m_metrics->setVariants(ids);
                metricsDock->show();
                metricsDock->raise();
            });

    m_busyLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_busyLabel);
    connect(m_listing->view(), &ListingView::statusMessage, this,
            [this](const QString& m) { statusBar()->showMessage(m, 10000); });
    connect(m_session, &Session::busyChanged, this,
            [this](bool busy) { m_busyLabel->setText(busy ? tr("Loading and analysing…") : QString()); });
    connect(m_session, &Session::loadFailed, this, [this](const QString& m) {
        if (!m_pendingRecent.isEmpty()) removeRecent(m_pendingRecent);
        m_pendingRecent.clear();
        warnWithDetails(tr("Cannot open"), m);
    });
    connect(m_session, &Session::analysisFailed, this, [this](const QString& m) {
        m_pendingRecent.clear();
        warnWithDetails(tr("Cannot analyse"), m);
    });
    connect(m_session->store(), &SessionStore::sessionRestoreFailed, this,
            [this](const QString& m) { QMessageBox::warning(this, tr("Session"), m); });
    // Nothing changes until a kernel of the new input is analysed: a cancelled picker leaves the
    // session, its title and its recent files as they were.
    connect(m_session, &Session::kernelChoiceNeeded, this, &MainWindow::pickKernel);
    // Unsaved changes are asked about only when the new input has been read and its kernel analysed: a
    // file that cannot be opened asks nothing.
    m_session->setReplaceCheck([this] { return replaceSession(); });
    connect(m_session, &Session::analysisReady, this, [this] {
        if (!m_pendingRecent.isEmpty()) addRecent(m_pendingRecent);
        m_pendingRecent.clear();
        m_undoStack->clear();
        m_metrics->setVariants({0});
        updateTitle();
        statusBar()->showMessage(tr("%1: %n instruction(s)", nullptr,
                                    int(m_session->variantTree()->analysis()->listing.instructions.size()))
                                     .arg(m_session->kernelName()),
                                 10000);
    });
    connect(m_session->measureQueue(), &MeasureQueue::measureFailed, this, [this](int id, const QString& m) {
        const VariantRecord* v = m_session->variantTree()->variant(id);
        statusBar()->showMessage(
            tr("Measuring %1 failed: %2").arg(v ? QString::fromStdString(v->name) : QString(), m));
    });
    connect(m_session->measureQueue(), &MeasureQueue::measureFinished, this, [this](int id) {
        // "Measuring with …" must not outlive the measurement.
        const VariantRecord* v = m_session->variantTree()->variant(id);
        const QString name = v ? QString::fromStdString(v->name) : QString();
        // An imported schedule the checker refuses is measured as asked, never silently.
        const QString unchecked = VariantsModel::uncheckedNote(v);
        if (v && v->figures && v->figures->result.source.isEstimate()) {
            const auto speedup = v->figures->speedup();
            const QString figure =
                speedup ? QStringLiteral(": ") + QString::fromStdString(speedup->text()) : QString();
            const QString what = unchecked.isEmpty()
                                     ? tr("static estimate, not a measurement")
                                     : tr("static estimate, not a measurement; %1").arg(unchecked);
            statusBar()->showMessage(tr("Estimated %1%2 (%3)").arg(name, figure, what), 10000);
        } else {
            statusBar()->showMessage(unchecked.isEmpty() ? tr("Measured %1").arg(name)
                                                         : tr("Measured %1 (%2)").arg(name, unchecked),
                                     10000);
        }
        std::vector<int> ids = m_metrics->model()->variants();
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
        m_metrics->setVariants(ids);
    });
    connect(m_session->variantTree(), &VariantTree::currentVariantChanged, this, &MainWindow::updateTitle);
    // Undo and redo end what the last message said ("Done: move …"): it no longer describes the listing.
    connect(m_undoStack, &QUndoStack::indexChanged, statusBar(), &QStatusBar::clearMessage);
    connect(m_session->store(), &SessionStore::modifiedChanged, this, &MainWindow::updateTitle);

    // The session's workspace picks the evaluator ("auto": the GPU pool when a worker finds a usable
    // GPU, else the labelled estimate) and says which; the status bar repeats it once.
    connect(m_session->measureQueue(), &MeasureQueue::evaluatorChosen, this,
            [this](const QString& backend, const QString& reason) {
                statusBar()->showMessage(tr("Measuring with the %1 backend (%2)").arg(backend, reason),
                                         15000);
            });

    createTuneDock();
    createActions();
    resize(kDefaultSize);
    m_defaultState = saveState();
    applyDefaultLayout();
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    m_layoutRestored = restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    const QByteArray splitter = settings.value(QStringLiteral("window/listingSplitter")).toByteArray();
    if (!splitter.isEmpty()) m_listing->splitter()->restoreState(splitter);
    // The diff opens on request (Variants ▸ Diff, a search point): a restored layout would otherwise show
    // an original-vs-original diff on every start.
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("diffDock"))) dock->hide();
    updateTitle();
}

QWidget* MainWindow::dockContent(QWidget* content)
{
    // QMainWindow draws a dock over its neighbour when the docks' least sizes do not fit the window (the
    // Metrics table over the Diff dock's header at 1024x700): in a scroll area a dock's least size is a
    // few pixels, and a dock too small for its panel scrolls instead.
    auto* area = new QScrollArea;
    area->setObjectName(content->objectName().isEmpty() ? QStringLiteral("dockScroll")
                                                        : content->objectName() + QStringLiteral("Scroll"));
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(content);
    return area;
}

MainWindow::~MainWindow()
{
    // The session may outlive the window (it is not always the window's child).
    m_session->setReplaceCheck({});
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setToolTipsVisible(true);
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addAction(tr("Open &Session…"), this, &MainWindow::openSessionDialog);
    file->addAction(tr("&Save Session"), QKeySequence::Save, this, [this] { saveSession(false); });
    file->addAction(tr("Save Session &As…"), QKeySequence::SaveAs, this, [this] { saveSession(true); });
    file->addSeparator();
    file->addAction(tr("Set &Launch Spec…"), this, &MainWindow::setLaunchSpecDialog);
    file->addAction(tr("&Import Stall Samples…"), this, &MainWindow::importStallsDialog)
        ->setToolTip(tr("Attach samples taken elsewhere (sassx-cli stalls --json) to the current variant"));
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    exportMenu->setToolTipsVisible(true);
    auto* exports = new ExportActions(m_session, m_session->variantTree(), this);
    exports->populate(exportMenu);
    connect(exports, &ExportActions::done, this,
            [this](const QString& m) { statusBar()->showMessage(m, 15000); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_undoStack->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_undoStack->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction* derive = edit->addAction(tr("&Derive Control Codes for Moves"));
    derive->setCheckable(true);
    derive->setChecked(m_controller->deriveControlCodes());
    derive->setToolTip(tr("A move the checker refuses only for its distances goes in with stall counts "
                          "derived for the new order (docs/legality.md, \"Rescheduling\")"));
    connect(derive, &QAction::toggled, m_controller, &EditController::setDeriveControlCodes);
    edit->addSeparator();
    edit->addAction(tr("Move Instruction &Up"), QKeySequence(Qt::ALT | Qt::Key_Up), this,
                    [this] { m_listing->view()->moveCurrent(-1); });
    edit->addAction(tr("Move Instruction &Down"), QKeySequence(Qt::ALT | Qt::Key_Down), this,
                    [this] { m_listing->view()->moveCurrent(+1); });

    QMenu* go = menuBar()->addMenu(tr("&Go"));
    go->addAction(tr("&Find…"), QKeySequence::Find, m_listing, &ListingPanel::showFind);
    go->addAction(tr("Go to &Address…"), QKeySequence(Qt::CTRL | Qt::Key_G), this,
                  &MainWindow::goToAddressDialog);
    go->addAction(tr("&Jump to Branch Target"), QKeySequence(Qt::CTRL | Qt::Key_J), this,
                  [this] { m_listing->view()->followBranch(); });
    go->addAction(tr("&Back"), QKeySequence(Qt::ALT | Qt::Key_Left), this,
                  [this] { m_listing->view()->goBack(); });

    QMenu* variant = menuBar()->addMenu(tr("&Variant"));
    variant->addAction(m_variants->measureAction());
    QAction* cancelMeasure =
        variant->addAction(tr("&Cancel Measuring"), QKeySequence(Qt::CTRL | Qt::Key_Period),
                           m_session->measureQueue(), &MeasureQueue::cancelMeasure);
    cancelMeasure->setEnabled(false);
    auto syncCancel = [this, cancelMeasure] {
        cancelMeasure->setEnabled(m_session->measureQueue()->isMeasuring());
    };
    connect(m_session->measureQueue(), &MeasureQueue::measureStarted, this, syncCancel);
    connect(m_session->measureQueue(), &MeasureQueue::measureFinished, this, syncCancel);
    connect(m_session->measureQueue(), &MeasureQueue::measureFailed, this, syncCancel);
    variant->addAction(tr("&Search…"), this, &MainWindow::showSearch)
        ->setToolTip(
            tr("Search the current kernel's schedules (annealing, greedy, random, list scheduling)"));
    variant
        ->addAction(
            tr("Sample S&talls"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this,
            [this] { m_session->measureQueue()->sampleStalls(m_session->variantTree()->currentVariantId()); })
        ->setToolTip(
            tr("Where the current variant's warps wait, per instruction: one launch sampled on the GPU"));
    variant->addAction(tr("&Rename"), QKeySequence(Qt::Key_F2), m_variants, &VariantsPanel::renameSelected);
    variant->addAction(tr("&Delete"), m_variants, &VariantsPanel::deleteSelected);
    variant->addSeparator();
    variant->addAction(tr("&Import Cubin as Variant…"), m_variants, &VariantsPanel::importCubinDialog)
        ->setToolTip(
            tr("Another cubin of this kernel (another tool's, an earlier export, a search's best) as "
               "a variant, with the checker's verdict on each of its differences"));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout)
        ->setToolTip(tr("Docks, panel widths and listing columns back to their defaults"));
}

void MainWindow::applyDefaultLayout()
{
    // Variants above Metrics on the right, a third of the window wide: wide enough for every variants
    // column; the listing keeps the rest, enough for every listing column (the instruction column
    // stretches). The gutter starts narrow; its splitter handle widens it.
    auto* variantsDock = findChild<QDockWidget*>(QStringLiteral("variantsDock"));
    auto* metricsDock = findChild<QDockWidget*>(QStringLiteral("metricsDock"));
    // Below 1200 px the side is narrower: the listing keeps its control columns in view.
    const int side =
        width() < 1200 ? std::max(280, width() * 30 / 100) : std::clamp(width() * 34 / 100, 380, 620);
    resizeDocks({variantsDock}, {side}, Qt::Horizontal);
    resizeDocks({variantsDock, metricsDock}, {height() * 45 / 100, height() * 55 / 100}, Qt::Vertical);
    const int gutter = width() < 1200 ? 110 : 130;
    m_listing->splitter()->setSizes({gutter, std::max(400, width() - side - gutter)});
    m_variants->resetColumns();
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState);
    if (!isMaximized() && !isFullScreen()) resize(kDefaultSize);
    applyDefaultLayout();
    m_listing->view()->resetColumns();
    QSettings settings;
    for (const char* key : {"window/state", "window/geometry", "window/listingSplitter"})
        settings.remove(QLatin1String(key));
    m_listing->view()->saveHeaderState();
    statusBar()->showMessage(tr("Layout reset to the defaults"), 5000);
}

void MainWindow::goToAddressDialog()
{
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Go to Address"), tr("Byte address (hex):"),
                                               QLineEdit::Normal, QString(), &ok);
    if (!ok || text.isEmpty()) return;
    QString t = text.trimmed();
    if (t.startsWith(QLatin1String("0x"), Qt::CaseInsensitive)) t = t.mid(2);
    const qulonglong offset = t.toULongLong(&ok, 16);
    if (!ok || !m_listing->view()->goToAddress(offset))
        statusBar()->showMessage(tr("No instruction at %1").arg(text), 5000);
}

void MainWindow::updateTitle()
{
    QString title = QStringLiteral("sassx");
    if (!m_session->inputPath().isEmpty()) {
        title = QFileInfo(m_session->inputPath()).fileName();
        if (!m_session->kernelName().isEmpty()) title += QStringLiteral(" — ") + m_session->kernelName();
        if (const VariantRecord* v = m_session->variantTree()->currentVariant())
            title += QStringLiteral(" [%1]").arg(QString::fromStdString(v->name));
        title += QStringLiteral("[*] — sassx");
    }
    setWindowTitle(title);
    setWindowModified(m_session->store()->isModified());
}

void MainWindow::showSearch()
{
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("searchDock"))) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::showDiff(int left, int right)
{
    m_diff->setVariants(left, right);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // The defaults are for the size the window is shown at (a small screen's, or one a caller set), not
    // the size it was made with; a layout the user left is kept.
    if (!m_shownOnce && !m_layoutRestored) applyDefaultLayout();
    m_shownOnce = true;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/listingSplitter"), m_listing->splitter()->saveState());
    m_listing->view()->saveHeaderState();
    if (!maybeSaveChanges()) {
        event->ignore();
        return;
    }
    // Saved, unchanged, or discarded: the autosave of a discarded session goes with the window.
    m_session->store()->forgetFile();
    event->accept();
}

} // namespace sassx
