// QAbstractItemModelTester over every model in widgets/models, through the changes the GUI makes:
// opening a kernel, switching variants, adding/removing/renaming variants, figures arriving. The
// variants tree also has to follow structural changes with row inserts/moves/removals (no reset) that
// keep a tree view's selection and expansion.
#include "core/cubin/cubin.h"
#include "core/rewrite/block_positions.h"
#include "widget_test_support.h"
#include "widgets/models/listing_feed.h"
#include "widgets/models/metrics_model.h"
#include "widgets/models/variants_model.h"
#include "widgets/variants_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QLineEdit>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <map>

using namespace sassx;

#define SASSX_COMPARE_TREE(model, session)                                                                   \
    do {                                                                                                     \
        const QString difference = treeDifference(model, session);                                           \
        QVERIFY2(difference.isEmpty(), qPrintable(difference));                                              \
    } while (0)

// The variants panel over a fresh session that never autosaves.
struct PanelFixture
{
    PanelFixture() { session.store()->setAutosaveInterval(0); }
    Session session;
    QUndoStack undo;
    VariantsPanel panel{session.variantTree(), session.measureQueue(), &undo};
};

class TestWidgetModels : public QObject
{
    Q_OBJECT
private:
    // A move of the first two instructions of the first block with two or more (structure only:
    // the models do not judge legality).
    static Edit someMove(const KernelAnalysis& a)
    {
        for (const auto& b : a.cfg.blocks)
            if (b.size() >= 2) return Edit::move(firstPosition(b) + 1, firstPosition(b));
        return Edit::move(Position(0), Position(0));
    }

    // Empty when the model's tree (read through its API only) is the session's: every variant once,
    // under its parent (the root when the parent is gone), siblings in ascending id order. Otherwise
    // the first difference.
    static QString treeDifference(const VariantsModel& model, const Session& session)
    {
        std::map<int, std::vector<int>> expected, actual;
        for (const VariantRecord& v : session.variantTree()->variants()) // sorted by id
            expected[session.variantTree()->variant(v.parent) ? v.parent : -1].push_back(v.id);
        size_t seen = 0;
        std::vector<std::pair<QModelIndex, int>> todo{{QModelIndex(), -1}};
        while (!todo.empty()) {
            const auto [parent, parentId] = todo.back();
            todo.pop_back();
            for (int row = 0; row < model.rowCount(parent); ++row) {
                const QModelIndex i = model.index(row, 0, parent);
                const int id = model.variantIdOf(i);
                if (model.parent(i) != parent) return QStringLiteral("parent() of %1 is wrong").arg(id);
                if (model.indexOfVariant(id) != i)
                    return QStringLiteral("indexOfVariant(%1) is wrong").arg(id);
                if (i.data(VariantsModel::VariantIdRole).toInt() != id)
                    return QStringLiteral("VariantIdRole of %1 is wrong").arg(id);
                actual[parentId].push_back(id);
                todo.push_back({i, id});
                if (++seen > session.variantTree()->variants().size())
                    return QStringLiteral("more rows than variants");
            }
        }
        for (const auto& [parent, children] : expected) {
            auto it = actual.find(parent);
            const std::vector<int> got = it == actual.end() ? std::vector<int>{} : it->second;
            if (got != children)
                return QStringLiteral("children of %1 differ (ids or order): model has %2, session %3")
                    .arg(parent)
                    .arg(got.size())
                    .arg(children.size());
        }
        return seen == session.variantTree()->variants().size() ? QString() : QStringLiteral("rows missing");
    }

    // Odd adds go under the original, even ones under any variant so far (nesting several deep).
    static int mixedParent(const std::vector<int>& ids, int i, QRandomGenerator& rng)
    {
        return i % 2 ? 0 : ids[size_t(rng.bounded(int(ids.size())))];
    }

