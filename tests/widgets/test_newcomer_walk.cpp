// A newcomer's first session, scripted in a real xcb window under Xvfb, through the same dialogs, menus
// and mouse gestures a person uses: open a kernel (File ▸ Open), drag an instruction, flip a yield bit
// from the context menu, measure (estimate: CI has no GPU), search, click a point of the plot, look at
// the diff, export the tuned cubin, save the session, open another kernel, edit and save it, then reopen
// both session files and find everything they held; then a Triton kernel's source lines beside its SASS;
// then a layout messed up by re-docking, and View ▸ Reset Layout.
// Each step leaves a screenshot (<build>/tests/widgets/screenshots/walk-NN-*.png; docs/images/walk/
// holds copies, docs/user-guide.md shows them). Skips only where Xvfb is missing (./run.sh installs it).
#include "core/session/evaluator_options.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/diff_view.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/metrics_view.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/source_model.h"
#include "widgets/search_panel.h"
#include "widgets/search_plot.h"
#include "widgets/source_panel.h"
#include "widgets/variants_panel.h"
#include "xvfb_main.h"

#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <deque>
#include <functional>

using namespace sassx;

namespace {

// Answers the modal dialogs and popup menus the walk opens, in order: each handler gets the active
// modal widget (or popup) and returns true once it has dealt with it.
class DialogDriver
{
public:
    using Handler = std::function<bool(QWidget*)>;
    DialogDriver()
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            // Menus are popups; a file dialog's completer is one too, and is not what the walk answers.
            QWidget* w = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            if (!w) w = QApplication::activeModalWidget();
            if (!w || m_handlers.empty()) return;
            if (m_handlers.front()(w)) {
                m_handlers.pop_front();
                ++m_handled;
            }
        });
        m_timer.start(40);
    }
    void expect(Handler h) { m_handlers.push_back(std::move(h)); }
    bool idle() const { return m_handlers.empty(); }
    int handled() const { return m_handled; }

    // A file dialog (open or save): the path is chosen and accepted.
    static Handler chooseFile(const QString& path)
    {
        return [path](QWidget* w) {
            auto* d = qobject_cast<QFileDialog*>(w);
            if (!d) return false;
            // Typed into the file name box, as a person would: the directory may still be loading, and
            // selectFile() of a name not yet listed selects nothing.
            d->setDirectory(QFileInfo(path).absolutePath());
            auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            if (!name) return false;
            name->setText(QFileInfo(path).absoluteFilePath());
            // As the dialog's Open/Save button ends it, without waiting for its directory listing.
            qInfo("file dialog %s: %s", qPrintable(d->windowTitle()),
                  qPrintable(d->selectedFiles().join(QLatin1Char(','))));
            static_cast<QDialog*>(d)->done(QDialog::Accepted); // public in QDialog
            return true;
        };
    }
    // A popup menu: the action whose text starts with `text` is triggered.
    static Handler pickMenu(const QString& text, bool* found)
    {
        return [text, found](QWidget* w) {
            auto* menu = qobject_cast<QMenu*>(w);
            if (!menu) return false;
            for (QAction* a : menu->actions())
                if (a->text().remove(QLatin1Char('&')).startsWith(text) && a->isEnabled()) {
                    *found = true;
                    menu->close();
                    a->trigger();
                    return true;
                }
            menu->close();
            return true;
        };
    }

private:
    QTimer m_timer;
    std::deque<Handler> m_handlers;
    int m_handled = 0;
};

QAction* actionNamed(QWidget* window, const QString& text)
{
    for (QAction* a : window->findChildren<QAction*>())
        if (a->text().remove(QLatin1Char('&')) == text) return a;
    return nullptr;
}

// What a session held, to compare after reopening it.
struct Held
{
    QString input;
    std::vector<std::pair<std::string, size_t>> variants; // name, edit count
    std::vector<bool> measured;
    size_t searches = 0, searchHistory = 0;

    static Held of(const Session& s)
    {
        Held h;
        h.input = QFileInfo(s.inputPath()).canonicalFilePath();
        for (const auto& v : s.variantTree()->variants()) {
            h.variants.emplace_back(v.name, v.edits.size());
            h.measured.push_back(v.figures.has_value());
        }
        h.searches = s.searchRuns()->searches().size();
        for (const auto& r : s.searchRuns()->searches())
            h.searchHistory += r.history.size();
        return h;
    }
    bool operator==(const Held&) const = default;
    QString text() const
    {
        QStringList names;
        for (const auto& [n, e] : variants)
            names << QStringLiteral("%1(%2)").arg(QString::fromStdString(n)).arg(e);
        return QStringLiteral("%1: %2; %3 search(es), %4 evaluations")
            .arg(input, names.join(QLatin1Char(' ')))
            .arg(searches)
            .arg(searchHistory);
    }
};

} // namespace

