// Source beside the SASS in the explorer, on the captured Triton attention kernel (its .py one directory
// up) and a CUDA sample without line tables: the Source model (QAbstractItemModelTester), the listing's
// Source column, choosing a line in the Source dock highlighting and selecting its instructions in the
// listing and the listing's selection choosing the line back, a variant's changes per line, and the
// dock's layout in two font families.
#include "core/session/session.h"
#include "widget_test_support.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/source_model.h"
#include "widgets/source_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace sassx;

namespace {

const QString kAttention =
    QStringLiteral(SASSX_SOURCE_DIR "/samples/triton/captured/attention_fwd.sm_90.cubin");

struct Window
{
    Session* session = new Session;
    std::unique_ptr<MainWindow> window;
    SourcePanel* panel = nullptr;
    ListingModel* listing = nullptr;
    ListingView* view = nullptr;

    bool open(const QString& path, QString* error)
    {
        session->store()->setAutosaveInterval(0);
        window = std::make_unique<MainWindow>(session);
        session->setParent(window.get());
        panel = window->findChild<SourcePanel*>();
        view = window->listingPanel()->view();
        listing = view->listingModel();
        return panel && test::openAndWait(*session, path, error);
    }
};

// The Source model's row of `file:line`, -1 when it has none.
int rowOf(const SourceModel* m, const QString& location)
{
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, SourceModel::LineColumn).data().toString() == location) return r;
    return -1;
}

std::vector<InstrId> highlighted(const ListingModel* m)
{
    std::vector<InstrId> out;
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, ListingModel::AddressColumn).data(ListingModel::SourceHighlightRole).toBool())
            out.push_back(m->originalOfRow(r).value_or(InstrId(UINT32_MAX)));
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class TestSourcePanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-source"));
        QSettings().clear();
    }
    // Each test starts from the default layout: showing the Source column is remembered.
    void init() { QSettings().clear(); }
    void modelAndListingColumn();
    void chosenLineSelectsInstructions();
    void listingSelectionChoosesLine();
    void variantChangesPerLine();
    void withoutLineTablesSaysSo();
    void layoutInTwoFonts_data();
    void layoutInTwoFonts();
    void sourceFolderFindsMissingFiles_data();
    void sourceFolderFindsMissingFiles();
};

void TestSourcePanel::modelAndListingColumn()
{
    Window w;
    QString error;
    QVERIFY2(w.open(kAttention, &error), qPrintable(error));
    QAbstractItemModelTester sourceTester(w.panel->model(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester listingTester(w.listing, QAbstractItemModelTester::FailureReportingMode::QtTest);
    SourceModel* m = w.panel->model();
    // attention.py's 17 lines and the 4 of Triton's standard.py (nvdisasm --print-line-info agrees:
    // test_source_map), every instruction on exactly one of them.
    QCOMPARE(m->rowCount(), 21);
    int instructions = 0;
    for (int r = 0; r < m->rowCount(); ++r)
        instructions += m->index(r, SourceModel::InstructionsColumn).data().toInt();
    QCOMPARE(instructions, int(w.session->variantTree()->analysis()->listing.instructions.size()));
    const int line16 = rowOf(m, QStringLiteral("attention.py:16"));
    QVERIFY(line16 >= 0);
    QCOMPARE(m->index(line16, SourceModel::InstructionsColumn).data().toInt(), 1);
    // The text comes from samples/triton/attention.py, one directory above the cubin.
    QCOMPARE(m->index(line16, SourceModel::TextColumn).data().toString(),
             QStringLiteral("bh = tl.program_id(1)"));
    QVERIFY(m->index(line16, SourceModel::SamplesColumn).data().toString().isEmpty()); // no samples
    QVERIFY(m->index(line16, SourceModel::ChangedColumn).data().toString().isEmpty()); // the original
    QVERIFY2(w.panel->statusText().startsWith(QStringLiteral("21 source line(s)")),
             qPrintable(w.panel->statusText()));
    // The listing: /*0010*/ says where it came from, the tooltip adds the text and the PTX line.
    QVERIFY(!w.listing->isColumnEmpty(ListingModel::SourceColumn));
    // Hidden until asked for (the other columns fill the default width); the dock's check box shows it.
    QVERIFY(w.view->isColumnHidden(ListingModel::SourceColumn));
    QVERIFY(!w.panel->columnToggle()->isChecked());
    w.panel->columnToggle()->click();
    QVERIFY(!w.view->isColumnHidden(ListingModel::SourceColumn));
    QVERIFY(!w.view->isColumnNarrowed(ListingModel::SourceColumn));
    const QModelIndex s2ur =
        w.listing->index(w.listing->rowOfOriginal(InstrId(1)), ListingModel::SourceColumn);
    QCOMPARE(s2ur.data().toString(), QStringLiteral("attention.py:16"));
    const QString tip = s2ur.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("bh = tl.program_id(1)")) &&
                 tip.contains(QStringLiteral("PTX line 42")),
             qPrintable(tip));
    QCOMPARE(w.listing->headerData(ListingModel::SourceColumn, Qt::Horizontal).toString(),
             QStringLiteral("Source"));
    // Block separators have no source.
    QVERIFY(w.listing->index(0, ListingModel::SourceColumn).data().toString().isEmpty());
}

