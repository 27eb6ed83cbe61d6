// Stall samples in the explorer, on samples recorded on an H100 (tests/data/stalls,
// docs/results/pcsample-h100-2026-11-23.md): the listing's Samples column and block rows, the Stalls
// dock comparing a variant with the original, an instruction keeping its samples when it moves, the
// gutter naming where a consumer waits, imports that do not fit refused, samples kept in session files,
// and sampling without a GPU refused with the reason.
#include "core/estimate/estimate_evaluator.h"
#include "core/session/session.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/dependency_gutter.h"
#include "widgets/diff_view.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/stalls_model.h"
#include "widgets/stalls_panel.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace sassx;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(SASSX_SOURCE_DIR "/tests/data/stalls/%1").arg(QLatin1String(name));
}

// The listing row of original instruction `orig`.
QModelIndex cell(ListingModel* m, InstrId orig, int column)
{
    return m->index(m->rowOfOriginal(orig), column);
}

} // namespace

class TestStallsPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-stalls"));
        QSettings().clear();
    }

    void samplesInListingAndDock()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow w(session);
        session->setParent(&w);
        QVERIFY(test::openAndWait(*session, cubin));
        ListingModel* lm = w.listingPanel()->view()->listingModel();
        StallsPanel* panel = w.stallsPanel();
        QAbstractItemModelTester tester(panel->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(!lm->data(cell(lm, InstrId(706), ListingModel::SamplesColumn), ListingModel::SampleShareRole)
                     .isValid());
        QVERIFY(panel->statusText().startsWith(QStringLiteral("No stall samples")));
        // Nothing sampled: the Samples column gives its width to the instruction column; the SGEMM
        // predicates instructions, so Pred keeps its width.
        ListingView* view = w.listingPanel()->view();
        const int instructionBefore = view->columnWidth(ListingModel::InstructionColumn);
        QVERIFY(lm->isColumnEmpty(ListingModel::SamplesColumn));
        QVERIFY(!lm->isColumnEmpty(ListingModel::PredicateColumn));
        QVERIFY(view->isColumnNarrowed(ListingModel::SamplesColumn));
        QVERIFY(!view->isColumnNarrowed(ListingModel::PredicateColumn));
        QCOMPARE(view->columnWidth(ListingModel::SamplesColumn), view->narrowWidth());

        QString error;
        QVERIFY2(
            session->measureQueue()->importStalls(0, fixture("sgemm_leakyrelu.h100.stalls.json"), &error),
            qPrintable(error));
        // Samples arrived: the column comes back at a width that shows "10.2%".
        QVERIFY(!view->isColumnNarrowed(ListingModel::SamplesColumn));
        QVERIFY(view->columnWidth(ListingModel::SamplesColumn) >=
                view->fontMetrics().horizontalAdvance(QStringLiteral("10.2%")));
        QVERIFY(view->columnWidth(ListingModel::InstructionColumn) <= instructionBefore);
        // The loop's back branch holds ~10% of the samples, mostly at the barrier; it is the hottest.
        const QModelIndex hot = cell(lm, InstrId(706), ListingModel::SamplesColumn);
        QVERIFY(std::abs(hot.data(ListingModel::SampleShareRole).toDouble() - 0.10) < 0.01);
        QCOMPARE(hot.data(ListingModel::SampleHeatRole).toDouble(), 1.0);
        QCOMPARE(hot.data(ListingModel::SampleWordsRole).toList().front().toList().front().toString(),
                 QStringLiteral("barrier"));
        QVERIFY(hot.data().toString().endsWith(QLatin1Char('%')));
        QVERIFY(hot.data(Qt::ToolTipRole).toString().contains(QStringLiteral("barrier")));
        // Block rows carry their share; the shares of all blocks add up to 100%.
        double blocks = 0;
        for (int row = 0; row < lm->rowCount(); ++row)
            if (lm->index(row, 0).data(ListingModel::IsSeparatorRole).toBool()) {
                const QString text = lm->index(row, ListingModel::InstructionColumn).data().toString();
                const int at = text.indexOf(QStringLiteral("% of the stall samples"));
                if (at > 0) blocks += text.left(at).section(QLatin1Char(' '), -1).toDouble();
            }
        QVERIFY2(std::abs(blocks - 100.0) < 0.5, qPrintable(QString::number(blocks)));
        // The dock: reasons of the original, largest first.
        const auto& rows = panel->model()->rows();
        QVERIFY(rows.size() > 5);
        QCOMPARE(rows.front().word, QStringLiteral("not selected"));
        QVERIFY(rows.front().variant && !rows.front().original);
        QVERIFY(panel->statusText().contains(QStringLiteral("measured")));

        // A variant with #172 moved to 159 and its own samples: #172 keeps its samples at its new row,
        // and the dock compares with the original.
        QVERIFY(w.editController()->apply(Edit::move(Position(172), Position(159))).accepted);
        const int moved = session->variantTree()->currentVariantId();
        QVERIFY(moved != 0);
        QVERIFY(!lm->data(cell(lm, InstrId(172), ListingModel::SamplesColumn), ListingModel::SampleShareRole)
                     .isValid());
        QVERIFY2(session->measureQueue()->importStalls(
                     moved, fixture("sgemm_leakyrelu.moved.h100.stalls.json"), &error),
                 qPrintable(error));
        QCOMPARE(lm->positionOfOriginal(InstrId(172)).value_or(Position(UINT32_MAX)).value(), 159u);
        const QModelIndex movedCell = cell(lm, InstrId(172), ListingModel::SamplesColumn);
        QVERIFY(movedCell.data(ListingModel::SampleShareRole).toDouble() > 0);
        QVERIFY(movedCell.data(Qt::ToolTipRole).toString().contains(QStringLiteral("In the original")));
        for (const auto& r : panel->model()->rows()) {
            QVERIFY(r.variant && r.original);
            QVERIFY2(std::abs(*r.variant - *r.original) < 0.02, qPrintable(r.word)); // a one-instruction move
        }
        QVERIFY(
            panel->model()->index(0, StallsModel::DeltaColumn).data().toString().contains(QLatin1Char('.')));

        // The diff of the two shows each row's share on both sides; a variant without samples does not.
        w.diffView()->setVariants(0, moved);
        QVERIFY(w.diffView()->showsSamples());
        // A block row's tooltip summarises the block by reason.
        bool blockSummary = false;
        for (int row = 0; row < lm->rowCount() && !blockSummary; ++row)
            if (lm->index(row, 0).data(ListingModel::IsSeparatorRole).toBool())
                blockSummary = lm->index(row, ListingModel::InstructionColumn)
                                   .data(Qt::ToolTipRole)
                                   .toString()
                                   .contains(QStringLiteral("of the kernel's stall samples:\n  "));
        QVERIFY(blockSummary);

        // The gutter says where a consumer's warps wait: FFMA #137 waits on the LDS.128 #131's result.
        const auto& deps = session->variantTree()->analysis()->deps;
        bool described = false;
        for (uint32_t e : deps.incoming(137))
            if (w.listingPanel()->gutter()->describeEdge(int(e)).contains(QStringLiteral("MIO wait")))
                described = true;
        QVERIFY(described);

        // Samples of another kernel are refused and change nothing.
        QVERIFY(!session->measureQueue()->importStalls(moved, fixture("rmsnorm.h100.stalls.json"), &error));
        QVERIFY2(error.contains(QStringLiteral("rmsnorm")), qPrintable(error));
        QVERIFY(movedCell.data(ListingModel::SampleShareRole).toDouble() > 0);

        // Kept in the session file.
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("s.sassx.json"));
        QVERIFY(session->store()->save(file, &error));
        Session reopened;
        reopened.store()->setAutosaveInterval(0);
        QSignalSpy ready(&reopened, &Session::analysisReady);
        QVERIFY(reopened.store()->openSession(file, &error));
        QVERIFY(ready.wait(60000) || !ready.isEmpty());
        QTRY_VERIFY(reopened.variantTree()->variant(moved) && reopened.variantTree()->variant(moved)->stalls);
        QVERIFY(reopened.variantTree()->kernelStalls(0).has_value());

        // An edit drops the variant's samples: they belong to the schedule before it.
        QVERIFY(w.editController()->apply(Edit::move(Position(159), Position(160))).accepted);
        QVERIFY(!session->variantTree()->variant(session->variantTree()->currentVariantId())->stalls);
        w.diffView()->setVariants(0, session->variantTree()->currentVariantId());
        QVERIFY(!w.diffView()->showsSamples());
    }

    void noGpuNoSamples()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        session.measureQueue()->setEvaluator(std::make_shared<eval::EstimateEvaluator>());
        QVERIFY(test::openAndWait(session, cubin));
        QSignalSpy failed(session.measureQueue(), &MeasureQueue::stallsFailed);
        session.measureQueue()->sampleStalls(0);
        QVERIFY(failed.wait(60000) || !failed.isEmpty());
        QVERIFY2(failed.front().at(1).toString().contains(QStringLiteral("without a GPU")),
                 qPrintable(failed.front().at(1).toString()));
        QVERIFY(!session.variantTree()->variant(0)->stalls);
    }
};

QTEST_MAIN(TestStallsPanel)
#include "test_stalls_panel.moc"