class TestNewcomerWalk : public QObject
{
    Q_OBJECT
public:
    bool haveX = false;

private:
    QStringList m_shots;

    void shot(QWidget& w, const QString& name)
    {
        QTest::qWait(150); // let queued repaints land
        const QString dir = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
        QDir().mkpath(dir);
        const QString path = dir + QStringLiteral("/walk-") + name + QStringLiteral(".png");
        QVERIFY2(w.grab().save(path), qPrintable(path));
        m_shots << path;
    }

    // File ▸ Open… through the dialog; waits for the kernel's analysis.
    static bool openThroughDialog(MainWindow& w, DialogDriver& driver, const QString& path)
    {
        QSignalSpy ready(w.session(), &Session::analysisReady);
        driver.expect(DialogDriver::chooseFile(path));
        QAction* open = actionNamed(&w, QStringLiteral("Open…"));
        if (!open) return false;
        open->trigger();
        const bool ok = ready.wait(20000) || !ready.isEmpty();
        if (!ok)
            qInfo("open failed; modal: %s; input %s",
                  QApplication::activeModalWidget()
                      ? qPrintable(QApplication::activeModalWidget()->windowTitle())
                      : "none",
                  qPrintable(w.session()->inputPath()));
        return ok;
    }

    // Drags the first memory instruction that has a legal target onto the nearest one, with the mouse.
    static bool dragSomething(MainWindow& w)
    {
        Session& s = *w.session();
        ListingView* view = w.listingPanel()->view();
        ListingModel* model = view->listingModel();
        const auto& a = *s.variantTree()->analysis();
        for (Position p : s.variantTree()->schedule().positions()) {
            if (!a.listing.instructions[s.variantTree()->schedule().order[p].value()].isMemory()) continue;
            const auto targets = w.editController()->legalTargets(p);
            if (targets.empty()) continue;
            const Position to =
                *std::min_element(targets.begin(), targets.end(),
                                  [&](Position x, Position y) { return std::abs(x - p) < std::abs(y - p); });
            const int fromRow = model->rowOfPosition(p), toRow = model->rowOfPosition(to);
            view->scrollTo(model->index(fromRow, 0), QAbstractItemView::PositionAtCenter);
            QWidget* vp = view->viewport();
            const QPoint from =
                view->visualRect(model->index(fromRow, ListingModel::InstructionColumn)).center();
            const QPoint target =
                view->visualRect(model->index(toRow, ListingModel::InstructionColumn)).center();
            const size_t before = s.variantTree()->variants().size();
            QTest::mousePress(vp, Qt::LeftButton, {}, from);
            QTest::mouseMove(vp, from + QPoint(2, 0));
            QTest::mouseMove(vp, from + QPoint(QApplication::startDragDistance() + 2, 0));
            QTest::mouseMove(vp, target);
            QTest::mouseRelease(vp, Qt::LeftButton, {}, target);
            return s.variantTree()->variants().size() == before + 1;
        }
        return false;
    }

    // Right-click an instruction whose yield bit the checker lets flip; "Yield bit" from the menu.
    static bool flipYieldFromMenu(MainWindow& w, DialogDriver& driver)
    {
        Session& s = *w.session();
        ListingView* view = w.listingPanel()->view();
        ListingModel* model = view->listingModel();
        for (Position p : s.variantTree()->schedule().positions()) {
            const Control c = s.variantTree()->schedule().control[s.variantTree()->schedule().order[p]];
            // Clearing the bit of an instruction with reuse flags is a submenu of two edits: not this one.
            if (c.yield && (c.reuse & 7)) continue;
            const Edit e = Edit::control(p, std::nullopt, uint8_t(c.yield ? 0 : 1), std::nullopt);
            if (!w.editController()->check(e).accepted) continue;
            const int row = model->rowOfPosition(p);
            view->scrollTo(model->index(row, 0), QAbstractItemView::PositionAtCenter);
            const QPoint at = view->visualRect(model->index(row, ListingModel::InstructionColumn)).center();
            const size_t edits = s.variantTree()->currentVariant()->edits.size();
            bool found = false;
            driver.expect(DialogDriver::pickMenu(QStringLiteral("Yield bit"), &found));
            QContextMenuEvent event(QContextMenuEvent::Mouse, at, view->viewport()->mapToGlobal(at));
            QCoreApplication::sendEvent(view->viewport(), &event);
            return found && s.variantTree()->currentVariant()->edits.size() > edits;
        }
        return false;
    }

