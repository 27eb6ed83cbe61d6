// Variant ▸ Import Cubin as Variant…: another cubin of the open kernel becomes a variant. A legal one
// (what `move` writes) is imported unmarked; one with two dependent instructions swapped is imported
// too, marked, with the checker's own refusals in its tooltip, and can be diffed, measured, undone,
// saved and restored like any other. Bad files change nothing and say why in one line.
#include "core/rewrite/block_positions.h"
#include "fake_evaluator.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/diff_view.h"
#include "widgets/export_actions.h"
#include "widgets/main_window.h"
#include "widgets/models/variants_model.h"
#include "widgets/variants_panel.h"

#include "core/session/session_file.h"

#include <QAbstractItemModelTester>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionViewItem>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <fstream>
#include <optional>

using namespace sassx;

namespace {

bool writeBytes(const QString& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream out(path.toStdString(), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return bool(out);
}

// A legal single move of the kernel's original order, and an adjacent swap the checker refuses for a
// register dependency (with the checker's first sentence about it).
struct Schedules
{
    Schedule legal;
    Schedule refused;
    std::string refusal;
};

bool makeSchedules(const KernelWorkspace& kernel, Schedules& out)
{
    const KernelAnalysis& a = kernel.analysis();
    const Schedule original = Schedule::identity(a);
    // A move between two equal words (a NOP among NOPs) would come back as ptxas' own order.
    const auto& insts = a.listing.instructions;
    constexpr uint64_t controlBits = 0x1FFFFFull << 41;
    std::optional<Schedule> legal;
    // In the original (identity) order the instruction at a position is the one with that InstrId.
    for (const auto& [from, to] : kernel.legalMoves(original, false))
        if (insts[from.value()].lo != insts[to.value()].lo ||
            (insts[from.value()].hi & ~controlBits) != (insts[to.value()].hi & ~controlBits))
            if (auto schedule = kernel.schedule({Edit::move(from, to)})) legal = *schedule;
    if (!legal) return false;
    out.legal = *legal;
    for (Position i(0); i + 1 < original.order.endIndex(); ++i) {
        if (blockAt(a.cfg, i) != blockAt(a.cfg, i + 1)) continue;
        const LegalityReport report = kernel.check({Edit::move(i, i + 1)});
        if (report.legal() || report.hazards.front().kind != HazardKind::Register) continue;
        out.refused = *kernel.schedule({Edit::move(i, i + 1)});
        out.refusal = report.hazards.front().message;
        return true;
    }
    return false;
}

} // namespace

class TestImportVariant : public QObject
{
    Q_OBJECT
private:
    QString m_cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // settings and autosaves in the test's own directories
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-import-variant"));
        QVERIFY(m_tmp.isValid());
    }

    void importMarksRefusals_data()
    {
        QTest::addColumn<QFont>("font");
        const auto [general, other] = test::twoFontFamilies();
        QTest::newRow(qPrintable(QFontInfo(general).family())) << general;
        QTest::newRow(qPrintable(QFontInfo(other).family() + QStringLiteral(" (second)"))) << other;
    }

