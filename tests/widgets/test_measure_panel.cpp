// "Measure" from the variants panel, answered in the background by an evaluator behind the Evaluator
// interface, updates the variants panel and the metrics view with figures labelled by their source.
// It uses a test double with the Evaluator interface (fake_evaluator.h) whose figures are fixed, so each
// view can be checked against known numbers.
#include "fake_evaluator.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/main_window.h"
#include "widgets/metrics_view.h"
#include "widgets/models/metrics_model.h"
#include "widgets/models/variants_model.h"
#include "widgets/variants_panel.h"

#include <qcustomplot.h>

#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

#include "core/estimate/estimate_evaluator.h"

using namespace sassx;

class TestMeasurePanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("sassx-tests")); }

    void measureUpdatesPanelAndMetrics()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow window(session);
        session->setParent(&window);
        window.show();
        QVERIFY(test::openAndWait(*session, cubin));
        QCOMPARE(session->launchSpecPath(), test::sampleSpec(QStringLiteral("rmsnorm")));

        // Without a launch spec nothing can be measured, and the panel says why.
        const QString spec = session->launchSpecPath();
        session->setLaunchSpecPath({});
        const int v = session->variantTree()->addVariant(0, QStringLiteral("v1"), {});
        session->variantTree()->setVariantEdits(v,
                                                {Edit::control(Position(0), 2, std::nullopt, std::nullopt)});
        QVERIFY(session->measureQueue()->measureUnavailableReason(v).contains(QStringLiteral("launch spec")));
        session->setLaunchSpecPath(spec);
        auto fake = std::make_shared<test::FakeEvaluator>();
        session->measureQueue()->setEvaluator(fake);
        QVERIFY(session->measureQueue()->measureUnavailableReason(v).isEmpty());

        VariantsPanel* panel = window.variantsPanel();
        panel->selectVariants({v});
        QSignalSpy finished(session->measureQueue(), &MeasureQueue::measureFinished);
        panel->measureSelected();
        QVERIFY(session->measureQueue()->isMeasuring() || !finished.isEmpty());
        QVERIFY(finished.wait(30000) || !finished.isEmpty());
        QCOMPARE(finished.front().front().toInt(), v);
        QCOMPARE(fake->baselineCalls.load(), 1);

        // The variants panel shows the figures and their source.
        VariantsModel* model = panel->model();
        QCOMPARE(model->indexOfVariant(v, VariantsModel::SpeedupColumn).data().toString(),
                 QStringLiteral("1.250× est."));
        QCOMPARE(model->indexOfVariant(v, VariantsModel::SourceColumn).data().toString(),
                 QStringLiteral("estimate"));

        // The metrics view compares it: bars per variant, table cells and headers labelled.
        MetricsView* metrics = window.metricsView();
        const auto& ids = metrics->model()->variants();
        QVERIFY(std::find(ids.begin(), ids.end(), v) != ids.end());
        QCOMPARE(metrics->barSeriesCount(), int(ids.size()));
        const int column = int(std::find(ids.begin(), ids.end(), v) - ids.begin());
        QVERIFY(metrics->model()
                    ->headerData(column, Qt::Horizontal)
                    .toString()
                    .contains(QStringLiteral("estimate")));
        bool sawDram = false;
        for (int row = 0; row < metrics->model()->rowCount(); ++row) {
            const QModelIndex i = metrics->model()->index(row, column);
            if (i.data(MetricsModel::MetricNameRole)
                    .toString()
                    .startsWith(QStringLiteral("dram__throughput"))) {
                sawDram = true;
                QCOMPARE(i.data(MetricsModel::ValueRole).toDouble(), 61.5);
                QCOMPARE(i.data(MetricsModel::SourceRole).toString(), QStringLiteral("estimate"));
            }
        }
        QVERIFY(sawDram);
        QVERIFY(metrics->plot()->legend->itemCount() >= 1);
        // Estimates only: the view says hardware metrics need a GPU.
        QVERIFY(metrics->note()->isVisible());
        QVERIFY2(metrics->note()->text().contains(QStringLiteral("need a GPU")),
                 qPrintable(metrics->note()->text()));
        // The legend sits above the bars, never on them.
        metrics->plot()->replot();
        QVERIFY(!metrics->plot()->legend->outerRect().intersects(metrics->plot()->axisRect()->rect()));
        // However short the chart, its y label fits beside it.
        QVERIFY2(QFontMetrics(metrics->plot()->yAxis->labelFont())
                         .horizontalAdvance(metrics->plot()->yAxis->label()) <=
                     metrics->plot()->axisRect()->height() + 8,
                 qPrintable(metrics->plot()->yAxis->label()));
        // With the Search dock open under the default layout, the table still shows three rows.
        for (const char* name : {"metricsDock", "searchDock"}) {
            auto* dock = window.findChild<QDockWidget*>(QLatin1String(name));
            QVERIFY(dock);
            dock->show();
            dock->raise();
        }
        QTRY_VERIFY(metrics->table()->isVisible());
        QTest::qWait(50);
        QTableView* table = metrics->table();
        QVERIFY(table->model()->rowCount() >= 3);
        QVERIFY2(table->rowViewportPosition(2) + table->rowHeight(2) <= table->viewport()->height(),
                 qPrintable(QStringLiteral("viewport %1 px, third row ends at %2")
                                .arg(table->viewport()->height())
                                .arg(table->rowViewportPosition(2) + table->rowHeight(2))));

        // A second measure reuses the baseline; editing the variant drops its figures.
        session->measureQueue()->measure(v);
        QVERIFY(finished.wait(30000));
        QCOMPARE(fake->baselineCalls.load(), 1);
        session->variantTree()->setVariantEdits(v, {});
        QCOMPARE(model->indexOfVariant(v, VariantsModel::SourceColumn).data().toString(), QString());
    }

    // The real estimate backend (core/eval, no GPU): the original through its cubin, an edited
    // variant through the schedule fast path; both labelled "estimate" in the panel and metrics view.
    void estimateBackend()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow window(session);
        session->setParent(&window);
        EvaluatorOptions options;
        options.backend = sassx::eval::Backend::Estimate;
        session->setEvaluatorOptions(options);
        QVERIFY(test::openAndWait(*session, cubin));
        // A legal edit through the controller (creates v1).
        bool edited = false;
        for (Position p(0); p < session->variantTree()->schedule().order.endIndex() && !edited; ++p)
            for (Position t : window.editController()->legalTargets(p))
                if (!edited) edited = window.editController()->apply(Edit::move(p, t)).accepted;
        if (!edited) QSKIP("no legal move in this sample");
        const int v = session->variantTree()->currentVariantId();
        QVERIFY(session->measureQueue()->measureUnavailableReason(v).isEmpty());
        QSignalSpy finished(session->measureQueue(), &MeasureQueue::measureFinished);
        QSignalSpy failed(session->measureQueue(), &MeasureQueue::measureFailed);
        window.variantsPanel()->selectVariants({0, v});
        window.variantsPanel()->measureSelected();
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() + failed.size() >= 2, 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
        // The status bar says it was an estimate, never "Measured".
        const QString status = window.statusBar()->currentMessage();
        QVERIFY2(status.contains(QStringLiteral("est")) && !status.startsWith(QStringLiteral("Measured")),
                 qPrintable(status));
        VariantsModel* model = window.variantsPanel()->model();
        for (int id : {0, v}) {
            QCOMPARE(model->indexOfVariant(id, VariantsModel::SourceColumn).data().toString().left(8),
                     QStringLiteral("estimate"));
            QVERIFY(model->indexOfVariant(id, VariantsModel::SpeedupColumn)
                        .data()
                        .toString()
                        .endsWith(QStringLiteral("× est.")));
        }
        const auto& ids = window.metricsView()->model()->variants();
        QVERIFY(std::find(ids.begin(), ids.end(), v) != ids.end());
        for (int c = 0; c < window.metricsView()->model()->columnCount(); ++c)
            QVERIFY(
                window.metricsView()->model()->headerData(c, Qt::Horizontal).toString().contains("estimate"));
        // An estimate is a ratio, not a measurement: no interval, no time per launch, no raw keys; its
        // rows say "(estimate)", and the chart shows the speed-ups instead of staying empty.
        QCOMPARE(model->indexOfVariant(v, VariantsModel::IntervalColumn).data().toString(),
                 QStringLiteral("—"));
        MetricsModel* metrics = window.metricsView()->model();
        bool sawCycles = false;
        for (int row = 0; row < metrics->rowCount(); ++row) {
            const QString name = metrics->index(row, 0).data(MetricsModel::MetricNameRole).toString();
            const QString label = metrics->headerData(row, Qt::Vertical).toString();
            QVERIFY2(name != QStringLiteral("estimate__duration_us"), "the nominal time is never shown");
            if (name == QStringLiteral("time"))
                for (int c = 0; c < metrics->columnCount(); ++c)
                    QVERIFY(!metrics->index(row, c).data(MetricsModel::ValueRole).isValid());
            if (name.startsWith(QStringLiteral("estimate__"))) {
                QVERIFY2(label.endsWith(QStringLiteral("(estimate)")), qPrintable(label));
                sawCycles = sawCycles || name == QStringLiteral("estimate__cycles");
            }
        }
        QVERIFY(sawCycles);
        QVERIFY(window.metricsView()->barSeriesCount() >= 1);
        QVERIFY(window.metricsView()->plot()->yAxis->label().contains(QStringLiteral("Speed-up")));
        qInfo("estimate speedup of %s: %s", session->variantTree()->variant(v)->name.c_str(),
              qPrintable(model->indexOfVariant(v, VariantsModel::SpeedupColumn).data().toString()));
    }

    // The stock "auto" choice: the GPU pool when a worker finds a usable GPU, else the labelled estimate,
    // and the session says which it picked and why (no machine without a GPU gets "no worker could start").
    void autoPicksEstimateWithoutGpu()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        Session session;
        session.store()->setAutosaveInterval(0);
        QVERIFY(session.workspaceOptions().evaluator.backend == sassx::eval::Backend::Auto);
        QVERIFY(test::openAndWait(session, cubin));
        QSignalSpy chosen(session.measureQueue(), &MeasureQueue::evaluatorChosen);
        QSignalSpy finished(session.measureQueue(), &MeasureQueue::measureFinished);
        QSignalSpy failed(session.measureQueue(), &MeasureQueue::measureFailed);
        session.measureQueue()->measure(0);
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() + failed.size() >= 1, 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
        QCOMPARE(chosen.size(), 1);
        if (chosen.front().at(0).toString() == QLatin1String("gpu")) QSKIP("this machine has a usable GPU");
        QCOMPARE(chosen.front().at(0).toString(), QStringLiteral("estimate"));
        QVERIFY2(chosen.front().at(1).toString().startsWith(QStringLiteral("no GPU")),
                 qPrintable(chosen.front().at(1).toString()));
        QCOMPARE(QString::fromStdString(session.variantTree()->variant(0)->figures->sourceLabel()).left(8),
                 QStringLiteral("estimate"));
    }

    // Measuring can be cancelled: queued and running measurements report "cancelled", none lands.
    void measureCanBeCancelled()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        Session session;
        session.store()->setAutosaveInterval(0);
        auto fake = std::make_shared<test::FakeEvaluator>();
        fake->delayMs = 300;
        session.measureQueue()->setEvaluator(fake);
        QVERIFY(test::openAndWait(session, cubin));
        QSignalSpy finished(session.measureQueue(), &MeasureQueue::measureFinished);
        QSignalSpy failed(session.measureQueue(), &MeasureQueue::measureFailed);
        for (int k = 0; k < 3; ++k)
            session.measureQueue()->measure(0);
        QVERIFY(session.measureQueue()->isMeasuring());
        session.measureQueue()->cancelMeasure();
        QVERIFY(!session.measureQueue()->isMeasuring());
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 3, 30000);
        for (const auto& call : failed)
            QCOMPARE(call.at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(finished.isEmpty());
        QVERIFY(!session.variantTree()->variant(0)->figures);
    }
};

QTEST_MAIN(TestMeasurePanel)
#include "test_measure_panel.moc"