    static bool saveThroughDialog(MainWindow& w, DialogDriver& driver, const QString& path)
    {
        driver.expect(DialogDriver::chooseFile(path));
        QAction* save = actionNamed(&w, QStringLiteral("Save Session"));
        if (!save) return false;
        save->trigger();
        return QFileInfo::exists(path) && !w.session()->store()->isModified();
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!haveX) QSKIP("Xvfb not available: no real X window for the walk");
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("sassx-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("sassx-walk"));
        QSettings().clear();
    }

    void firstSession()
    {
        const QString first = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        const QString second = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(first);
        SASSX_REQUIRE_SAMPLE(second);
        QTemporaryDir tmp;
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        EvaluatorOptions estimate;
        estimate.backend =
            sassx::eval::Backend::Estimate; // what a machine without a GPU gets, said so on every figure
        session->setEvaluatorOptions(estimate);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        DialogDriver driver;

        // 1. Open, through File ▸ Open's dialog.
        QVERIFY(openThroughDialog(w, driver, first));
        QCOMPARE(QFileInfo(session->inputPath()).canonicalFilePath(), QFileInfo(first).canonicalFilePath());
        shot(w, QStringLiteral("01-open"));

        // 2. Drag a load to the nearest place the checker allows: a new variant holds the move.
        QVERIFY(dragSomething(w));
        shot(w, QStringLiteral("02-drag"));

        // 3. A control edit from the context menu.
        QVERIFY(flipYieldFromMenu(w, driver));
        shot(w, QStringLiteral("03-control-edit"));
        const int edited = session->variantTree()->currentVariantId();

        // 4. Measure it (Variants ▸ Measure): the figures say "estimate", the metrics view says why
        // there are no hardware counters.
        w.variantsPanel()->selectVariants({edited});
        QSignalSpy measured(session->measureQueue(), &MeasureQueue::measureFinished);
        QToolButton* measure = nullptr;
        for (auto* b : w.variantsPanel()->findChildren<QToolButton*>())
            if (b->text() == QLatin1String("Measure")) measure = b;
        QVERIFY(measure && measure->isEnabled());
        measure->click();
        QVERIFY(measured.wait(60000) || !measured.isEmpty());
        QVERIFY(session->variantTree()->variant(edited)->figures.has_value());
        QVERIFY(w.metricsView()->note()->text().contains(QStringLiteral("need a GPU")));
        shot(w, QStringLiteral("04-measure"));

        // 5. A search from the Search dock.
        w.showSearch();
        SearchPanel* panel = w.searchPanel();
        search::SearchConfig c;
        c.algorithm = search::Algorithm::Climb;
        c.space = search::SearchSpace::All;
        c.budgetEvals = 300;
        c.seed = 1;
        panel->setConfig(c);
        panel->setBackend(QStringLiteral("estimate"));
        QSignalSpy recorded(session->searchRuns(), &SearchRuns::searchRecorded);
        panel->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!recorded.isEmpty(), 180000);
        QCOMPARE(session->searchRuns()->searches().size(), size_t(1));
        shot(w, QStringLiteral("05-search"));

        // 6. Click an accepted point of the plot: it opens as a variant.
        int step = -1;
        for (const auto& e : session->searchRuns()->searches().front().history)
            if (e.outcome == search::Outcome::Accepted && e.figures.speedup > 0) step = e.step;
        QVERIFY2(step >= 0, "the climb accepted something on the estimate");
        panel->plot()->flush();
        QSignalSpy opened(panel, &SearchPanel::evaluationOpened);
        QTest::mouseClick(panel->plot(), Qt::LeftButton, {}, panel->plot()->pixelOf(step).toPoint());
        QTRY_COMPARE(opened.size(), 1);
        QCOMPARE(session->variantTree()->currentVariantId(), opened.front().front().toInt());
        shot(w, QStringLiteral("06-plot-click"));

        // 7. The diff of that variant against the original.
        auto* diffDock = w.findChild<QDockWidget*>(QStringLiteral("diffDock"));
        QVERIFY(diffDock);
        diffDock->show();
        diffDock->raise();
        QTRY_COMPARE(w.diffView()->rightVariant(), session->variantTree()->currentVariantId());
        QVERIFY(w.diffView()->movedCount() + w.diffView()->controlChangedCount() > 0);
        shot(w, QStringLiteral("07-diff"));

