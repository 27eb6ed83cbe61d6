// The window's layout recovers: comparing four variants, floating and re-docking Metrics leaves the
// listing a usable width, and View ▸ Reset Layout puts the docks and the splitter back where a fresh
// window has them. In two font families.
#include "core/session/session.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/metrics_view.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/variants_model.h"
#include "widgets/search_panel.h"
#include "widgets/search_plot.h"
#include "widgets/variants_panel.h"

#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleOptionViewItem>
#include <QTreeView>
#include <QtTest>

#include <qcustomplot.h>

using namespace sassx;
using sassx::test::newWindow;

class TestMainWindowLayout : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-main-window-layout"));
        QSettings().clear();
    }

    void redockedMetrics_data() { test::addTwoFontRows(); }

    // Compare four variants, float and re-dock Metrics, mess up the rest; Reset Layout restores all.
    void redockedMetrics()
    {
        QFETCH(QFont, font);
        QApplication::setFont(font);
        QSettings().clear();
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto window = newWindow();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(test::openAndWait(*window->session(), cubin));
        auto* metrics = window->findChild<QDockWidget*>(QStringLiteral("metricsDock"));
        auto* listing = window->listingPanel();
        auto dump = [&](const char* when) {
            qInfo("%s: listing %d (view %d, splitter %d,%d) metrics %d floating %d area %d", when,
                  listing->width(), listing->view()->width(), listing->splitter()->sizes()[0],
                  listing->splitter()->sizes()[1], metrics->width(), metrics->isFloating(),
                  int(window->dockWidgetArea(metrics)));
        };
        dump("fresh");
        const int freshListing = listing->width();
        const QList<int> freshSplit = listing->splitter()->sizes();
        const int freshMetrics = metrics->width();
        VariantTree* tree = window->session()->variantTree();
        std::vector<int> ids{0};
        for (int i = 0; i < 3; ++i)
            ids.push_back(tree->addVariant(0, QStringLiteral("v%1").arg(i + 1), {}));
        Q_EMIT window->variantsPanel()->compareRequested(ids);
        QTest::qWait(200);
        dump("compared");
        metrics->setFloating(true);
        QTest::qWait(200);
        dump("floating");
        metrics->setFloating(false);
        QTest::qWait(200);
        dump("redocked");
        // Four variants in the chart wrap its legend instead of widening the dock.
        QCOMPARE(listing->width(), freshListing);
        QCOMPARE(metrics->width(), freshMetrics);
        // Every legend entry inside the chart (none clipped at its right edge).
        QCustomPlot* plot = window->metricsView()->plot();
        plot->replot();
        QCOMPARE(plot->legend->itemCount(), 4);
        for (int i = 0; i < plot->legend->itemCount(); ++i)
            QVERIFY2(plot->rect().contains(plot->legend->item(i)->outerRect()),
                     qPrintable(QStringLiteral("legend entry %1 clipped").arg(i)));
        // Messed up further: Metrics floating, Variants on the left and wide, the gutter wide.
        auto* variants = window->findChild<QDockWidget*>(QStringLiteral("variantsDock"));
        metrics->setFloating(true);
        window->addDockWidget(Qt::LeftDockWidgetArea, variants);
        window->resizeDocks({variants}, {700}, Qt::Horizontal);
        listing->splitter()->setSizes({300, 400});
        QTest::qWait(200);
        dump("messed");
        // However the docks grow, the listing keeps the address and a readable instruction column.
        QVERIFY(listing->view()->width() >= listing->view()->usableMinimumWidth());
        QVERIFY(listing->view()->columnWidth(ListingModel::InstructionColumn) >=
                listing->view()->minimumInstructionWidth());
        window->resetLayout();
        QTest::qWait(200);
        dump("reset");
        QVERIFY(!metrics->isFloating());
        QCOMPARE(window->dockWidgetArea(metrics), Qt::RightDockWidgetArea);
        QCOMPARE(window->dockWidgetArea(variants), Qt::RightDockWidgetArea);
        QCOMPARE(listing->width(), freshListing);
        QCOMPARE(listing->splitter()->sizes(), freshSplit);
        QCOMPARE(metrics->width(), freshMetrics);
    }

    void docksNeverOverlap_data() { test::addFontAndSizeRows(); }

    // With the Diff, Search and Tune docks open beside Variants and Metrics, no dock is drawn over another
    // or over the listing, and the listing shows its control columns (Stall to Live) without scrolling
    // sideways: the instruction column gives way first.
    void docksNeverOverlap()
    {
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        QSettings().clear();
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto window = newWindow();
        window->resize(size);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(test::openAndWait(*window->session(), cubin));
        Q_EMIT window->variantsPanel()->diffRequested(0, 0);
        window->showSearch();
        auto* tune = window->findChild<QDockWidget*>(QStringLiteral("tuneDock"));
        QVERIFY(tune);
        tune->show();
        Q_EMIT window->variantsPanel()->diffRequested(0, 0); // the Diff tab in front, as in the report
        QTest::qWait(300);
        QList<QWidget*> shown{window->centralWidget()};
        QStringList names{QStringLiteral("listing")};
        // A dock behind another's tab is visible to Qt but moved out of the window: only those drawn count.
        for (QDockWidget* dock : window->findChildren<QDockWidget*>())
            if (dock->isVisible() && !dock->isFloating() && !dock->visibleRegion().isEmpty()) {
                shown << dock;
                names << dock->objectName();
            }
        QVERIFY(names.contains(QStringLiteral("diffDock")) && names.contains(QStringLiteral("metricsDock")));
        for (int i = 0; i < shown.size(); ++i) {
            qInfo("%s: %d,%d %dx%d", qPrintable(names[i]), shown[i]->x(), shown[i]->y(), shown[i]->width(),
                  shown[i]->height());
            QVERIFY2(window->rect().contains(shown[i]->geometry()),
                     qPrintable(names[i] + " leaves the window"));
            for (int j = 0; j < i; ++j)
                QVERIFY2(!shown[i]->geometry().intersects(shown[j]->geometry()),
                         qPrintable(names[i] + QStringLiteral(" is drawn over ") + names[j]));
        }
        ListingView* view = window->listingPanel()->view();
        view->horizontalScrollBar()->setValue(0);
        QTest::qWait(50);
        for (int c = ListingModel::StallColumn; c <= ListingModel::LiveColumn; ++c) {
            if (view->isColumnHidden(c)) continue;
            const int right = view->columnViewportPosition(c) + view->columnWidth(c);
            QVERIFY2(right <= view->viewport()->width(),
                     qPrintable(QStringLiteral("column %1 ends at %2 of %3 px (instruction %4 px)")
                                    .arg(c)
                                    .arg(right)
                                    .arg(view->viewport()->width())
                                    .arg(view->columnWidth(ListingModel::InstructionColumn))));
        }
        QVERIFY(view->columnWidth(ListingModel::InstructionColumn) >= view->minimumInstructionWidth());
    }

    void variantNamesShownWhole_data() { test::addFontAndSizeRows(); }

    // Variant names carry their speed-up at the end: at 1920x1080 every one shows whole in the Variants
    // dock; where the dock is too narrow (1024x700) a name loses its middle, never its start or its
    // figure, and its tooltip has it whole. A name column the user widened stays as wide.
    void variantNamesShownWhole()
    {
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        QSettings().clear();
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto window = newWindow();
        window->resize(size);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(test::openAndWait(*window->session(), cubin));
        VariantTree* tree = window->session()->variantTree();
        const QStringList names = {QStringLiteral("climb·mem best 1.0123× est."),
                                   QStringLiteral("anneal·all #1234 1.0045× est."),
                                   QStringLiteral("climb-attn-t4.cubin")};
        int parent = 0;
        for (const QString& n : names)
            parent = tree->addVariant(parent == 0 ? 0 : parent, n, {});
        QTest::qWait(100);
        QTreeView* view = window->variantsPanel()->tree();
        QCOMPARE(view->textElideMode(), Qt::ElideMiddle);
        qInfo("viewport %d, name column %d, indentation %d", view->viewport()->width(),
              view->header()->sectionSize(VariantsModel::NameColumn), view->indentation());
        VariantsModel* model = window->variantsPanel()->model();
        QFont bold = view->font();
        bold.setBold(true);
        for (const QString& n : names) {
            const std::vector<VariantRecord>& all = tree->variants();
            const auto it = std::find_if(all.begin(), all.end(), [&](const VariantRecord& r) {
                return QString::fromStdString(r.name) == n;
            });
            QVERIFY(it != all.end());
            const QModelIndex index = model->indexOfVariant(it->id, VariantsModel::NameColumn);
            view->scrollTo(index);
            QStyleOptionViewItem cell;
            cell.initFrom(view);
            cell.features = QStyleOptionViewItem::HasDisplay;
            cell.text = n;
            cell.font = bold;
            cell.rect = view->visualRect(index);
            const QRect text = view->style()->subElementRect(QStyle::SE_ItemViewItemText, &cell, view);
            const QFontMetrics fm(bold);
            const QString shown = fm.elidedText(n, Qt::ElideMiddle, text.width());
            qInfo("%s: %d px of %d (%s)", qPrintable(n), text.width(), fm.horizontalAdvance(n),
                  qPrintable(shown));
            QVERIFY2(shown.startsWith(n.left(4)) && shown.endsWith(n.right(4)), qPrintable(shown));
            if (size.width() >= 1920) QVERIFY2(shown == n, qPrintable(shown + QStringLiteral(" is cut")));
            QVERIFY(index.data(Qt::ToolTipRole).toString().startsWith(n));
        }
        // Widened by hand, it stays so when the next variant arrives.
        QHeaderView* header = view->header();
        const int wide = header->sectionSize(VariantsModel::NameColumn) + 60;
        header->resizeSection(VariantsModel::NameColumn, wide);
        tree->addVariant(0, QStringLiteral("v9"), {});
        QTest::qWait(100);
        QCOMPARE(header->sectionSize(VariantsModel::NameColumn), wide);
    }

    void searchStatusBelowThePlot_data() { test::addTwoFontRows(); }

    // The Search dock at its default size and at a short, narrow one: the status and message lines sit
    // below the plot (its axis label inside the plot), never over it.
    void searchStatusBelowThePlot()
    {
        QFETCH(QFont, font);
        QApplication::setFont(font);
        QSettings().clear();
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto window = newWindow();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(test::openAndWait(*window->session(), cubin));
        window->showSearch();
        auto* dock = window->findChild<QDockWidget*>(QStringLiteral("searchDock"));
        SearchPanel* panel = window->searchPanel();
        auto* status = panel->findChild<QLabel*>(QStringLiteral("searchStatus"));
        QVERIFY(status);
        // A real run's status and message: the longest lines the dock shows.
        search::SearchConfig c;
        c.algorithm = search::Algorithm::Climb;
        c.space = search::SearchSpace::All;
        c.budgetEvals = 8;
        panel->setConfig(c);
        panel->setBackend(QStringLiteral("estimate"));
        QSignalSpy recorded(window->session()->searchRuns(), &SearchRuns::searchRecorded);
        QSignalSpy failed(window->session()->searchRuns()->search(), &SearchJob::failed);
        panel->startButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return !recorded.isEmpty() || !failed.isEmpty(); }, 120000));
        QVERIFY(!recorded.isEmpty());
        // The estimate's figures say "est." on the plot's axis too.
        QVERIFY(panel->plot()->isEstimate());
        QVERIFY2(panel->plot()->yAxis->label().startsWith(QStringLiteral("speed-up est.")),
                 qPrintable(panel->plot()->yAxis->label()));
        dock->setFloating(true);
        for (QSize size : {QSize(900, 420), QSize(520, 360), QSize(420, 300)}) {
            dock->resize(size);
            QTest::qWait(100);
            const QRect plot = panel->plot()->geometry();
            qInfo("dock %dx%d plot %d..%d status %d..%d (%s)", dock->width(), dock->height(), plot.top(),
                  plot.bottom(), status->geometry().top(), status->geometry().bottom(),
                  qPrintable(status->text()));
            QVERIFY2(status->geometry().top() > plot.bottom(), "the status line overlaps the plot");
            const QRect message = panel->findChild<QLabel*>(QStringLiteral("searchMessage"))->geometry();
            qInfo("message %d..%d", message.top(), message.bottom());
            QVERIFY2(message.top() > status->geometry().bottom(), "the message overlaps the status line");
            QVERIFY(status->height() >= status->heightForWidth(status->width()));
        }
    }
};

QTEST_MAIN(TestMainWindowLayout)
#include "test_main_window_layout.moc"
