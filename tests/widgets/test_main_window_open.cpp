// Opening another input never loses what is on screen: an open that fails after the user discarded the
// unsaved changes keeps the edited session and its autosave; a cancelled kernel picker changes nothing
// (kernel, variants, title, recent files); Save/Discard is asked only once the new file has opened and its
// kernel was chosen; another kernel's Search dock does not show the previous kernel's run. Each in two font
// families (the window's layout must not matter to any of it).
#include "core/session/session.h"
#include "core/session/session_store.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/main_window.h"
#include "widgets/search_panel.h"
#include "widgets/search_plot.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace sassx;
using sassx::test::newWindow;

namespace {

bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy ready(window.session(), &Session::analysisReady);
    window.openPath(path);
    return ready.wait(120000) || !ready.isEmpty();
}

// Applies the first legal move of ptxas' schedule: the session has an unsaved change.
bool editOnce(MainWindow& window)
{
    auto kernel = window.session()->variantTree()->kernel();
    const auto moves = kernel->legalMoves(Schedule::identity(kernel->analysis()), false);
    return !moves.empty() &&
           window.editController()->apply(Edit::move(moves.front().first, moves.front().second)).accepted;
}

// Answers every modal box or dialog named `name` with `answer` while it lives.
class Answerer
{
public:
    Answerer(const QString& name, std::function<void(QWidget*)> answer)
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this, name, answer] {
            QWidget* w = QApplication::activeModalWidget();
            if (!w) return;
            if (w->objectName() != name) {
                // Warnings ("Cannot open") are read and dismissed.
                if (auto* box = qobject_cast<QMessageBox*>(w)) {
                    m_other << box->text();
                    box->close();
                }
                return;
            }
            ++m_answered;
            answer(w);
        });
        m_timer.start(50);
    }
    int answered() const { return m_answered; }
    QStringList others() const { return m_other; }

private:
    QTimer m_timer;
    int m_answered = 0;
    QStringList m_other;
};

void clickButton(QWidget* w, QMessageBox::StandardButton b)
{
    if (auto* box = qobject_cast<QMessageBox*>(w)) box->button(b)->click();
}

} // namespace