void TestSourcePanel::chosenLineSelectsInstructions()
{
    Window w;
    QString error;
    QVERIFY2(w.open(kAttention, &error), qPrintable(error));
    SourceModel* m = w.panel->model();
    QVERIFY(highlighted(w.listing).empty());
    // One instruction: it becomes the selected one, and the only one highlighted.
    w.panel->chooseLine(rowOf(m, QStringLiteral("attention.py:16")));
    QCOMPARE(w.session->variantTree()->selectedInstruction(), 1);
    QCOMPARE(w.view->currentIndex().row(), w.listing->rowOfOriginal(InstrId(1)));
    QCOMPARE(highlighted(w.listing), std::vector<InstrId>{InstrId(1)});
    // A line of many: all of them light up; the first in the listing's order is selected.
    const int line22 = rowOf(m, QStringLiteral("attention.py:22"));
    w.panel->chooseLine(line22);
    const auto& lines = m->lines().lines[size_t(line22)];
    QCOMPARE(lines.instructions.size(), size_t(56));
    QCOMPARE(highlighted(w.listing), lines.instructions);
    QCOMPARE(w.session->variantTree()->selectedInstruction(), int(lines.instructions.front().value()));
    QVERIFY(!w.listing->isHighlighted(InstrId(1)));
}

void TestSourcePanel::listingSelectionChoosesLine()
{
    Window w;
    QString error;
    QVERIFY2(w.open(kAttention, &error), qPrintable(error));
    SourceModel* m = w.panel->model();
    const int line31 = rowOf(m, QStringLiteral("attention.py:31"));
    const auto& instructions = m->lines().lines[size_t(line31)].instructions;
    // Selecting an instruction in the middle of the line chooses the line; the selection stays put.
    const InstrId middle = instructions[instructions.size() / 2];
    w.view->setCurrentIndex(
        w.listing->index(w.listing->rowOfOriginal(middle), ListingModel::InstructionColumn));
    QCOMPARE(w.session->variantTree()->selectedInstruction(), int(middle.value()));
    QCOMPARE(w.panel->currentLine(), line31);
    QCOMPARE(highlighted(w.listing), instructions);
    // And another: the highlight follows.
    w.view->setCurrentIndex(
        w.listing->index(w.listing->rowOfOriginal(InstrId(1)), ListingModel::InstructionColumn));
    QCOMPARE(w.panel->currentLine(), rowOf(m, QStringLiteral("attention.py:16")));
    QCOMPARE(highlighted(w.listing), std::vector<InstrId>{InstrId(1)});
}

void TestSourcePanel::variantChangesPerLine()
{
    Window w;
    QString error;
    QVERIFY2(w.open(kAttention, &error), qPrintable(error));
    VariantTree* tree = w.session->variantTree();
    const auto moves = tree->kernel()->legalMoves(tree->schedule(), true);
    QVERIFY(!moves.empty());
    const auto [from, to] = moves.front();
    const InstrId movedInstruction = tree->schedule().order[from];
    w.panel->chooseLine(w.panel->model()->rowOfInstruction(movedInstruction));
    const int id = tree->addVariant(0, QStringLiteral("one move"), {Edit::move(from, to)});
    tree->setCurrentVariant(id);
    SourceModel* m = w.panel->model();
    int changed = 0;
    for (int r = 0; r < m->rowCount(); ++r)
        changed += m->index(r, SourceModel::ChangedColumn).data().toInt();
    QVERIFY(changed >= 1 && changed <= 2);
    // Every line that counts a change holds an instruction whose position changed.
    const IndexVector<InstrId, Position> position = tree->schedule().positionOf();
    for (int r = 0; r < m->rowCount(); ++r) {
        if (!m->index(r, SourceModel::ChangedColumn).data().toInt()) continue;
        const auto& instructions = m->lines().lines[size_t(r)].instructions;
        // Where ptxas put it, in the original (identity) order, an instruction's position is its InstrId.
        QVERIFY(std::any_of(instructions.begin(), instructions.end(),
                            [&](InstrId i) { return position[i].value() != i.value(); }));
    }
    const int row = m->rowOfInstruction(movedInstruction);
    // The chosen line stays chosen, its instructions still lit, across the schedule change.
    QCOMPARE(w.panel->currentLine(), row);
    QVERIFY(w.listing->isHighlighted(movedInstruction));
    // Back to the original: nothing changed anywhere.
    tree->setCurrentVariant(0);
    for (int r = 0; r < m->rowCount(); ++r)
        QVERIFY(m->index(r, SourceModel::ChangedColumn).data().toString().isEmpty());
}

