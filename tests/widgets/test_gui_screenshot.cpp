// The explorer in a real xcb window under Xvfb: a sample open, an instruction's dependency arrows
// shown, a refused drop with its reason visible, a diff, a finished search (estimate backend) in the
// Search dock with one of its evaluations opened as a variant, and the Source dock with stall samples per
// source line. The PNGs are written to <build>/tests/widgets/screenshots/ (docs/images/ holds copies).
// Skips when Xvfb is not installed.
#include "core/rewrite/block_positions.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/dependency_gutter.h"
#include "widgets/diff_view.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/source_model.h"
#include "widgets/models/stalls_model.h"
#include "widgets/search_panel.h"
#include "widgets/search_plot.h"
#include "widgets/source_panel.h"
#include "widgets/stalls_panel.h"
#include "widgets/variants_panel.h"
#include "xvfb_main.h"

#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

using namespace sassx;

class TestGuiScreenshot : public QObject
{
    Q_OBJECT
public:
    bool haveX = false;

private:
    static QString shotPath(const QString& name)
    {
        const QString dir = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
        QDir().mkpath(dir);
        return dir + QLatin1Char('/') + name;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!haveX) QSKIP("Xvfb not available: no real X window for the screenshot");
        QCoreApplication::setOrganizationName(QStringLiteral("sassx-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("sassx-screenshot"));
        QSettings().clear(); // the default layout, not one a former run left
        QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
    }

    void listingWithArrowsAndRefusal()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.size(), QSize(1400, 850)); // the default size, which the layout is chosen for
        QVERIFY(test::openAndWait(*session, cubin));
        EditController* controller = w.editController();
        ListingView* view = w.listingPanel()->view();
        ListingModel* model = view->listingModel();
        const auto& a = *session->variantTree()->analysis();

        // A legal move first, so the variants panel shows a variant.
        auto dragCase = [&](bool needLegal) -> std::optional<std::pair<Position, Position>> {
            const Schedule& s = session->variantTree()->schedule();
            for (Position p : s.positions()) {
                if (!a.listing.instructions[s.order[p].value()].isMemory()) continue;
                const auto t = controller->legalTargets(p);
                const BasicBlock& b = blockOfPosition(a.cfg, p);
                if (needLegal && t.empty()) continue;
                for (int d = 1; d < 6; ++d)
                    for (int64_t q : {int64_t(p.value()) - d, int64_t(p.value()) + d}) {
                        if (q < int64_t(b.first) || q >= int64_t(b.end)) continue;
                        const Position to = Position(uint32_t(q));
                        if ((needLegal ? std::find(t.begin(), t.end(), to) != t.end()
                                       : !controller->check(Edit::move(p, to)).accepted) &&
                            !a.deps.incoming(s.order[p].value()).empty())
                            return std::pair(p, to);
                    }
            }
            return std::nullopt;
        };
        const auto legal = dragCase(true);
        if (legal) QVERIFY(controller->apply(Edit::move(legal->first, legal->second)).accepted);
        const auto illegal = dragCase(false);
        QVERIFY(illegal);

        // Scroll so that the dragged instruction sits in the upper part of the view, then drag it
        // through the real window onto an illegal row.
        const int fromRow = model->rowOfPosition(illegal->first);
        const int toRow = model->rowOfPosition(illegal->second);
        view->scrollTo(model->index(std::max(0, fromRow - 8), 0), QAbstractItemView::PositionAtTop);
        QWidget* vp = view->viewport();
        const QPoint from = view->visualRect(model->index(fromRow, 2)).center();
        const QPoint to = view->visualRect(model->index(toRow, 2)).center();
        QTest::mousePress(vp, Qt::LeftButton, {}, from);
        QTest::mouseMove(vp, from + QPoint(0, 4));
        QTest::mouseMove(vp, to);
        QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
        QVERIFY(!view->refusalText().isEmpty());
        QVERIFY(view->refusalBanner()->isVisible());
        QCOMPARE(session->variantTree()->selectedInstruction(),
                 int(session->variantTree()->schedule().order[illegal->first].value()));
        QTest::qWait(200);
        w.listingPanel()->gutter()->repaint();
        QVERIFY(!w.listingPanel()->gutter()->drawnEdges().empty());

