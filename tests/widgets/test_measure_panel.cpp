// "Measure" from the variants panel, answered in the background by an evaluator behind the Evaluator
// interface, updates the variants panel and the metrics view with figures labelled by their source.
// The estimate backend (core/eval/estimate_evaluator.h) is declared but not implemented yet, so this
// uses a test double with the same interface (fake_evaluator.h).
#include "fake_evaluator.h"
#include "widget_test_support.h"
#include "widgets/main_window.h"
#include "widgets/metrics_view.h"
#include "widgets/models/metrics_model.h"
#include "widgets/models/variants_model.h"
#include "widgets/variants_panel.h"

#include <qcustomplot.h>

#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

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
        session->setAutosaveInterval(0);
        MainWindow window(session);
        session->setParent(&window);
        window.show();
        QVERIFY(test::openAndWait(*session, cubin));
        QCOMPARE(session->launchSpecPath(), test::sampleSpec(QStringLiteral("rmsnorm")));

        // Without a cubin writer an edited variant cannot be measured, and the panel says why.
        const int v = session->addVariant(0, QStringLiteral("v1"), {});
        session->setVariantEdits(v, {Edit::control(0, 2, std::nullopt, std::nullopt)});
        auto fake = std::make_shared<test::FakeEvaluator>();
        session->setEvaluator(fake);
        QVERIFY(session->measureUnavailableReason(v).contains(QStringLiteral("cubin writer")));
        // Test-only builder: hands the evaluator the original bytes (the fake ignores them).
        session->setCubinBuilder([](const Cubin& c, const std::string&, const KernelAnalysis&,
                                    const Schedule&) -> Result<std::vector<uint8_t>> { return c.bytes(); });
        QVERIFY(session->measureUnavailableReason(v).isEmpty());

        VariantsPanel* panel = window.variantsPanel();
        panel->selectVariants({v});
        QSignalSpy finished(session, &Session::measureFinished);
        panel->measureSelected();
        QVERIFY(session->isMeasuring() || !finished.isEmpty());
        QVERIFY(finished.wait(30000) || !finished.isEmpty());
        QCOMPARE(finished.front().front().toInt(), v);
        QCOMPARE(fake->baselineCalls.load(), 1);

        // The variants panel shows the figures and their source.
        VariantsModel* model = panel->model();
        QCOMPARE(model->indexOfVariant(v, VariantsModel::SpeedupColumn).data().toString(),
                 QStringLiteral("1.250×"));
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

        // A second measure reuses the baseline; editing the variant drops its figures.
        session->measure(v);
        QVERIFY(finished.wait(30000));
        QCOMPARE(fake->baselineCalls.load(), 1);
        session->setVariantEdits(v, {});
        QCOMPARE(model->indexOfVariant(v, VariantsModel::SourceColumn).data().toString(), QString());
    }
};

QTEST_MAIN(TestMeasurePanel)
#include "test_measure_panel.moc"