class TestMainWindowOpen : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // autosave and settings in the test's own directories
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-main-window-open"));
        QSettings().clear();
    }

    void failedOpenKeepsTheAutosave_data() { test::addTwoFontRows(); }

    // An open that fails asks nothing: the edited session stays on screen, still modified, and its
    // autosave stays with it. Only when another input really replaces it (Discard) does the autosave go.
    void failedOpenKeepsTheAutosave()
    {
        QFETCH(QFont, font);
        QApplication::setFont(font);
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        const QString other = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(other);
        QFile::remove(SessionStore::autosavePath());
        const auto window = newWindow();
        Session* session = window->session();
        QVERIFY(openAndWait(*window, cubin));
        session->store()->setAutosaveInterval(50);
        QVERIFY(editOnce(*window));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(SessionStore::autosavePath()), 10000);

        Answerer discard(QStringLiteral("unsavedChanges"),
                         [](QWidget* w) { clickButton(w, QMessageBox::Discard); });
        QSignalSpy failed(session, &Session::loadFailed);
        window->openPath(QDir::temp().absoluteFilePath(QStringLiteral("sassx-no-such-kernel.cubin")));
        QVERIFY(failed.wait(20000) || !failed.isEmpty());
        QTRY_VERIFY(!QApplication::activeModalWidget());
        // A file that cannot be opened asks nothing about the session it would have replaced.
        QCOMPARE(discard.answered(), 0);
        QCOMPARE(discard.others().size(), 1);
        QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(cubin).fileName());
        QCOMPARE(session->variantTree()->variants().size(), size_t(2));
        QVERIFY(session->store()->isModified());
        QVERIFY2(QFileInfo::exists(SessionStore::autosavePath()),
                 "the autosave of the session still on screen was deleted");

        // Another input that opens replaces the session: its autosave goes with it.
        session->store()->setAutosaveInterval(0);
        QVERIFY(openAndWait(*window, other));
        QCOMPARE(discard.answered(), 1);
        QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(other).fileName());
        QVERIFY(!QFileInfo::exists(SessionStore::autosavePath()));
    }

    void unsavedChangesAskedOnceTheKernelOpened_data() { test::addFontAndSizeRows(); }

    // Save/Discard is asked only after the new file has been read and its kernel chosen in the picker:
    // a missing file and a file that is no cubin ask nothing; with several kernels the picker comes
    // first; Cancel then keeps the session on screen, unsaved, with nothing pending; Discard opens it.
    void unsavedChangesAskedOnceTheKernelOpened()
    {
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        const QString exe = QStringLiteral(SASSX_CUBIN_SAMPLES "/host_exe");
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(exe);
        const auto window = newWindow();
        window->resize(size);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        Session* session = window->session();
        QVERIFY(openAndWait(*window, cubin));
        QVERIFY(editOnce(*window));

        QStringList asked; // the modal dialogs in the order they came
        QMessageBox::StandardButton unsavedAnswer = QMessageBox::Cancel;
        QTimer answer;
        QObject::connect(&answer, &QTimer::timeout, [&] {
            QWidget* w = QApplication::activeModalWidget();
            if (!w) return;
            asked << (w->objectName().isEmpty() ? QStringLiteral("warning") : w->objectName());
            if (w->objectName() == QLatin1String("kernelPicker"))
                static_cast<QDialog*>(w)->accept();
            else if (w->objectName() == QLatin1String("unsavedChanges"))
                clickButton(w, unsavedAnswer);
            else
                w->close();
        });
        answer.start(50);

        QTemporaryDir dir;
        const QString notCubin = dir.filePath(QStringLiteral("notes.cubin"));
        QFile f(notCubin);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are notes, not a cubin\n");
        f.close();
        for (const QString& bad : {dir.filePath(QStringLiteral("missing.cubin")), notCubin}) {
            asked.clear();
            QSignalSpy failed(session, &Session::loadFailed);
            window->openPath(bad);
            QVERIFY(failed.wait(20000) || !failed.isEmpty());
            QTRY_VERIFY(!QApplication::activeModalWidget());
            QTRY_COMPARE(asked, QStringList{QStringLiteral("warning")});
            QVERIFY(session->store()->isModified());
        }

        const QString kernel = session->kernelName();
        const auto analysis = session->variantTree()->analysis();
        asked.clear();
        window->openPath(exe);
        QTRY_VERIFY_WITH_TIMEOUT(asked.size() == 2, 120000);
        QTRY_VERIFY(!QApplication::activeModalWidget());
        QCOMPARE(asked, (QStringList{QStringLiteral("kernelPicker"), QStringLiteral("unsavedChanges")}));
        QCOMPARE(session->kernelName(), kernel);
        QCOMPARE(session->variantTree()->analysis(), analysis);
        QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(cubin).fileName());
        QVERIFY(session->store()->isModified());
        QVERIFY(session->pendingKernelEntries().empty());
        QVERIFY(!session->isBusy());

        asked.clear();
        unsavedAnswer = QMessageBox::Discard;
        QSignalSpy ready(session, &Session::analysisReady);
        window->openPath(exe);
        QVERIFY(ready.wait(120000) || !ready.isEmpty());
        QCOMPARE(asked, (QStringList{QStringLiteral("kernelPicker"), QStringLiteral("unsavedChanges")}));
        QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(exe).fileName());
        QVERIFY(!session->store()->isModified());
    }

    void cancelledPickerChangesNothing_data() { test::addTwoFontRows(); }

    // A host executable with several kernels, picker cancelled: the kernel, its variants, the title and
    // Open Recent are as before; the unsaved change is still unsaved.
    void cancelledPickerChangesNothing()
    {
        QFETCH(QFont, font);
        QApplication::setFont(font);
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        const QString exe = QStringLiteral(SASSX_CUBIN_SAMPLES "/host_exe");
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(exe);
        QSettings().remove(QStringLiteral("recentFiles"));
        const auto window = newWindow();
        Session* session = window->session();
        QVERIFY(openAndWait(*window, cubin));
        QVERIFY(editOnce(*window));
        const QString title = window->windowTitle();
        const QString kernel = session->kernelName();
        const auto analysis = session->variantTree()->analysis();

        Answerer discard(QStringLiteral("unsavedChanges"),
                         [](QWidget* w) { clickButton(w, QMessageBox::Discard); });
        Answerer cancel(QStringLiteral("kernelPicker"),
                        [](QWidget* w) { static_cast<QDialog*>(w)->reject(); });
        QSignalSpy choice(session, &Session::kernelChoiceNeeded);
        window->openPath(exe);
        QTRY_VERIFY_WITH_TIMEOUT(cancel.answered() == 1, 120000);
        QTRY_VERIFY(!QApplication::activeModalWidget());
        QCOMPARE(choice.size(), 1);
        QCOMPARE(session->kernelName(), kernel);
        QCOMPARE(session->variantTree()->analysis(), analysis);
        QCOMPARE(QFileInfo(session->inputPath()).fileName(), QFileInfo(cubin).fileName());
        QCOMPARE(session->variantTree()->variants().size(), size_t(2));
        QVERIFY(session->store()->isModified());
        QCOMPARE(window->windowTitle(), title);
        QVERIFY(!MainWindow::recentFiles().contains(QFileInfo(exe).absoluteFilePath()));
        QVERIFY(session->pendingKernelEntries().empty());
        QVERIFY(cancel.others().isEmpty());
    }

    void searchDockFollowsTheKernel_data() { test::addTwoFontRows(); }

    // A finished search of one kernel is not shown as the next kernel's: plot, runs and message start
    // empty when another kernel opens.
    void searchDockFollowsTheKernel()
    {
        QFETCH(QFont, font);
        QApplication::setFont(font);
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        const QString other = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(other);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        const auto window = newWindow();
        Session* session = window->session();
        QVERIFY(openAndWait(*window, cubin));
        SearchPanel* panel = window->searchPanel();
        search::SearchConfig c;
        c.algorithm = search::Algorithm::Climb;
        c.space = search::SearchSpace::All;
        c.budgetEvals = 12;
        c.seed = 1;
        panel->setConfig(c);
        panel->setBackend(QStringLiteral("estimate"));
        QSignalSpy recorded(session->searchRuns(), &SearchRuns::searchRecorded);
        QSignalSpy searchFailed(session->searchRuns()->search(), &SearchJob::failed);
        panel->startButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return !recorded.isEmpty() || !searchFailed.isEmpty(); }, 120000));
        QVERIFY(!recorded.isEmpty());
        QVERIFY(panel->plot()->evaluationCount() > 0);
        QVERIFY(!panel->messageText().isEmpty());

        Answerer discard(QStringLiteral("unsavedChanges"),
                         [](QWidget* w) { clickButton(w, QMessageBox::Discard); });
        QVERIFY(openAndWait(*window, other));
        QCOMPARE(panel->plot()->evaluationCount(), 0);
        QCOMPARE(panel->runsBox()->count(), 1);
        QVERIFY2(panel->messageText().isEmpty(), qPrintable(panel->messageText()));
        QVERIFY2(!panel->statusText().contains(QStringLiteral("12 evaluations")),
                 qPrintable(panel->statusText()));
    }
};

QTEST_MAIN(TestMainWindowOpen)
#include "test_main_window_open.moc"