        // Every listing column visible at the default size, without scrolling sideways (but Source,
        // hidden until the Source dock shows it).
        QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
        for (int c = 0; c < ListingModel::ColumnCount; ++c)
            QVERIFY(view->isColumnHidden(c) == (c == ListingModel::SourceColumn));
        const QString main = shotPath(QStringLiteral("sassx-listing.png"));
        QVERIFY(w.grab().save(main));
        qInfo("screenshot: %s", qPrintable(main));

        // The diff of the original and the edited variant.
        if (legal && session->variantTree()->currentVariantId() != 0) {
            w.variantsPanel()->selectVariants({0, session->variantTree()->currentVariantId()});
            for (auto* b : w.variantsPanel()->findChildren<QToolButton*>())
                if (b->text() == QLatin1String("Diff")) b->click();
            QTest::qWait(200);
            QVERIFY(w.diffView()->movedCount() >= 1);
            auto* dock = w.findChild<QDockWidget*>(QStringLiteral("diffDock"));
            QVERIFY(dock && dock->isVisible());
            const int centre = model->rowOfPosition(legal->second);
            w.diffView()->verticalScrollBar()->setValue(std::max(0, int(legal->second.value()) - 6));
            view->scrollTo(model->index(centre, 0), QAbstractItemView::PositionAtCenter);
            QTest::qWait(200);
            const QString diff = shotPath(QStringLiteral("sassx-diff.png"));
            QVERIFY(w.grab().save(diff));
            qInfo("screenshot: %s", qPrintable(diff));
        }
    }

    // An LDS feeding many FFMAs: a few arrows, the rest folded into a bundle with a count badge.
    void bundledArrows()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(*session, cubin));
        const auto& deps = session->variantTree()->analysis()->deps;
        int busiest = -1;
        size_t most = 0;
        const auto& insts = session->variantTree()->analysis()->listing.instructions;
        for (uint32_t i = 0; i < insts.size(); ++i)
            if (insts[i].baseOpcode == "LDS" && deps.outgoing(i).size() > most)
                most = deps.outgoing(i).size(), busiest = int(i);
        QVERIFY(most > size_t(DependencyGutter::kMaxArrows) + 1);
        session->variantTree()->setSelectedInstruction(busiest);
        ListingView* view = w.listingPanel()->view();
        const int row = view->listingModel()->rowOfOriginal(InstrId(uint32_t(busiest)));
        view->scrollTo(view->listingModel()->index(std::max(0, row - 6), 0),
                       QAbstractItemView::PositionAtTop);
        QTest::qWait(200);
        w.listingPanel()->gutter()->repaint();
        QVERIFY(!w.listingPanel()->gutter()->drawnBundles().empty());
        const QString shot = shotPath(QStringLiteral("sassx-arrows.png"));
        QVERIFY(w.grab().save(shot));
        qInfo("screenshot: %s", qPrintable(shot));
    }

    // The stall-sampling worked example of docs/user-guide.md, on samples recorded on an H100: the SGEMM
    // with LDS.128 #172 hoisted 13 slots; its first consumer, FFMA #207, selected (MIO wait), the
    // Samples column and the Stalls dock comparing with the original.
    void stallsWorkedExample()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(*session, cubin));
        const QString data = QStringLiteral(SASSX_SOURCE_DIR "/tests/data/stalls/");
        QString error;
        QVERIFY2(session->measureQueue()->importStalls(
                     0, data + QStringLiteral("sgemm_leakyrelu.h100.stalls.json"), &error),
                 qPrintable(error));
        QVERIFY(w.editController()->apply(Edit::move(Position(172), Position(159))).accepted);
        QVERIFY2(session->measureQueue()->importStalls(
                     session->variantTree()->currentVariantId(),
                     data + QStringLiteral("sgemm_leakyrelu.moved.h100.stalls.json"), &error),
                 qPrintable(error));
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("stallsDock"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        session->variantTree()->setSelectedInstruction(207);
        ListingView* view = w.listingPanel()->view();
        view->scrollTo(view->listingModel()->index(view->listingModel()->rowOfPosition(Position(168)), 0),
                       QAbstractItemView::PositionAtTop);
        QTest::qWait(200);
        QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
        QVERIFY(w.stallsPanel()->model()->rowCount() > 5);
        const QString shot = shotPath(QStringLiteral("sassx-stalls.png"));
        QVERIFY(w.grab().save(shot));
        qInfo("screenshot: %s", qPrintable(shot));
    }

    // The Source dock of docs/user-guide.md: RMSNorm built with -lineinfo (its half conversions inlined
    // from cuda_fp16.hpp) with the samples recorded on an H100; sorted by samples, the hottest source line
    // chosen, its instructions lit in the listing.
    void sourceDockWithSamples()
    {
        const QString cubin = QStringLiteral(SASSX_CUBIN_SAMPLES "/rmsnorm_lineinfo_sm_90.cubin");
        SASSX_REQUIRE_SAMPLE(cubin);
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(*session, cubin));
        QString error;
        QVERIFY2(
            session->measureQueue()->importStalls(
                0, QStringLiteral(SASSX_SOURCE_DIR "/tests/data/stalls/rmsnorm.h100.stalls.json"), &error),
            qPrintable(error));
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("sourceDock"));
        auto* panel = w.findChild<SourcePanel*>();
        QVERIFY(dock && panel);
        dock->show();
        dock->raise();
        const auto& lines = panel->model()->lines().lines;
        QVERIFY(panel->model()->lines().hasSamples);
        int hottest = 0;
        for (size_t r = 0; r < lines.size(); ++r)
            if (lines[r].samples > lines[size_t(hottest)].samples) hottest = int(r);
        panel->table()->sortByColumn(SourceModel::SamplesColumn, Qt::DescendingOrder);
        panel->chooseLine(hottest);
        QCOMPARE(panel->table()->currentIndex().row(), 0); // the hottest first
        ListingView* view = w.listingPanel()->view();
        QVERIFY(view->listingModel()->isHighlighted(lines[size_t(hottest)].instructions.front()));
        view->scrollTo(view->currentIndex(), QAbstractItemView::PositionAtCenter);
        QTest::qWait(200);
        const QString shot = shotPath(QStringLiteral("sassx-source.png"));
        QVERIFY(w.grab().save(shot));
        qInfo("screenshot: %s", qPrintable(shot));
    }

    void searchDockWithFinishedRun()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        QTemporaryDir dir;
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(*session, cubin));
        QVERIFY(session->store()->save(dir.filePath(QStringLiteral("shot.sassx.json"))));
        w.showSearch();
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("searchDock"));
        QVERIFY(dock && dock->isVisible());
        w.resizeDocks({dock}, {430}, Qt::Vertical);

        SearchPanel* panel = w.searchPanel();
        search::SearchConfig c;
        c.algorithm = search::Algorithm::Anneal;
        c.space = search::SearchSpace::All;
        c.budgetEvals = 400;
        c.seed = 1;
        panel->setConfig(c);
        panel->setBackend(QStringLiteral("estimate"));
        QSignalSpy recorded(session->searchRuns(), &SearchRuns::searchRecorded);
        QSignalSpy failed(session->searchRuns()->search(), &SearchJob::failed);
        panel->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!recorded.isEmpty() || !failed.isEmpty(), 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
        QCOMPARE(panel->plot()->evaluationCount(), 400);
        QVERIFY(panel->statusText().contains(QStringLiteral("estimate — not a measurement")));

        // Open an accepted evaluation from the plot (a real click in the window): it becomes the
        // current variant and the diff shows it.
        const auto& history = session->searchRuns()->searches().front().history;
        int step = -1;
        for (const auto& e : history)
            if (e.outcome == search::Outcome::Accepted && e.base >= 0 && e.step > 40) step = e.step;
        QVERIFY(step >= 0);
        panel->plot()->flush();
        QSignalSpy opened(panel, &SearchPanel::evaluationOpened);
        const int clicked = panel->plot()->stepAt(panel->plot()->pixelOf(step));
        QTest::mouseClick(panel->plot(), Qt::LeftButton, {}, panel->plot()->pixelOf(step).toPoint());
        QTRY_COMPARE(opened.size(), 1);
        QCOMPARE(session->variantTree()->currentVariantId(), opened.front().front().toInt());
        QVERIFY(session->searchRuns()->openSearchEvaluation(0, clicked) ==
                session->variantTree()->currentVariantId());
        QTest::qWait(300);
        // The Search and Diff docks side by side still fit the default window size.
        QCOMPARE(w.size(), QSize(1400, 850));
        const QString shot = shotPath(QStringLiteral("sassx-search.png"));
        QVERIFY(w.grab().save(shot));
        qInfo("screenshot: %s", qPrintable(shot));
    }
};

int main(int argc, char** argv)
{
    return sassx::test::runOnXvfb<TestGuiScreenshot>(argc, argv);
}

#include "test_gui_screenshot.moc"
