// The main window's handling of inputs and layout: Open Recent keeps only files that opened; the
// kernel picker shows demangled names, arch and size and defaults to the newest arch; a Triton cache
// entry opens from its files or the Open dialog, and write-back asks before writing ptxas' own
// schedule; another kernel opens at the top of the listing; the default layout shows every listing
// and variants column, is remembered, and View ▸ Reset Layout restores it.
#include "core/session/session.h"
#include "core/session/workspace.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/variants_model.h"
#include "widgets/variants_panel.h"

#include <QApplication>
#include <QFileDialog>
#include <QHeaderView>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <memory>

using namespace sassx;

using sassx::test::newWindow;

namespace {

// A Triton cache entry in `dir` holding `cubin` as its <kernel>.cubin with minimal metadata; returns
// the metadata file's path.
QString makeTritonEntry(const QString& dir, const QString& cubin)
{
    QDir().mkpath(dir);
    auto ws = Workspace::open(cubin.toStdString());
    if (!ws) return {};
    const QString name = QString::fromStdString((*ws)->kernels().front().name);
    QFile::copy(cubin, dir + QLatin1Char('/') + name + QStringLiteral(".cubin"));
    QFile meta(dir + QLatin1Char('/') + name + QStringLiteral(".json"));
    if (!meta.open(QIODevice::WriteOnly)) return {};
    meta.write(QStringLiteral("{\"name\": \"%1\", \"num_warps\": 4, \"shared\": 0}").arg(name).toUtf8());
    return meta.fileName();
}

// Opens `path` in `window` and waits for its analysis; false when none came.
bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy ready(window.session(), &Session::analysisReady);
    window.openPath(path);
    return ready.wait(120000) || !ready.isEmpty();
}