        // 8. Export the tuned cubin (File ▸ Export ▸ Tuned Cubin…).
        const QString exported = tmp.filePath(QStringLiteral("sgemm.tuned.cubin"));
        driver.expect(DialogDriver::chooseFile(exported));
        QAction* exportCubin = actionNamed(&w, QStringLiteral("Tuned Cubin…"));
        QVERIFY(exportCubin);
        exportCubin->trigger();
        QTRY_VERIFY(QFileInfo(exported).size() > 0);
        QFile original(first), tuned(exported);
        QVERIFY(original.open(QIODevice::ReadOnly) && tuned.open(QIODevice::ReadOnly));
        const QByteArray tunedBytes = tuned.readAll();
        QVERIFY(tunedBytes.startsWith("\x7f"
                                      "ELF"));
        QVERIFY(tunedBytes != original.readAll());
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("Wrote")));
        shot(w, QStringLiteral("08-export"));

        // 8b. Import that cubin back (Variant ▸ Import Cubin as Variant…), as another tool's cubin of
        // the kernel would come: a variant that writes the exported bytes, every difference checked legal.
        const int exportedFrom = session->variantTree()->currentVariantId();
        driver.expect(DialogDriver::chooseFile(exported));
        QAction* importCubin = actionNamed(&w, QStringLiteral("Import Cubin as Variant…"));
        QVERIFY(importCubin);
        importCubin->trigger();
        QTRY_VERIFY(session->variantTree()->currentVariantId() != exportedFrom);
        const VariantRecord* imported = session->variantTree()->currentVariant();
        QVERIFY(imported->imported && imported->imported->checkedLegal());
        const auto rewritten = session->variantTree()->kernel()->write(session->variantTree()->schedule());
        QVERIFY(rewritten);
        QVERIFY(QByteArray(reinterpret_cast<const char*>(rewritten->data()), qsizetype(rewritten->size())) ==
                tunedBytes);
        shot(w, QStringLiteral("08b-import"));

        // 9. Save the session (File ▸ Save Session asks where, the first time).
        const QString sessionA = tmp.filePath(QStringLiteral("sgemm.sassx.json"));
        QVERIFY(saveThroughDialog(w, driver, sessionA));
        const Held heldA = Held::of(*session);
        // The original, the edited variant (the drag made it, the yield flip joined it) and the
        // search's point; the edited variant holds the move and the flip, measured.
        QVERIFY2(heldA.variants.size() >= 3, qPrintable(heldA.text()));
        QVERIFY(session->variantTree()->variant(edited)->edits.size() >= 2);
        QVERIFY(session->variantTree()->variant(edited)->figures.has_value());
        shot(w, QStringLiteral("09-save"));

        // 10. Another kernel: nothing unsaved, so no question; it starts afresh.
        QVERIFY(openThroughDialog(w, driver, second));
        QCOMPARE(session->variantTree()->variants().size(), size_t(1));
        QVERIFY(session->store()->sessionPath().isEmpty());
        QVERIFY(session->searchRuns()->searches().empty());
        shot(w, QStringLiteral("10-another-kernel"));

        // 11. An edit there, saved to its own file.
        QVERIFY(flipYieldFromMenu(w, driver) || dragSomething(w));
        const QString sessionB = tmp.filePath(QStringLiteral("rmsnorm.sassx.json"));
        QVERIFY(saveThroughDialog(w, driver, sessionB));
        const Held heldB = Held::of(*session);
        shot(w, QStringLiteral("11-save-another"));

        // 12. Both sessions reopen (File ▸ Open Session…) with everything they held; the first file was
        // not overwritten by the second kernel's session.
        for (const auto& [path, held] : {std::pair{sessionA, heldA}, std::pair{sessionB, heldB}}) {
            QSignalSpy ready(session, &Session::analysisReady);
            driver.expect(DialogDriver::chooseFile(path));
            QAction* openSession = actionNamed(&w, QStringLiteral("Open Session…"));
            QVERIFY(openSession);
            openSession->trigger();
            QVERIFY(ready.wait(120000) || !ready.isEmpty());
            QTRY_COMPARE(session->store()->sessionPath(), path);
            const Held back = Held::of(*session);
            QVERIFY2(back == held, qPrintable(back.text() + QStringLiteral(" vs ") + held.text()));
        }
        shot(w, QStringLiteral("12-reopened"));
        QVERIFY(driver.idle());
        qInfo("%d dialogs and menus answered; screenshots: %s", driver.handled(),
              qPrintable(m_shots.join(QLatin1Char(' '))));
    }

    // 13. A Triton kernel's source beside its SASS: open it, click the Source dock's tab, click a line of
    // attention.py; its instructions light up in the listing and the first of them is selected.
    void sourceView()
    {
        const QString triton =
            QStringLiteral(SASSX_SOURCE_DIR "/samples/triton/captured/attention_fwd.sm_90.cubin");
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        DialogDriver driver;
        QVERIFY(openThroughDialog(w, driver, triton));
        QTabBar* tabs = nullptr;
        int tab = -1;
        for (QTabBar* bar : w.findChildren<QTabBar*>())
            for (int i = 0; i < bar->count(); ++i)
                if (bar->tabText(i) == QLatin1String("Source")) tabs = bar, tab = i;
        QVERIFY2(tabs, "the Source dock is a tab beside Metrics and Stalls");
        QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(tab).center());
        auto* panel = w.findChild<SourcePanel*>();
        QVERIFY(panel);
        QTRY_VERIFY(panel->isVisible());
        QTableView* table = panel->table();
        QModelIndex line31;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            if (table->model()->index(r, SourceModel::LineColumn).data().toString() ==
                QLatin1String("attention.py:31"))
                line31 = table->model()->index(r, SourceModel::LineColumn);
        QVERIFY(line31.isValid());
        table->scrollTo(line31);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(line31).center());
        const int chosen = panel->currentLine();
        QVERIFY(chosen >= 0);
        const auto& instructions = panel->model()->lines().lines[size_t(chosen)].instructions;
        QCOMPARE(panel->model()->index(chosen, SourceModel::LineColumn).data().toString(),
                 QStringLiteral("attention.py:31"));
        const int selected = session->variantTree()->selectedInstruction();
        QVERIFY(std::binary_search(instructions.begin(), instructions.end(), InstrId(uint32_t(selected))));
        ListingModel* listing = w.listingPanel()->view()->listingModel();
        for (InstrId i : instructions)
            QVERIFY(listing->isHighlighted(i));
        QCOMPARE(
            listing->index(listing->rowOfOriginal(InstrId(uint32_t(selected))), ListingModel::SourceColumn)
                .data()
                .toString(),
            QStringLiteral("attention.py:31"));
        shot(w, QStringLiteral("13-source"));
    }

    // 14. Four variants compared, Metrics floated and docked again (a double-click on its title bar),
    // Variants moved to the left: the listing keeps its width, and View ▸ Reset Layout puts every dock
    // back where a fresh window has it.
    void resetLayoutAfterRedock()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QSettings().clear();
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        DialogDriver driver;
        QVERIFY(openThroughDialog(w, driver, cubin));
        QTest::qWait(200);
        ListingPanel* listing = w.listingPanel();
        auto* metrics = w.findChild<QDockWidget*>(QStringLiteral("metricsDock"));
        auto* variants = w.findChild<QDockWidget*>(QStringLiteral("variantsDock"));
        const int freshListing = listing->width();
        const int freshMetrics = metrics->width();

        std::vector<int> ids{0};
        for (int i = 0; i < 3; ++i)
            ids.push_back(session->variantTree()->addVariant(0, QStringLiteral("v%1").arg(i + 1), {}));
        w.variantsPanel()->selectVariants(ids);
        QToolButton* compare = nullptr;
        for (auto* b : w.variantsPanel()->findChildren<QToolButton*>())
            if (b->text() == QLatin1String("Compare")) compare = b;
        QVERIFY(compare && compare->isEnabled());
        compare->click();
        metrics->setFloating(true);
        QTest::qWait(300);
        metrics->setFloating(false);
        QTest::qWait(300);
        QCOMPARE(listing->width(), freshListing);
        shot(w, QStringLiteral("14-redocked"));

        w.addDockWidget(Qt::LeftDockWidgetArea, variants);
        metrics->setFloating(true);
        QTest::qWait(300);
        QVERIFY(listing->view()->width() >= listing->view()->usableMinimumWidth());
        QAction* reset = actionNamed(&w, QStringLiteral("Reset Layout"));
        QVERIFY(reset);
        reset->trigger();
        QTest::qWait(300);
        QVERIFY(!metrics->isFloating());
        QCOMPARE(w.dockWidgetArea(variants), Qt::RightDockWidgetArea);
        QCOMPARE(w.dockWidgetArea(metrics), Qt::RightDockWidgetArea);
        QCOMPARE(listing->width(), freshListing);
        QCOMPARE(metrics->width(), freshMetrics);
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("reset")));
        shot(w, QStringLiteral("14-reset-layout"));
    }
};

int main(int argc, char** argv)
{
    return sassx::test::runOnXvfb<TestNewcomerWalk>(argc, argv);
}

#include "test_newcomer_walk.moc"