void TestSourcePanel::withoutLineTablesSaysSo()
{
    const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
    SASSX_REQUIRE_SAMPLE(cubin);
    Window w;
    QString error;
    QVERIFY2(w.open(cubin, &error), qPrintable(error));
    QAbstractItemModelTester tester(w.panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(w.panel->model()->rowCount(), 0);
    QVERIFY2(w.panel->statusText().contains(QStringLiteral("-lineinfo")), qPrintable(w.panel->statusText()));
    QVERIFY(w.listing->isColumnEmpty(ListingModel::SourceColumn));
    // Then a kernel with line tables in the same window: the dock and the column come back.
    QVERIFY2(test::openAndWait(*w.session, kAttention, &error), qPrintable(error));
    QCOMPARE(w.panel->model()->rowCount(), 21);
    QVERIFY(!w.listing->isColumnEmpty(ListingModel::SourceColumn));
    QVERIFY(highlighted(w.listing).empty());
}

void TestSourcePanel::layoutInTwoFonts_data()
{
    QTest::addColumn<QFont>("font");
    const auto [general, other] = test::twoFontFamilies();
    QTest::newRow("general") << general;
    QTest::newRow("other") << other;
}

// The line names and counts are never cut off, whatever the font: the columns fit their contents.
void TestSourcePanel::layoutInTwoFonts()
{
    QFETCH(QFont, font);
    struct RestoreFont
    {
        QFont font = QApplication::font();
        ~RestoreFont() { QApplication::setFont(font); }
    } restore;
    QApplication::setFont(font);
    Window w;
    QString error;
    QVERIFY2(w.open(kAttention, &error), qPrintable(error));
    QDockWidget* dock = w.window->findChild<QDockWidget*>(QStringLiteral("sourceDock"));
    QVERIFY(dock);
    w.window->show();
    dock->show();
    dock->raise();
    QVERIFY(QTest::qWaitForWindowExposed(w.window.get()));
    QTableView* table = w.panel->table();
    const QFontMetrics fm(table->font());
    SourceModel* m = w.panel->model();
    for (int r = 0; r < m->rowCount(); ++r)
        for (int c : {int(SourceModel::LineColumn), int(SourceModel::InstructionsColumn)}) {
            const QString text = m->index(r, c).data().toString();
            QVERIFY2(table->columnWidth(c) >= fm.horizontalAdvance(text),
                     qPrintable(QStringLiteral("%1 in %2 px").arg(text).arg(table->columnWidth(c))));
        }
    // The listing's Source column, once shown, is as wide as its widest "file:line".
    w.panel->columnToggle()->click();
    QVERIFY(!w.view->isColumnHidden(ListingModel::SourceColumn));
    const QFontMetrics lfm(w.view->font());
    int widest = 0;
    for (int r = 0; r < w.listing->rowCount(); ++r)
        widest = std::max(
            widest, lfm.horizontalAdvance(w.listing->index(r, ListingModel::SourceColumn).data().toString()));
    QVERIFY2(w.view->columnWidth(ListingModel::SourceColumn) >= widest,
             qPrintable(
                 QStringLiteral("%1 < %2").arg(w.view->columnWidth(ListingModel::SourceColumn)).arg(widest)));
    // Building the map (decoding both line tables, reading the .py) and the rows is quick enough for the
    // UI thread; the figures are printed for docs, not judged (they depend on the machine).
    QElapsedTimer timer;
    timer.start();
    auto map = kernelSourceMap(*w.session->variantTree()->kernel());
    QVERIFY(map);
    const qint64 build = timer.nsecsElapsed();
    const auto rows = summarizeSourceLines(*map);
    const qint64 summarize = timer.nsecsElapsed() - build;
    timer.restart();
    w.panel->refresh();
    qInfo("source map %.2f ms, rows %.2f ms, dock refresh %.2f ms (%zu lines)", double(build) / 1e6,
          double(summarize) / 1e6, double(timer.nsecsElapsed()) / 1e6, rows.size());
}

void TestSourcePanel::sourceFolderFindsMissingFiles_data()
{
    test::addFontAndSizeRows();
}

// The attention cubin copied where the files its line tables name are neither at the recorded path nor
// beside it (those that are not on this machine at all): the dock says they are not found and their lines
// have no text. Pointed at a folder holding it (Source Folder…), the dock
// and the listing's Source column show the text; the session is modified, and a saved session reopens
// with the folder and the text.
void TestSourcePanel::sourceFolderFindsMissingFiles()
{
    QFETCH(QFont, font);
    QFETCH(QSize, size);
    struct RestoreFont
    {
        QFont font = QApplication::font();
        ~RestoreFont() { QApplication::setFont(font); }
    } restore;
    QApplication::setFont(font);
    QTemporaryDir tmp;
    QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("kernels/cubins"))));
    QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("checkout"))));
    const QString cubin = tmp.filePath(QStringLiteral("kernels/cubins/attention_fwd.sm_90.cubin"));
    QVERIFY(QFile::copy(kAttention, cubin));
    Window w;
    QString error;
    QVERIFY2(w.open(cubin, &error), qPrintable(error));
    w.window->resize(size);
    w.window->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.window.get()));
    const std::shared_ptr<const SourceMap> before = w.panel->model()->lines().map;
    QVERIFY(before && !before->files.empty());
    QStringList missing;
    for (const SourceFile& f : before->files)
        if (f.foundAt.empty()) missing << QString::fromStdString(f.name);
    if (missing.isEmpty()) QSKIP("the attention kernel's source is at the path its line table records");
    QVERIFY2(w.panel->statusText().contains(QStringLiteral("not found")), qPrintable(w.panel->statusText()));
    QVERIFY(w.panel->folderButton()->isEnabled());
    const int row = [&] {
        for (int r = 0; r < w.panel->model()->rowCount(); ++r)
            if (const auto& l = w.panel->model()->lines().lines[size_t(r)];
                !l.instructions.empty() && l.file >= 0 && before->files[size_t(l.file)].foundAt.empty())
                return r;
        return -1;
    }();
    QVERIFY(row >= 0);
    QVERIFY(w.panel->model()->index(row, SourceModel::TextColumn).data().toString().isEmpty());

    // The missing files in a folder of their own (each line saying its number: what the text shows must
    // be the line the table names); the dock pointed at it.
    for (const QString& name : missing) {
        QFile f(tmp.filePath(QStringLiteral("checkout/") + name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int line = 1; line <= 20000; ++line)
            f.write(QStringLiteral("# source line %1\n").arg(line).toUtf8());
    }
    QVERIFY(!w.session->store()->isModified());
    QVERIFY(w.panel->addSourceFolder(tmp.filePath(QStringLiteral("checkout"))));
    QCOMPARE(w.session->sourceFolders().size(), size_t(1));
    QVERIFY(w.session->store()->isModified());
    QVERIFY2(!w.panel->statusText().contains(QStringLiteral("not found")), qPrintable(w.panel->statusText()));
    const QString text = w.panel->model()->index(row, SourceModel::TextColumn).data().toString();
    QCOMPARE(text.trimmed(),
             QStringLiteral("# source line %1").arg(w.panel->model()->lines().lines[size_t(row)].line));
    const auto& lines = w.panel->model()->lines().lines;
    const InstrId first = lines[size_t(row)].instructions.front();
    const QString tip = w.listing->index(w.listing->rowOfOriginal(first), ListingModel::SourceColumn)
                            .data(Qt::ToolTipRole)
                            .toString();
    QVERIFY2(tip.contains(text.trimmed()), qPrintable(tip));

    // Kept with the session: saved, reopened in a new window, the text is there at once.
    const QString sessionPath = tmp.filePath(QStringLiteral("attention.sassx.json"));
    QVERIFY2(w.session->store()->save(sessionPath, &error), qPrintable(error));
    Window again;
    again.session->store()->setAutosaveInterval(0);
    again.window = std::make_unique<MainWindow>(again.session);
    again.session->setParent(again.window.get());
    again.panel = again.window->findChild<SourcePanel*>();
    QSignalSpy ready(again.session, &Session::analysisReady);
    again.window->openPath(sessionPath);
    QVERIFY(ready.wait(120000) || !ready.isEmpty());
    QTRY_COMPARE(again.session->sourceFolders().size(), size_t(1));
    QTRY_VERIFY(!again.panel->model()->index(row, SourceModel::TextColumn).data().toString().isEmpty());
    QVERIFY(!again.session->store()->isModified());
}

QTEST_MAIN(TestSourcePanel)
#include "test_source_panel.moc"