// The legal moves of ptxas' own schedule of the open kernel.
auto originalMoves(const Session& session)
{
    auto kernel = session.variantTree()->kernel();
    return kernel->legalMoves(Schedule::identity(kernel->analysis()), false);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-main-window"));
        QSettings().clear();
    }

    void recentListsOnlyWhatOpened()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto owner = newWindow();
        MainWindow& window = *owner;
        Session* session = window.session();
        window.show();

        // A file that cannot be opened: its warning is dismissed, and it is not offered again.
        const QString missing = QDir::temp().absoluteFilePath(QStringLiteral("sassx-no-such-kernel.cubin"));
        QSignalSpy failed(session, &Session::loadFailed);
        QTimer closer;
        QObject::connect(&closer, &QTimer::timeout, [] {
            if (QWidget* w = QApplication::activeModalWidget()) w->close();
        });
        closer.start(100);
        window.openPath(missing);
        QVERIFY(failed.wait(20000) || !failed.isEmpty());
        QTRY_VERIFY(!QApplication::activeModalWidget());
        QVERIFY(!MainWindow::recentFiles().contains(missing));

        // One that opens joins the list.
        QSignalSpy loaded(session, &Session::analysisReady);
        window.openPath(cubin);
        QVERIFY(loaded.wait(120000) || !loaded.isEmpty());
        QVERIFY(MainWindow::recentFiles().contains(QFileInfo(cubin).absoluteFilePath()));
        closer.stop();
    }

    void defaultLayoutShowsEveryColumn()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QSettings().clear();
        QList<int> widened;
        {
            const auto owner = newWindow();
            MainWindow& window = *owner;
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QCOMPARE(window.size(), QSize(1400, 850));
            QVERIFY(test::openAndWait(*window.session(), cubin));
            QCoreApplication::processEvents();
            ListingView* view = window.listingPanel()->view();
            // Every listing column visible without scrolling sideways (but Source, hidden until the
            // Source dock shows it); the instruction column fills what the others leave.
            QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
            QVERIFY(view->isColumnHidden(ListingModel::SourceColumn));
            int total = 0;
            for (int c = 0; c < ListingModel::ColumnCount; ++c) {
                if (c == ListingModel::SourceColumn) continue;
                QVERIFY(!view->isColumnHidden(c));
                QVERIFY(view->columnWidth(c) > 0);
                total += view->columnWidth(c);
            }
            QVERIFY(view->columnWidth(ListingModel::InstructionColumn) >= view->minimumInstructionWidth());
            QCOMPARE(total, view->viewport()->width());
            // Every variants column starts inside the dock, and the name is not cut.
            QTreeView* tree = window.variantsPanel()->tree();
            QCOMPARE(tree->horizontalScrollBar()->maximum(), 0);
            for (int c = 0; c < VariantsModel::ColumnCount; ++c)
                QVERIFY2(tree->header()->sectionViewportPosition(c) + 60 <= tree->viewport()->width(),
                         qPrintable(QStringLiteral("column %1 hidden").arg(c)));
            QVERIFY(tree->header()->sectionSize(VariantsModel::NameColumn) >=
                    tree->fontMetrics().horizontalAdvance(QStringLiteral("original")));
            // A wider window widens the instruction column.
            const int before = view->columnWidth(ListingModel::InstructionColumn);
            window.resize(1800, 1000);
            QTRY_VERIFY(view->columnWidth(ListingModel::InstructionColumn) > before);
            QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
            // Widen the gutter; the layout is saved on close.
            QSplitter* splitter = window.listingPanel()->splitter();
            widened = {300, splitter->sizes()[0] + splitter->sizes()[1] - 300};
            splitter->setSizes(widened);
            window.close();
        }
        const auto owner = newWindow();
        MainWindow& window = *owner;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), QSize(1800, 1000));
        QCOMPARE(window.listingPanel()->splitter()->sizes().front(), 300);
        window.resetLayout();
        QCOMPARE(window.size(), QSize(1400, 850));
        QTRY_VERIFY(window.listingPanel()->splitter()->sizes().front() < 200);
        QVERIFY(!QSettings().contains(QStringLiteral("window/state")));
    }

    // A host executable with sm_80 and sm_90 copies: the picker shows demangled names, arch and size,
    // offers the newest arch first, and opens exactly the copy chosen.
    void kernelPickerShowsArchAndSize()
    {
        const QString exe = QStringLiteral(SASSX_CUBIN_SAMPLES "/host_exe");
        SASSX_REQUIRE_SAMPLE(exe);
        const auto owner = newWindow();
        MainWindow& window = *owner;
        Session* session = window.session();
        window.show();
        QStringList offered;
        QString preselected;
        const QString want =
            QStringLiteral("params_kernel(float, double*, int, char) — sm_80, 32 instructions  "
                           "[_Z13params_kernelfPdic]");
        QTimer picker;
        QObject::connect(&picker, &QTimer::timeout, [&] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            if (!dialog || dialog->objectName() != QLatin1String("kernelPicker")) return;
            offered = dialog->comboBoxItems();
            preselected = dialog->textValue();
            dialog->setTextValue(want);
            dialog->accept();
        });
        picker.start(50);
        QSignalSpy ready(session, &Session::analysisReady);
        window.openPath(exe);
        QVERIFY(ready.wait(120000) || !ready.isEmpty());
        picker.stop();
        QCOMPARE(offered.size(), 4);
        QVERIFY(offered.contains(want));
        QCOMPARE(preselected,
                 QStringLiteral("shared_kernel(float const*, float*, int) — sm_90, 80 instructions  "
                                "[_Z13shared_kernelPKfPfi]"));
        QCOMPARE(session->kernelName(), QStringLiteral("_Z13params_kernelfPdic@sm_80"));
        QCOMPARE(session->kernelSymbol(), QStringLiteral("_Z13params_kernelfPdic"));
        QCOMPARE(session->variantTree()->kernel()->cubin().archName(), std::string("sm_80"));
    }

    void multiKernelSample_data() { test::addFontAndSizeRows(); }

    // The bundled multi-kernel cubin: the picker offers its three kernels, opens
    // the one chosen, and the launch spec beside it (for trio_square_add) is the one used; File ▸ Set
    // Launch Spec… takes it for trio_square_add and refuses it, in one line, for trio_axpy.
    void multiKernelSample()
    {
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        const QString cubin = test::multiKernelSample();
        const QString spec =
            QFileInfo(cubin).absolutePath() + QStringLiteral("/elementwise_trio.launch.json");
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(spec);
        const auto owner = newWindow();
        MainWindow& window = *owner;
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Session* session = window.session();
        for (const QString& symbol : {QStringLiteral("trio_square_add"), QStringLiteral("trio_axpy")}) {
            QStringList offered;
            QString preselected;
            QTimer picker;
            QObject::connect(&picker, &QTimer::timeout, [&] {
                // The spec set below modified the session: its changes are discarded.
                if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                    box && box->objectName() == QLatin1String("unsavedChanges"))
                    box->button(QMessageBox::Discard)->click();
                auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
                if (!dialog || dialog->objectName() != QLatin1String("kernelPicker")) return;
                offered = dialog->comboBoxItems();
                preselected = dialog->textValue();
                for (const QString& label : offered)
                    if (label.startsWith(symbol + QStringLiteral(" — "))) dialog->setTextValue(label);
                dialog->accept();
            });
            picker.start(50);
            QSignalSpy ready(session, &Session::analysisReady);
            window.openPath(cubin);
            QVERIFY(ready.wait(120000) || !ready.isEmpty());
            picker.stop();
            QCOMPARE(offered.size(), 3);
            for (const char* k : {"trio_axpy", "trio_scale", "trio_square_add"})
                QVERIFY2(std::any_of(offered.begin(), offered.end(),
                                     [&](const QString& l) {
                                         return l.startsWith(QLatin1String(k) + QStringLiteral(" — sm_90, "));
                                     }),
                         qPrintable(offered.join(QLatin1Char('\n'))));
            QVERIFY2(offered.contains(preselected), qPrintable(preselected));
            QCOMPARE(session->kernelSymbol(), symbol);
            QCOMPARE(QFileInfo(session->launchSpecPath()).fileName(), QFileInfo(spec).fileName());
            QString error;
            const bool taken = window.setLaunchSpec(spec, &error);
            QCOMPARE(taken, symbol == QLatin1String("trio_square_add"));
            if (!taken) {
                QVERIFY2(
                    error.contains(QStringLiteral("launches trio_square_add, not the open kernel trio_axpy")),
                    qPrintable(error));
                QVERIFY(!error.contains(QLatin1Char('\n')));
            }
        }
    }

    // An entry's .json chosen in the Open dialog opens the whole Triton cache entry.
    void tritonEntryFromItsFiles()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("0123abcd"));
        const QString meta = makeTritonEntry(dir, cubin);
        QVERIFY(!meta.isEmpty());
        const auto owner = newWindow();
        MainWindow& window = *owner;
        QSignalSpy ready(window.session(), &Session::analysisReady);
        window.openPath(meta);
        QVERIFY(ready.wait(120000) || !ready.isEmpty());
        QVERIFY(window.session()->inputKind() == sassx::InputKind::TritonCache);
        QCOMPARE(QFileInfo(window.session()->inputPath()).canonicalFilePath(),
                 QFileInfo(dir).canonicalFilePath());
        QVERIFY(MainWindow::recentFiles().contains(QFileInfo(dir).absoluteFilePath()));

        // File ▸ Open…: the dialog's button opens the directory it shows as a Triton entry.
        const auto second = newWindow();
        QTimer chooser;
        bool clicked = false;
        QObject::connect(&chooser, &QTimer::timeout, [&] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog || dialog->objectName() != QLatin1String("openDialog")) return;
            dialog->setDirectory(dir);
            if (auto* button = dialog->findChild<QPushButton*>(QStringLiteral("openTritonDirectory"))) {
                clicked = true;
                button->click();
            }
        });
        chooser.start(50);
        QSignalSpy secondReady(second->session(), &Session::analysisReady);
        QAction* open = nullptr;
        for (QAction* a : second->findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QKeySequence::Open)) open = a;
        QVERIFY(open);
        open->trigger();
        QVERIFY(secondReady.wait(120000) || !secondReady.isEmpty());
        chooser.stop();
        QVERIFY(clicked);
        QVERIFY(second->session()->inputKind() == sassx::InputKind::TritonCache);
    }

    // A modified session is never dropped silently: opening another file or closing the window asks,
    // Cancel keeps everything, Save writes the session's file, Discard goes on.
    void unsavedChangesAreAskedFor()
    {
        const QString first = test::sampleCubin(QStringLiteral("rmsnorm"));
        const QString second = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(first);
        SASSX_REQUIRE_SAMPLE(second);
        QTemporaryDir tmp;
        const auto owner = newWindow();
        MainWindow& window = *owner;
        Session* session = window.session();
        QVERIFY(openAndWait(window, first));
        const auto moves = originalMoves(*session);
        QVERIFY(!moves.empty());
        QVERIFY(
            window.editController()->apply(Edit::move(moves.front().first, moves.front().second)).accepted);
        QVERIFY(session->store()->isModified());

        QStringList asked;
        QMessageBox::StandardButton answer = QMessageBox::Cancel;
        QTimer boxes;
        QObject::connect(&boxes, &QTimer::timeout, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box || box->objectName() != QLatin1String("unsavedChanges")) return;
            asked << box->text();
            box->button(answer)->click();
        });
        boxes.start(50);

        // Another file, cancelled (asked once it has opened): the session, its input and its edit stay.
        window.openPath(second);
        QTRY_COMPARE_WITH_TIMEOUT(asked.size(), 1, 120000);
        QTRY_VERIFY(!session->isBusy());
        QVERIFY2(asked.front().contains(QStringLiteral("never been saved")), qPrintable(asked.front()));
        QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(first).fileName());
        QVERIFY(session->store()->isModified());
        QCOMPARE(session->variantTree()->variants().size(), size_t(2));

        // Closing, cancelled: the window stays.
        window.show();
        QVERIFY(!window.close());
        QCOMPARE(asked.size(), 2);
        QVERIFY(window.isVisible());

        // Saved once, changed again (Undo), closed with Save: the file holds the change.
        const QString file = tmp.filePath(QStringLiteral("first.sassx.json"));
        QVERIFY(session->store()->save(file));
        const QByteArray savedOnce = readAll(file);
        window.undoStack()->undo();
        QVERIFY(session->store()->isModified());
        answer = QMessageBox::Save;
        QVERIFY(window.close());
        QCOMPARE(asked.size(), 3);
        QVERIFY2(asked.back().contains(QStringLiteral("first.sassx.json")), qPrintable(asked.back()));
        QVERIFY(!session->store()->isModified());
        QVERIFY(readAll(file) != savedOnce);

        // Changed again, another file with Discard: it opens.
        window.undoStack()->redo();
        QVERIFY(session->store()->isModified());
        answer = QMessageBox::Discard;
        QVERIFY(openAndWait(window, second));
        QCOMPARE(asked.size(), 4);
        QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(second).fileName());
        QVERIFY(!session->store()->isModified());
        boxes.stop();
    }

    // The autosave of a session that was never saved is offered at start; restored, it holds its variants
    // and is still unsaved; declined, it is not offered again.
    void autosaveIsOfferedAtStart()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QStandardPaths::setTestModeEnabled(true); // the autosave goes to the test's own data directory
        QFile::remove(SessionStore::autosavePath());
        size_t variants = 0;
        {
            const auto owner = newWindow();
            Session* session = owner->session();
            QVERIFY(openAndWait(*owner, cubin));
            session->store()->setAutosaveInterval(50);
            const auto moves = originalMoves(*session);
            QVERIFY(!moves.empty());
            QVERIFY(owner->editController()
                        ->apply(Edit::move(moves.front().first, moves.front().second))
                        .accepted);
            variants = session->variantTree()->variants().size();
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(SessionStore::autosavePath()), 10000);
        }
        QMessageBox::StandardButton answer = QMessageBox::Yes;
        QStringList asked;
        QTimer boxes;
        QObject::connect(&boxes, &QTimer::timeout, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box || box->objectName() != QLatin1String("restoreAutosave")) return;
            asked << box->text();
            box->button(answer)->click();
        });
        boxes.start(50);
        {
            const auto owner = newWindow();
            Session* session = owner->session();
            QSignalSpy restored(session->store(), &SessionStore::sessionRestored);
            owner->offerAutosave();
            QCOMPARE(asked.size(), 1);
            QVERIFY(asked.front().contains(QFileInfo(cubin).fileName()));
            QVERIFY(restored.wait(120000) || !restored.isEmpty());
            QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(cubin).fileName());
            QCOMPARE(session->variantTree()->variants().size(), variants);
            QVERIFY(session->store()->isModified());
            QVERIFY(session->store()->sessionPath().isEmpty());
        }
        answer = QMessageBox::No;
        {
            const auto owner = newWindow();
            owner->offerAutosave();
            QCOMPARE(asked.size(), 2);
            QVERIFY(!QFileInfo::exists(SessionStore::autosavePath()));
            QVERIFY(owner->session()->inputPath().isEmpty());
        }
        // Nothing to offer: no question.
        newWindow()->offerAutosave();
        QCOMPARE(asked.size(), 2);
        boxes.stop();
    }

    // Status messages do not outlive what they describe: Undo ends "Done: move …".
    void undoEndsTheDoneMessage()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto owner = newWindow();
        MainWindow& window = *owner;
        QVERIFY(openAndWait(window, cubin));
        const auto moves = originalMoves(*window.session());
        auto adjacent = std::find_if(moves.begin(), moves.end(), [](const auto& m) {
            return m.first == m.second + 1 || m.second == m.first + 1;
        });
        QVERIFY(adjacent != moves.end());
        ListingView* view = window.listingPanel()->view();
        view->setCurrentIndex(
            view->listingModel()->index(view->listingModel()->rowOfPosition(adjacent->first), 2));
        QVERIFY(view->moveCurrent(int(adjacent->second - adjacent->first)));
        QVERIFY2(window.statusBar()->currentMessage().startsWith(QStringLiteral("Done: move ")),
                 qPrintable(window.statusBar()->currentMessage()));
        window.undoStack()->undo();
        QCOMPARE(window.statusBar()->currentMessage(), QString());
    }

    // Write-back of ptxas' own schedule asks first (No leaves the entry untouched, Yes writes and names
    // the backup); an edited variant goes in without the question, the backup keeping ptxas' cubin.
    void tritonWriteBackAsksWhenNothingChanged()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("feedbeef"));
        const QString meta = makeTritonEntry(dir, cubin);
        QVERIFY(!meta.isEmpty());
        const QString entryCubin = QFileInfo(meta).path() + QLatin1Char('/') +
                                   QFileInfo(meta).completeBaseName() + QStringLiteral(".cubin");
        const QString backup = entryCubin + QStringLiteral(".sassx-orig");
        const QByteArray original = readAll(entryCubin);
        const auto owner = newWindow();
        MainWindow& window = *owner;
        Session* session = window.session();
        QSignalSpy ready(session, &Session::analysisReady);
        window.openPath(dir);
        QVERIFY(ready.wait(120000) || !ready.isEmpty());
        QAction* writeBack = nullptr;
        for (QAction* a : window.findChildren<QAction*>())
            if (a->text() == QLatin1String("&Triton Cache Write-Back")) writeBack = a;
        QVERIFY(writeBack);

        // Answers the question with `answer`, closes the information box; records what was asked.
        QStringList asked, told;
        QMessageBox::StandardButton answer = QMessageBox::No;
        QTimer boxes;
        QObject::connect(&boxes, &QTimer::timeout, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            if (box->button(QMessageBox::Yes)) {
                asked << box->text();
                box->button(answer)->click();
            } else {
                told << box->text();
                box->button(QMessageBox::Ok)->click();
            }
        });
        boxes.start(50);
        writeBack->trigger();
        QCOMPARE(asked.size(), 1);
        QVERIFY(asked.front().contains(QStringLiteral("nothing would change")));
        QVERIFY(told.isEmpty());
        QCOMPARE(readAll(entryCubin), original);
        QVERIFY(!QFileInfo::exists(backup));

        answer = QMessageBox::Yes;
        writeBack->trigger();
        QCOMPARE(asked.size(), 2);
        QCOMPARE(told.size(), 1);
        QVERIFY2(told.front().contains(backup), qPrintable(told.front()));
        QVERIFY(QFileInfo::exists(backup));
        QCOMPARE(readAll(backup), original);

        // An edited variant: no question; the entry's cubin changes, the backup does not.
        auto kernel = session->variantTree()->kernel();
        const auto moves = kernel->legalMoves(Schedule::identity(kernel->analysis()), false);
        QVERIFY(!moves.empty());
        QVERIFY(
            window.editController()->apply(Edit::move(moves.front().first, moves.front().second)).accepted);
        writeBack->trigger();
        boxes.stop();
        QCOMPARE(asked.size(), 2);
        QCOMPARE(told.size(), 2);
        QVERIFY(readAll(entryCubin) != original);
        QCOMPARE(readAll(backup), original);
    }

    void anotherKernelOpensAtTheTop()
    {
        const QString sgemm = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        const QString rmsnorm = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(sgemm);
        SASSX_REQUIRE_SAMPLE(rmsnorm);
        const auto owner = newWindow();
        MainWindow& window = *owner;
        Session* session = window.session();
        window.resize(1400, 850);
        window.show();
        QVERIFY(test::openAndWait(*session, sgemm));
        ListingView* view = window.listingPanel()->view();
        QCoreApplication::processEvents();
        // Jump far down from a selected instruction: the view scrolls and remembers where it started.
        session->variantTree()->setSelectedInstruction(0);
        view->goToAddress(0x2000);
        QVERIFY(view->verticalScrollBar()->value() > 0);
        QVERIFY(view->canGoBack());
        QVERIFY(test::openAndWait(*session, rmsnorm));
        QCoreApplication::processEvents();
        QCOMPARE(view->verticalScrollBar()->value(), 0);
        QVERIFY(!view->canGoBack());
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
