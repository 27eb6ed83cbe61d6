// QAbstractItemModelTester over every model in widgets/models, through the changes the GUI makes:
// opening a kernel, switching variants, adding/removing/renaming variants, figures arriving.
#include "widget_test_support.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/metrics_model.h"
#include "widgets/models/variants_model.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace sassx;

class TestWidgetModels : public QObject
{
    Q_OBJECT
private:
    // A move of the first two instructions of the first block with two or more (structure only:
    // the models do not judge legality).
    static Edit someMove(const KernelAnalysis& a)
    {
        for (const auto& b : a.cfg.blocks)
            if (b.size() >= 2) return Edit::move(b.first + 1, b.first);
        return Edit::move(0, 0);
    }

private Q_SLOTS:
    void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("sassx-tests")); }

    void listingModel()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.setAutosaveInterval(0);
        ListingModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY2(test::openAndWait(session, cubin, &error), qPrintable(error));
        const auto& a = *session.analysis();
        QCOMPARE(model.rowCount(), int(a.listing.instructions.size() + a.cfg.blocks.size()));
        QVERIFY(model.data(model.index(0, 0), ListingModel::IsSeparatorRole).toBool());
        // Every instruction row maps back to itself.
        for (int row = 0; row < model.rowCount(); ++row) {
            const int orig = model.originalOfRow(row);
            if (orig >= 0) QCOMPARE(model.rowOfOriginal(orig), row);
        }
        // A memory instruction is flagged for the delegate.
        bool sawMemory = false;
        for (int row = 0; row < model.rowCount() && !sawMemory; ++row)
            sawMemory = model.index(row, 0).data(ListingModel::IsMemoryRole).toBool();
        QVERIFY(sawMemory);

        const Edit move = someMove(a);
        const int id = session.addVariant(0, QStringLiteral("moved"), {move});
        session.setCurrentVariant(id);
        const int row = model.rowOfPosition(int(move.to));
        QCOMPARE(model.originalOfRow(row), int(move.from));
        QVERIFY(model.index(row, ListingModel::AddressColumn).data(ListingModel::MovedRole).toBool());
        QVERIFY(
            !model.index(row, ListingModel::InstructionColumn).data(Qt::ToolTipRole).toString().isEmpty());
        // Control edit: the changed bits are flagged.
        session.setVariantEdits(id, {move, Edit::control(move.to, 9, std::nullopt, std::nullopt)});
        QCOMPARE(model.index(row, ListingModel::StallColumn).data(ListingModel::StallRole).toInt(), 9);
        QVERIFY(model.index(row, ListingModel::StallColumn).data(ListingModel::ControlChangedRole).toBool());
        session.setCurrentVariant(0);
        QVERIFY(!model.index(row, ListingModel::AddressColumn).data(ListingModel::MovedRole).toBool());
        for (int c = 0; c < ListingModel::ColumnCount; ++c)
            QVERIFY(!model.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    }

    void variantsModel()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.setAutosaveInterval(0);
        VariantsModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(test::openAndWait(session, cubin));
        QCOMPARE(model.rowCount(), 1); // the original
        const Edit move = someMove(*session.analysis());
        const int a = session.addVariant(0, QStringLiteral("a"), {move});
        const int b = session.addVariant(a, QStringLiteral("b"), {move, move});
        const int c = session.addVariant(0, QStringLiteral("c"), {});
        const QModelIndex original = model.index(0, 0);
        QCOMPARE(model.rowCount(original), 2);
        const QModelIndex ia = model.indexOfVariant(a);
        QCOMPARE(model.parent(model.indexOfVariant(b)), ia);
        QCOMPARE(model.data(model.indexOfVariant(b, VariantsModel::EditsColumn)).toInt(), 2);
        // Rename through the model (what the tree's editor does).
        QVERIFY(model.setData(ia, QStringLiteral("renamed")));
        QCOMPARE(QString::fromStdString(session.variant(a)->name), QStringLiteral("renamed"));
        QVERIFY(!model.setData(original, QStringLiteral("nope"))); // the original keeps its name
        // Figures arrive with their source.
        VariantRecord withFigures = *session.variant(c);
        withFigures.figures = VariantFigures{};
        withFigures.figures->result.correct = true;
        withFigures.figures->result.source = {"NVIDIA H100 80GB HBM3", "measured"};
        eval::TimingFigures t;
        t.ratio = {0.9, 0.88, 0.92, 20};
        withFigures.figures->result.timing = t;
        session.restoreVariant(withFigures);
        const QModelIndex ic = model.indexOfVariant(c, VariantsModel::SourceColumn);
        QCOMPARE(ic.data().toString(), QStringLiteral("measured on NVIDIA H100 80GB HBM3"));
        QVERIFY(model.indexOfVariant(c, VariantsModel::SpeedupColumn).data().toString().startsWith("1.111"));
        // Removing a parent moves its child up.
        QVERIFY(session.removeVariant(a));
        QCOMPARE(model.parent(model.indexOfVariant(b)), original);
        QCOMPARE(model.rowCount(original), 2);
        session.setCurrentVariant(b);
        QVERIFY(model.indexOfVariant(b).data(VariantsModel::IsCurrentRole).toBool());
    }

    void metricsModel()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.setAutosaveInterval(0);
        MetricsModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(test::openAndWait(session, cubin));
        const int v = session.addVariant(0, QStringLiteral("v"), {});
        model.setVariants({0, v});
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("—")); // no figures yet
        VariantRecord r = *session.variant(v);
        r.figures = VariantFigures{};
        r.figures->result.correct = true;
        r.figures->result.source = {"model", "estimate"};
        r.figures->result.metrics.push_back({"lts__t_sector_hit_rate.pct", 70.0, "%", {"model", "estimate"}});
        session.restoreVariant(r);
        int hitRow = -1;
        for (int row = 0; row < model.rowCount(); ++row)
            if (model.index(row, 1).data(MetricsModel::MetricNameRole).toString() ==
                "lts__t_sector_hit_rate.pct")
                hitRow = row;
        QVERIFY(hitRow >= 0);
        QCOMPARE(model.index(hitRow, 1).data(MetricsModel::ValueRole).toDouble(), 70.0);
        QCOMPARE(model.index(hitRow, 1).data(MetricsModel::SourceRole).toString(),
                 QStringLiteral("estimate"));
        QVERIFY(model.headerData(1, Qt::Horizontal).toString().contains(QStringLiteral("estimate")));
        session.removeVariant(v);
        QCOMPARE(model.columnCount(), 1);
    }
};

QTEST_MAIN(TestWidgetModels)
#include "test_widget_models.moc"