    // True when `id` is `root` or below it in the session's tree.
    static bool isUnder(const Session& session, int id, int root)
    {
        for (const VariantRecord* v = session.variantTree()->variant(id); v;
             v = session.variantTree()->variant(v->parent))
            if (v->id == root) return true;
        return false;
    }

private Q_SLOTS:
    void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("sassx-tests")); }

    // A cubin nvdisasm cannot decode, opened after a kernel with a selected row: the error says where,
    // and the open kernel stays with its rows and selection, which still answer every role (the model
    // tester checks them).
    void failedLoadKeepsTheOpenKernel()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("garbage_code.cubin"));
        {
            auto parsed = Cubin::load(cubin.toStdString());
            QVERIFY(parsed.ok() && !parsed->kernels().empty());
            QFile in(cubin);
            QVERIFY(in.open(QIODevice::ReadOnly));
            QByteArray bytes = in.readAll();
            const auto& text = parsed->sections()[size_t(parsed->kernels().front().textSection)];
            for (uint64_t k = 0; k < text.size; ++k)
                bytes[qsizetype(text.offset + k)] = char(0xFF);
            QFile out(broken);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(bytes);
        }
        Session session;
        session.store()->setAutosaveInterval(0);
        ListingModel model;
        followVariantTree(&model, session.variantTree());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY2(test::openAndWait(session, cubin, &error), qPrintable(error));
        QVERIFY(model.rowCount() > 0);
        const int rows = model.rowCount();
        const auto analysis = session.variantTree()->analysis();
        session.variantTree()->setSelectedInstruction(3);
        QVERIFY(!test::openAndWait(session, broken, &error));
        // One line says how much could not be decoded and where; the decoder's lines follow as details.
        const QString firstLine = error.section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(firstLine.contains(QStringLiteral("nvdisasm cannot decode")) &&
                     firstLine.contains(QStringLiteral("instruction(s), first at 0x")),
                 qPrintable(error.left(300)));
        QVERIFY(error.contains(QLatin1Char('\n')));
        // A failed open changes nothing: the kernel on screen, its rows and its selection stay, and the
        // rows are that kernel's (the model never shows rows of an analysis that is gone).
        QCOMPARE(session.variantTree()->analysis(), analysis);
        QCOMPARE(model.rowCount(), rows);
        QCOMPARE(session.variantTree()->selectedInstruction(), 3);
        QCOMPARE(QFileInfo(session.inputPath()).fileName(), QFileInfo(cubin).fileName());
        // The same kernel opens again afterwards.
        QVERIFY2(test::openAndWait(session, cubin, &error), qPrintable(error));
        QVERIFY(model.rowCount() > 0);
    }

    void listingModel()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        ListingModel model;
        followVariantTree(&model, session.variantTree());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY2(test::openAndWait(session, cubin, &error), qPrintable(error));
        const auto& a = *session.variantTree()->analysis();
        QCOMPARE(model.rowCount(), int(a.listing.instructions.size() + a.cfg.blocks.size()));
        QVERIFY(model.data(model.index(0, 0), ListingModel::IsSeparatorRole).toBool());
        // Every instruction row maps back to itself.
        for (int row = 0; row < model.rowCount(); ++row) {
            const std::optional<InstrId> orig = model.originalOfRow(row);
            if (orig) QCOMPARE(model.rowOfOriginal(*orig), row);
        }
        // A memory instruction is flagged for the delegate.
        bool sawMemory = false;
        for (int row = 0; row < model.rowCount() && !sawMemory; ++row)
            sawMemory = model.index(row, 0).data(ListingModel::IsMemoryRole).toBool();
        QVERIFY(sawMemory);

        const Edit move = someMove(a);
        const int id = session.variantTree()->addVariant(0, QStringLiteral("moved"), {move});
        session.variantTree()->setCurrentVariant(id);
        const int row = model.rowOfPosition(move.to);
        // The variant moved the original (identity) order, where position move.from holds InstrId move.from.
        QCOMPARE(model.originalOfRow(row).value_or(InstrId(UINT32_MAX)).value(), move.from.value());
        QVERIFY(model.index(row, ListingModel::AddressColumn).data(ListingModel::MovedRole).toBool());
        QVERIFY(
            !model.index(row, ListingModel::InstructionColumn).data(Qt::ToolTipRole).toString().isEmpty());
        // Control edit: the changed bits are flagged.
        session.variantTree()->setVariantEdits(id,
                                               {move, Edit::control(move.to, 9, std::nullopt, std::nullopt)});
        QCOMPARE(model.index(row, ListingModel::StallColumn).data(ListingModel::StallRole).toInt(), 9);
        QVERIFY(model.index(row, ListingModel::StallColumn).data(ListingModel::ControlChangedRole).toBool());
        session.variantTree()->setCurrentVariant(0);
        QVERIFY(!model.index(row, ListingModel::AddressColumn).data(ListingModel::MovedRole).toBool());
        for (int c = 0; c < ListingModel::ColumnCount; ++c)
            QVERIFY(!model.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    }

    // The listing model owns the value it was handed: a tree that moves on (another variant current,
    // then another input) changes nothing in a model that does not follow it, and a reopened model
    // shows the tree's current variant again.
    void listingModelOwnsItsData()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        QString error;
        QVERIFY2(test::openAndWait(session, cubin, &error), qPrintable(error));
        VariantTree* tree = session.variantTree();
        ListingModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setListing(listingDataOf(*tree), listingStallsOf(*tree));
        const int rows = model.rowCount();
        QVERIFY(rows > 0);
        const Edit move = someMove(*session.variantTree()->analysis());
        const int row = model.rowOfPosition(move.to);
        const QString before = model.index(row, ListingModel::InstructionColumn).data().toString();
        // The original order is the identity: position move.to holds InstrId move.to.
        QCOMPARE(model.originalOfRow(row).value_or(InstrId(UINT32_MAX)).value(), move.to.value());

        tree->setCurrentVariant(tree->addVariant(0, QStringLiteral("moved"), {move}));
        QCOMPARE(resets.size(), 1);
        QCOMPARE(model.originalOfRow(row).value_or(InstrId(UINT32_MAX)).value(), move.to.value());
        QCOMPARE(model.index(row, ListingModel::InstructionColumn).data().toString(), before);
        QVERIFY(!model.index(row, ListingModel::AddressColumn).data(ListingModel::MovedRole).toBool());

        // Another kernel replaces the tree's; the model still holds (and shares) the old analysis.
        const QString other = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(other);
        QVERIFY2(test::openAndWait(session, other, &error), qPrintable(error));
        const auto& b = *session.variantTree()->analysis();
        const int otherRows = int(b.listing.instructions.size() + b.cfg.blocks.size());
        QVERIFY(otherRows != rows);
        QCOMPARE(model.rowCount(), rows);
        QCOMPARE(model.index(row, ListingModel::InstructionColumn).data().toString(), before);

        followVariantTree(&model, tree);
        QCOMPARE(model.rowCount(), otherRows);
        QCOMPARE(model.listing().analysis, session.variantTree()->analysis());
    }

    void variantsModel()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        VariantsModel model(session.variantTree(), session.measureQueue());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(test::openAndWait(session, cubin));
        QCOMPARE(model.rowCount(), 1); // the original
        const Edit move = someMove(*session.variantTree()->analysis());
        const int a = session.variantTree()->addVariant(0, QStringLiteral("a"), {move});
        const int b = session.variantTree()->addVariant(a, QStringLiteral("b"), {move, move});
        const int c = session.variantTree()->addVariant(0, QStringLiteral("c"), {});
        const QModelIndex original = model.index(0, 0);
        QCOMPARE(model.rowCount(original), 2);
        const QModelIndex ia = model.indexOfVariant(a);
        QCOMPARE(model.parent(model.indexOfVariant(b)), ia);
        QCOMPARE(model.data(model.indexOfVariant(b, VariantsModel::EditsColumn)).toInt(), 2);
        // Rename through the model (what the tree's editor does).
        QVERIFY(model.setData(ia, QStringLiteral("renamed")));
        QCOMPARE(QString::fromStdString(session.variantTree()->variant(a)->name), QStringLiteral("renamed"));
        QVERIFY(!model.setData(original, QStringLiteral("nope"))); // the original keeps its name
        // Figures arrive with their source.
        VariantRecord withFigures = *session.variantTree()->variant(c);
        withFigures.figures = VariantFigures{};
        withFigures.figures->result.correct = true;
        withFigures.figures->result.source = {"NVIDIA H100 80GB HBM3", sassx::eval::FigureKind::Measured};
        eval::TimingFigures t;
        t.ratio = {0.9, 0.88, 0.92, 20};
        withFigures.figures->result.timing = t;
        session.variantTree()->restoreVariant(withFigures);
        const QModelIndex ic = model.indexOfVariant(c, VariantsModel::SourceColumn);
        QCOMPARE(ic.data().toString(), QStringLiteral("measured on NVIDIA H100 80GB HBM3"));
        QVERIFY(model.indexOfVariant(c, VariantsModel::SpeedupColumn).data().toString().startsWith("1.111"));
        // Removing a parent moves its child up.
        QVERIFY(session.variantTree()->removeVariant(a));
        QCOMPARE(model.parent(model.indexOfVariant(b)), original);
        QCOMPARE(model.rowCount(original), 2);
        session.variantTree()->setCurrentVariant(b);
        QVERIFY(model.indexOfVariant(b).data(VariantsModel::IsCurrentRole).toBool());
    }

    // 200 adds under mixed parents, then removing a variant with children, with the tester aborting on
    // any inconsistent signal. Adding and removing must never reset (a reset drops every view's
    // selection and expansion).
    void variantsModelInsertsAndRemovesRows()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        VariantsModel model(session.variantTree(), session.measureQueue());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QVERIFY(test::openAndWait(session, cubin));
        SASSX_COMPARE_TREE(model, session);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        const Edit move = someMove(*session.variantTree()->analysis());
        QRandomGenerator rng(20261122);
        std::vector<int> ids{0};
        for (int i = 0; i < 200; ++i) {
            const int parent = mixedParent(ids, i, rng);
            ids.push_back(session.variantTree()->addVariant(parent, QStringLiteral("v%1").arg(i), {move}));
            QCOMPARE(model.parent(model.indexOfVariant(ids.back())), model.indexOfVariant(parent));
            const QString diff = treeDifference(model, session);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("after add %1: %2").arg(i).arg(diff)));
        }
        QCOMPARE(resets.size(), 0);
        QCOMPARE(inserted.size(), 200);

        // A nested variant with children is removed: its children move to its parent.
        int victim = -1;
        for (int id : ids)
            if (id != 0 && session.variantTree()->childrenOf(id).size() >= 2 &&
                session.variantTree()->variant(id)->parent != 0)
                victim = id;
        QVERIFY(victim > 0);
        const int victimParent = session.variantTree()->variant(victim)->parent;
        const std::vector<int> orphans = session.variantTree()->childrenOf(victim);
        QVERIFY(session.variantTree()->removeVariant(victim));
        SASSX_COMPARE_TREE(model, session);
        QVERIFY(!model.indexOfVariant(victim).isValid());
        for (int c : orphans)
            QCOMPARE(model.parent(model.indexOfVariant(c)), model.indexOfVariant(victimParent));
        QCOMPARE(moved.size(), int(orphans.size()));
        QCOMPARE(removed.size(), 1);
        // A leaf under the original goes too.
        const int leaf = session.variantTree()->addVariant(0, QStringLiteral("leaf"), {move});
        QVERIFY(session.variantTree()->removeVariant(leaf));
        SASSX_COMPARE_TREE(model, session);
        QCOMPARE(removed.size(), 2);
        QCOMPARE(resets.size(), 0);
    }

    // Reparenting through restoreVariant (what undo does): a leaf, a whole subtree, a parent that does
    // not exist yet and then appears.
    void variantsModelMovesRows()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        VariantsModel model(session.variantTree(), session.measureQueue());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QVERIFY(test::openAndWait(session, cubin));
        const Edit move = someMove(*session.variantTree()->analysis());
        QRandomGenerator rng(7);
        std::vector<int> ids{0};
        for (int i = 0; i < 60; ++i)
            ids.push_back(session.variantTree()->addVariant(mixedParent(ids, i, rng),
                                                            QStringLiteral("v%1").arg(i), {move}));
        SASSX_COMPARE_TREE(model, session);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);

        int leaf = -1, branch = -1;
        for (int id : ids)
            if (id != 0 && session.variantTree()->variant(id)->parent == 0) {
                if (session.variantTree()->childrenOf(id).empty() && leaf < 0) leaf = id;
                if (!session.variantTree()->childrenOf(id).empty() && branch < 0) branch = id;
            }
        QVERIFY(leaf > 0 && branch > 0);
        VariantRecord r = *session.variantTree()->variant(leaf);
        r.parent = branch;
        session.variantTree()->restoreVariant(r);
        QCOMPARE(model.parent(model.indexOfVariant(leaf)), model.indexOfVariant(branch));
        SASSX_COMPARE_TREE(model, session);
        int target = -1; // any variant outside branch's subtree, other than the original
        for (int id : ids)
            if (id != 0 && !isUnder(session, id, branch) && target < 0) target = id;
        QVERIFY(target > 0);
        r = *session.variantTree()->variant(branch);
        r.parent = target;
        session.variantTree()->restoreVariant(r);
        QCOMPARE(model.parent(model.indexOfVariant(branch)), model.indexOfVariant(target));
        SASSX_COMPARE_TREE(model, session);
        QCOMPARE(moved.size(), 2);

        // A parent that does not exist puts the row at the root; when that id is created the row moves
        // under it (what a full rebuild would show).
        const int missing = session.variantTree()->nextVariantId() + 5;
        r = *session.variantTree()->variant(leaf);
        r.parent = missing;
        session.variantTree()->restoreVariant(r);
        QCOMPARE(model.parent(model.indexOfVariant(leaf)), QModelIndex());
        SASSX_COMPARE_TREE(model, session);
        session.variantTree()->addVariant(0, QStringLiteral("late parent"), {move}, missing);
        QCOMPARE(model.parent(model.indexOfVariant(leaf)), model.indexOfVariant(missing));
        SASSX_COMPARE_TREE(model, session);
        QCOMPARE(resets.size(), 0);

        // A parent cycle (only a hand-made record can make one) must not lose rows or break the model.
        r = *session.variantTree()->variant(missing);
        r.parent = leaf; // leaf hangs under `missing`
        session.variantTree()->restoreVariant(r);
        int reachable = 0;
        std::vector<QModelIndex> todo{QModelIndex()};
        while (!todo.empty()) {
            const QModelIndex p = todo.back();
            todo.pop_back();
            for (int row = 0; row < model.rowCount(p); ++row, ++reachable)
                todo.push_back(model.index(row, 0, p));
        }
        QCOMPARE(reachable, int(session.variantTree()->variants().size()));
    }

    // Renaming and switching the current variant change single rows; replacing the whole list
    // (reopening the kernel) is the one reset.
    void variantsModelChangesAndResets()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        VariantsModel model(session.variantTree(), session.measureQueue());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QVERIFY(test::openAndWait(session, cubin));
        const Edit move = someMove(*session.variantTree()->analysis());
        for (int i = 0; i < 20; ++i)
            session.variantTree()->addVariant(i % 3 ? 0 : session.variantTree()->nextVariantId() - 1,
                                              QStringLiteral("v%1").arg(i), {move});
        const int v = session.variantTree()->variants().back().id;
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        session.variantTree()->renameVariant(v, QStringLiteral("renamed"));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.front().front().value<QModelIndex>(), model.indexOfVariant(v));
        QCOMPARE(model.indexOfVariant(v).data().toString(), QStringLiteral("renamed"));
        // Switching the current variant repaints the old and the new current rows only.
        changed.clear();
        session.variantTree()->setCurrentVariant(v);
        QCOMPARE(changed.size(), 2);
        QVERIFY(model.indexOfVariant(v).data(VariantsModel::IsCurrentRole).toBool());
        QVERIFY(!model.indexOfVariant(0).data(VariantsModel::IsCurrentRole).toBool());
        QCOMPARE(resets.size(), 0);

        // The whole list replaced (the kernel reopened): a reset, then the one original.
        QVERIFY(test::openAndWait(session, cubin));
        QVERIFY(resets.size() >= 1);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
        SASSX_COMPARE_TREE(model, session);
        const int after = session.variantTree()->addVariant(0, QStringLiteral("after reset"), {move});
        QCOMPARE(model.parent(model.indexOfVariant(after)), model.index(0, 0));
        SASSX_COMPARE_TREE(model, session);
    }

    // In the panel's tree view, 100 insertions (and moving the selected row) keep the user's selection
    // and expansion; a parent that gets its first child is expanded so the new row shows.
    void variantsPanelKeepsSelectionAndExpansion()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        PanelFixture f;
        Session& session = f.session;
        VariantsPanel& panel = f.panel;
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
        panel.resize(600, 400);
        panel.show();
        QVERIFY(test::openAndWait(session, cubin));
        const Edit move = someMove(*session.variantTree()->analysis());
        const int a = session.variantTree()->addVariant(0, QStringLiteral("a"), {move});
        const int b = session.variantTree()->addVariant(0, QStringLiteral("b"), {move});
        const int a1 = session.variantTree()->addVariant(a, QStringLiteral("a1"), {move, move});
        const int b1 = session.variantTree()->addVariant(b, QStringLiteral("b1"), {move, move});
        QTreeView* tree = panel.tree();
        VariantsModel* model = panel.model();
        QVERIFY(tree->isExpanded(model->indexOfVariant(a))); // got its first child: expanded
        tree->collapse(model->indexOfVariant(b));            // the user folds b away
        panel.selectVariants({a1, b});
        const std::vector<int> selected{b, a1}; // selectedVariants() sorts by id
        QCOMPARE(panel.selectedVariants(), selected);

        QSignalSpy resets(model, &QAbstractItemModel::modelReset);
        int leaf = -1;
        for (int i = 0; i < 100; ++i) {
            const int parent = i % 4 == 0 ? b : i % 4 == 1 ? a1 : 0;
            const int id = session.variantTree()->addVariant(parent, QStringLiteral("n%1").arg(i), {move});
            if (i == 2) leaf = id;
            if (i % 10 == 0) QCoreApplication::processEvents();
        }
        // One more under a leaf that had no children.
        session.variantTree()->addVariant(leaf, QStringLiteral("under a leaf"), {move});
        QCoreApplication::processEvents();
        QCOMPARE(panel.selectedVariants(), selected);
        QVERIFY(tree->selectionModel()->isRowSelected(model->indexOfVariant(a1).row(),
                                                      model->indexOfVariant(a1).parent()));
        QVERIFY(!tree->isExpanded(model->indexOfVariant(b))); // still folded
        QVERIFY(tree->isExpanded(model->indexOfVariant(0)));
        QVERIFY(tree->isExpanded(model->indexOfVariant(a)));
        QVERIFY(tree->isExpanded(model->indexOfVariant(a1))); // got children while selected
        QVERIFY(tree->isExpanded(model->indexOfVariant(leaf)));
        QCOMPARE(resets.size(), 0);

        // The selected a1 moves under b1 (undo of a delete does this): still selected, b1 expanded.
        VariantRecord r = *session.variantTree()->variant(a1);
        r.parent = b1;
        session.variantTree()->restoreVariant(r);
        QCoreApplication::processEvents();
        QCOMPARE(panel.selectedVariants(), selected);
        QVERIFY(tree->isExpanded(model->indexOfVariant(b1)));
        QVERIFY(!tree->isExpanded(model->indexOfVariant(b)));
        // Removing another variant keeps the selection too.
        QVERIFY(session.variantTree()->removeVariant(a));
        QCOMPARE(panel.selectedVariants(), selected);
        QCOMPARE(resets.size(), 0);
        SASSX_COMPARE_TREE(*model, session);
    }

    // F2 renames the selected variant's name cell whatever column is current, and does nothing (and
    // prints nothing) on the original, whose name is fixed.
    void variantsPanelRenamesWithF2()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        PanelFixture f;
        Session& session = f.session;
        VariantsPanel& panel = f.panel;
        panel.resize(600, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(test::openAndWait(session, cubin));
        const int v = session.variantTree()->addVariant(0, QStringLiteral("v"),
                                                        {someMove(*session.variantTree()->analysis())});
        QTreeView* tree = panel.tree();
        static QStringList warnings;
        warnings.clear();
        const QtMessageHandler previous = qInstallMessageHandler(
            [](QtMsgType, const QMessageLogContext&, const QString& m) { warnings << m; });
        // The original: nothing to edit.
        panel.selectVariants({0});
        tree->setCurrentIndex(panel.model()->indexOfVariant(0, VariantsModel::NameColumn + 1));
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_F2);
        QVERIFY(!qobject_cast<QLineEdit*>(QApplication::focusWidget())); // no editor opened
        // A variant, with another column current: its name cell opens for editing.
        panel.selectVariants({v});
        tree->setCurrentIndex(panel.model()->indexOfVariant(v, VariantsModel::NameColumn + 1));
        QTest::keyClick(tree, Qt::Key_F2);
        qInstallMessageHandler(previous);
        auto* editor = qobject_cast<QLineEdit*>(QApplication::focusWidget());
        QVERIFY(editor);
        QCOMPARE(editor->text(), QStringLiteral("v"));
        QVERIFY2(warnings.filter(QStringLiteral("editing failed")).isEmpty(),
                 qPrintable(warnings.join('\n')));
    }

    void metricsModel()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        MetricsModel model(session.variantTree());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(test::openAndWait(session, cubin));
        const int v = session.variantTree()->addVariant(0, QStringLiteral("v"), {});
        model.setVariants({0, v});
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("—")); // no figures yet
        VariantRecord r = *session.variantTree()->variant(v);
        r.figures = VariantFigures{};
        r.figures->result.correct = true;
        r.figures->result.source = {"model", sassx::eval::FigureKind::Estimate};
        r.figures->result.metrics.push_back(
            {"lts__t_sector_hit_rate.pct", 70.0, "%", {"model", sassx::eval::FigureKind::Estimate}});
        session.variantTree()->restoreVariant(r);
        int hitRow = -1;
        for (int row = 0; row < model.rowCount(); ++row)
            if (model.index(row, 1).data(MetricsModel::MetricNameRole).toString() ==
                "lts__t_sector_hit_rate.pct")
                hitRow = row;
        QVERIFY(hitRow >= 0);
        // The timing rows come first and say which they are by their row kind, a named figure by its name.
        QCOMPARE(model.index(0, 1).data(MetricsModel::MetricRowRole).toInt(), int(MetricRow::Speedup));
        QCOMPARE(model.index(0, 1).data(MetricsModel::MetricNameRole).toString(), QStringLiteral("speedup"));
        QCOMPARE(model.index(1, 1).data(MetricsModel::MetricRowRole).toInt(), int(MetricRow::Time));
        QCOMPARE(model.index(1, 1).data(MetricsModel::MetricNameRole).toString(), QStringLiteral("time"));
        QCOMPARE(model.index(hitRow, 1).data(MetricsModel::MetricRowRole).toInt(), int(MetricRow::Named));
        QCOMPARE(model.index(hitRow, 1).data(MetricsModel::ValueRole).toDouble(), 70.0);
        QCOMPARE(model.index(hitRow, 1).data(MetricsModel::SourceRole).toString(),
                 QStringLiteral("estimate"));
        QVERIFY(model.headerData(1, Qt::Horizontal).toString().contains(QStringLiteral("estimate")));
        session.variantTree()->removeVariant(v);
        QCOMPARE(model.columnCount(), 1);
    }
};

QTEST_MAIN(TestWidgetModels)
#include "test_widget_models.moc"