    void importMarksRefusals()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        Session session;
        session.store()->setAutosaveInterval(0);
        QUndoStack undo;
        VariantsPanel panel(session.variantTree(), session.measureQueue(), &undo);
        panel.setFont(font);
        panel.resetColumns();
        panel.resize(700, 300);
        panel.show();
        QString error;
        QVERIFY2(test::openAndWait(session, m_cubin, &error), qPrintable(error));
        const auto kernel = session.variantTree()->kernel();
        Schedules s;
        QVERIFY2(makeSchedules(*kernel, s), "rmsnorm has no legal move or no refused dependent swap");
        const QString legalPath = m_tmp.filePath(QStringLiteral("legal.cubin"));
        const QString swapPath = m_tmp.filePath(QStringLiteral("swap.cubin"));
        auto legalBytes = kernel->write(s.legal);
        auto swapBytes = kernel->write(s.refused);
        QVERIFY2(legalBytes && swapBytes, "the writer refused a schedule");
        QVERIFY(writeBytes(legalPath, *legalBytes) && writeBytes(swapPath, *swapBytes));
        VariantTree* tree = session.variantTree();
        VariantsModel* model = panel.model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);

        // The legal export comes back as its schedule, unmarked.
        const int legal = panel.importCubin(legalPath, &error);
        QVERIFY2(legal > 0, qPrintable(error));
        QCOMPARE(tree->currentVariantId(), legal);
        QCOMPARE(tree->schedule().order, s.legal.order);
        QVERIFY(tree->schedule().control == s.legal.control);
        QVERIFY(tree->variant(legal)->imported && tree->variant(legal)->imported->checkedLegal());
        const QModelIndex legalName = model->indexOfVariant(legal, VariantsModel::NameColumn);
        QVERIFY(legalName.data(Qt::DecorationRole).isNull());
        QVERIFY(legalName.data(VariantsModel::CheckerRefusalsRole).toStringList().isEmpty());
        QVERIFY(
            legalName.data(Qt::ToolTipRole).toString().contains(QStringLiteral("accepts every difference")));

        // The swap is imported all the same, marked, with the checker's own sentence.
        const int swapped = panel.importCubin(swapPath, &error);
        QVERIFY2(swapped > legal, qPrintable(error));
        QCOMPARE(tree->schedule().order, s.refused.order);
        const QModelIndex name = model->indexOfVariant(swapped, VariantsModel::NameColumn);
        const QStringList refusals = name.data(VariantsModel::CheckerRefusalsRole).toStringList();
        QVERIFY(!refusals.isEmpty());
        QVERIFY2(
            refusals.join('\n').contains(QStringLiteral(": refused: ") + QString::fromStdString(s.refusal)),
            qPrintable(refusals.join('\n')));
        QVERIFY(!name.data(Qt::DecorationRole).value<QIcon>().isNull());
        const QString tip = name.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("not checked legal")) && tip.contains(swapPath),
                 qPrintable(tip));
        QVERIFY(tip.contains(QString::fromStdString(s.refusal)));
        // In either font the mark and the start of the name both show in the default name column.
        QStyleOptionViewItem cell;
        cell.initFrom(panel.tree());
        cell.features = QStyleOptionViewItem::HasDisplay | QStyleOptionViewItem::HasDecoration;
        cell.text = QStringLiteral("swap.cubin");
        const int icon = panel.tree()->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, panel.tree());
        cell.decorationSize = QSize(icon, icon);
        cell.rect = QRect(0, 0,
                          panel.tree()->header()->sectionSize(VariantsModel::NameColumn) -
                              panel.tree()->indentation(),
                          std::max(icon, cell.fontMetrics.height()));
        QStyle* style = panel.tree()->style();
        const QRect mark = style->subElementRect(QStyle::SE_ItemViewItemDecoration, &cell, panel.tree());
        const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &cell, panel.tree());
        QVERIFY2(cell.rect.contains(mark) && mark.width() >= icon,
                 qPrintable(QStringLiteral("mark %1 px").arg(mark.width())));
        QVERIFY2(text.width() >= cell.fontMetrics.horizontalAdvance(QStringLiteral("swap")),
                 qPrintable(QStringLiteral("%1 px left for the name").arg(text.width())));

        // Diffed like any variant.
        DiffView diff(tree);
        diff.setVariants(0, swapped);
        QVERIFY(diff.movedCount() >= 1);

        // Measured like any variant; the Measure button says the schedule is unchecked.
        session.setLaunchSpecPath(test::sampleSpec(QStringLiteral("rmsnorm")));
        session.measureQueue()->setEvaluator(std::make_shared<test::FakeEvaluator>());
        panel.selectVariants({swapped});
        QToolButton* measure = nullptr;
        for (QToolButton* b : panel.findChildren<QToolButton*>())
            if (b->text() == QStringLiteral("Measure")) measure = b;
        QVERIFY(measure);
        QTRY_VERIFY2(measure->toolTip().contains(QStringLiteral("not checked legal")),
                     qPrintable(measure->toolTip()));
        QSignalSpy finished(session.measureQueue(), &MeasureQueue::measureFinished);
        panel.measureSelected();
        QVERIFY(finished.wait(30000) || !finished.isEmpty());
        QVERIFY(tree->variant(swapped)->figures.has_value());
        QVERIFY(model->indexOfVariant(swapped, VariantsModel::SpeedupColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("not checked legal")));

        // Undo takes the import back, redo brings it (and its mark) again.
        undo.undo();
        QVERIFY(!tree->variant(swapped));
        undo.redo();
        QVERIFY(tree->variant(swapped) && tree->variant(swapped)->imported);

        // Saved and read back: the source and the refusals stay with the variant.
        const QString sessionPath = m_tmp.filePath(QStringLiteral("import.sassx"));
        QVERIFY2(session.store()->save(sessionPath, &error), qPrintable(error));
        auto file = readSessionFile(sessionPath.toStdString());
        QVERIFY2(file, file ? "" : file.message().c_str());
        const auto it = std::find_if(file->variants.begin(), file->variants.end(),
                                     [&](const VariantRecord& r) { return r.id == swapped; });
        QVERIFY(it != file->variants.end() && it->imported);
        QCOMPARE(QString::fromStdString(it->imported->path), swapPath);
        QCOMPARE(it->imported->refusals, tree->variant(swapped)->imported->refusals);
        QCOMPARE(it->edits, tree->variant(swapped)->edits);
    }

    // File ▸ Export ▸ Tuned Cubin of a refused import writes it, and the status bar says it is unchecked;
    // Variant ▸ Import Cubin as Variant… is in the menu.
    void exportSaysUnchecked_data() { test::addFontAndSizeRows(); }

    void exportSaysUnchecked()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        const auto window = test::newWindow();
        Session* session = window->session();
        window->resize(size);
        window->show();
        QString error;
        QVERIFY2(test::openAndWait(*session, m_cubin, &error), qPrintable(error));
        Schedules s;
        QVERIFY(makeSchedules(*session->variantTree()->kernel(), s));
        const QString swapPath = m_tmp.filePath(QStringLiteral("swap-export.cubin"));
        auto swapBytes = session->variantTree()->kernel()->write(s.refused);
        QVERIFY(swapBytes && writeBytes(swapPath, *swapBytes));
        QAction* import = nullptr;
        QAction* exportCubin = nullptr;
        for (QAction* a : window->findChildren<QAction*>()) {
            if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Import Cubin as Variant…")) import = a;
            if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Tuned Cubin…")) exportCubin = a;
        }
        QVERIFY(import && exportCubin);
        const QString exported = m_tmp.filePath(QStringLiteral("exported.cubin"));
        QTimer chooser;
        QString answering = swapPath;
        QObject::connect(&chooser, &QTimer::timeout, [&] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            auto* name = dialog ? dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit")) : nullptr;
            if (!name) return;
            dialog->setDirectory(QFileInfo(answering).absolutePath());
            name->setText(QFileInfo(answering).absoluteFilePath());
            static_cast<QDialog*>(dialog)->done(QDialog::Accepted);
        });
        chooser.start(40);
        import->trigger();
        const VariantRecord* current = session->variantTree()->currentVariant();
        QVERIFY(current && current->imported && !current->imported->checkedLegal());
        answering = exported;
        exportCubin->trigger();
        chooser.stop();
        QVERIFY(QFileInfo(exported).size() > 0);
        const QString message = window->statusBar()->currentMessage();
        QVERIFY2(message.contains(QStringLiteral("not checked legal")), qPrintable(message));
        // One parenthesis: "(variant swap-export.cubin, not checked legal: N refusal(s) by the checker)".
        QVERIFY2(message.contains(QStringLiteral("(variant %1, not checked legal: ")
                                      .arg(QString::fromStdString(current->name))) &&
                     !message.contains(QStringLiteral(", :")) && message.endsWith(QLatin1Char(')')),
                 qPrintable(message));
        // The name offered for the export drops the imported file's ".cubin".
        auto* exports = window->findChild<ExportActions*>();
        QVERIFY(exports);
        const QString offered = exports->tunedCubinFileName();
        QVERIFY2(offered.endsWith(QStringLiteral(".swap-export.tuned.cubin")) &&
                     !offered.contains(QStringLiteral(".cubin.tuned")),
                 qPrintable(offered));
    }

    void diffHeaderAndEstimateSayUnchecked_data() { test::addFontAndSizeRows(); }

    // The Diff dock's header and the status line of an estimate of a refused import both say that it is
    // not checked legal (as its tooltip, the Measure button and the HTML export do).
    void diffHeaderAndEstimateSayUnchecked()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        const auto window = test::newWindow();
        window->resize(size);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        Session* session = window->session();
        QString error;
        QVERIFY2(test::openAndWait(*session, m_cubin, &error), qPrintable(error));
        Schedules s;
        QVERIFY(makeSchedules(*session->variantTree()->kernel(), s));
        const QString swapPath = m_tmp.filePath(QStringLiteral("swap-header.cubin"));
        auto swapBytes = session->variantTree()->kernel()->write(s.refused);
        QVERIFY(swapBytes && writeBytes(swapPath, *swapBytes));
        const int swapped = window->variantsPanel()->importCubin(swapPath, &error);
        QVERIFY2(swapped > 0, qPrintable(error));
        const QString name = QString::fromStdString(session->variantTree()->variant(swapped)->name);
        const int refusals = int(session->variantTree()->variant(swapped)->imported->refusals.size());
        QVERIFY(refusals > 0);

        Q_EMIT window->variantsPanel()->diffRequested(0, swapped);
        auto* header = window->findChild<QLabel*>(QStringLiteral("diffSummary"));
        QVERIFY(header);
        QTRY_VERIFY(header->isVisible());
        qInfo("diff header: %s", qPrintable(header->text()));
        QVERIFY2(header->text().contains(name + QStringLiteral(" is not checked legal")),
                 qPrintable(header->text()));
        QVERIFY2(header->text().contains(QStringLiteral("%1 refusal").arg(refusals)),
                 qPrintable(header->text()));
        // The original against a legal edit says nothing of the kind.
        window->diffView()->setVariants(0, 0);
        QVERIFY(!header->text().contains(QStringLiteral("not checked legal")));

        session->measureQueue()->setEvaluator(std::make_shared<test::FakeEvaluator>());
        window->variantsPanel()->selectVariants({swapped});
        QSignalSpy finished(session->measureQueue(), &MeasureQueue::measureFinished);
        window->variantsPanel()->measureSelected();
        QVERIFY(finished.wait(30000) || !finished.isEmpty());
        const QString message = window->statusBar()->currentMessage();
        qInfo("status: %s", qPrintable(message));
        QVERIFY2(message.startsWith(QStringLiteral("Estimated ") + name), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("est.")) &&
                     message.contains(QStringLiteral("not checked legal")),
                 qPrintable(message));
    }

    // A file from before imports has no "imported": it loads, with none.
    void oldSessionFilesLoad()
    {
        VariantRecord original;
        original.name = "original";
        VariantRecord v;
        v.id = 1;
        v.parent = 0;
        v.name = "v1";
        v.edits = {Edit::move(Position(3), Position(4))};
        v.imported = VariantImport{"/x/best.cubin", {"FFMA at 0x0040 moved 1 down: refused: because"}};
        SessionFile f;
        f.input = "/x/k.cubin";
        f.variants = {original, v};
        nlohmann::json j = toJson(f);
        auto back = sessionFileFromJson(j);
        QVERIFY(back && back->variants[1].imported == v.imported);
        j["variants"][1].erase("imported");
        back = sessionFileFromJson(j);
        QVERIFY(back && !back->variants[1].imported);
        j["variants"][1]["imported"] = {{"path", 3}};
        back = sessionFileFromJson(j);
        QVERIFY(!back);
        QVERIFY(QString::fromStdString(back.message()).contains(QStringLiteral("imported")));
    }

    // Truncated, foreign and unrelated files: one line each, nothing added, nothing current changed.
    void badFilesChangeNothing()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        const QString other = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(other);
        Session session;
        session.store()->setAutosaveInterval(0);
        QUndoStack undo;
        VariantsPanel panel(session.variantTree(), session.measureQueue(), &undo);
        QString error;
        QVERIFY2(test::openAndWait(session, m_cubin, &error), qPrintable(error));
        QFile in(m_cubin);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        const QString truncated = m_tmp.filePath(QStringLiteral("truncated.cubin"));
        const QString garbage = m_tmp.filePath(QStringLiteral("garbage.json"));
        QFile t(truncated), g(garbage);
        QVERIFY(t.open(QIODevice::WriteOnly) && t.write(bytes.left(bytes.size() / 2)) > 0);
        QVERIFY(g.open(QIODevice::WriteOnly) && g.write("{\"edits\": 3") > 0);
        t.close();
        g.close();
        const size_t before = session.variantTree()->variants().size();
        const struct
        {
            QString path, says;
        } rows[] = {{truncated, QStringLiteral("truncated.cubin")},
                    {other, QStringLiteral("no kernel rmsnorm")},
                    {garbage, QStringLiteral("not valid JSON")},
                    {m_tmp.filePath(QStringLiteral("missing.cubin")), QStringLiteral("missing.cubin")}};
        for (const auto& row : rows) {
            error.clear();
            QCOMPARE(panel.importCubin(row.path, &error), -1);
            QVERIFY2(error.contains(row.says) && !error.contains(QLatin1Char('\n')), qPrintable(error));
            QCOMPARE(session.variantTree()->variants().size(), before);
            QCOMPARE(session.variantTree()->currentVariantId(), 0);
            QCOMPARE(undo.count(), 0);
        }
    }
};

QTEST_MAIN(TestImportVariant)
#include "test_import_variant.moc"
