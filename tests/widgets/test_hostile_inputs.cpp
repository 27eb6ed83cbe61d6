// The whole window against hostile inputs: every file of the parser's hostile corpus (tests/data/cubin)
// and real cubins broken in ways the parser lets through (code overwritten with garbage, cut short) are
// opened in turn between good kernels, and listing rows are clicked before and after each, as a user
// would. Nothing may crash, every failure is reported in one line first (details after it), and a good
// kernel opens again afterwards.
#include "core/cubin/cubin.h"
#include "core/session/session.h"
#include "widget_test_support.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"

#include <QApplication>
#include <QDir>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>
#include <random>

using namespace sassx;

namespace {

// What opening `path` in the window ended in: "ready", or the failure's message.
QString openInWindow(MainWindow& window, const QString& path)
{
    Session* s = window.session();
    QSignalSpy ready(s, &Session::analysisReady);
    QSignalSpy loadFailed(s, &Session::loadFailed);
    QSignalSpy analysisFailed(s, &Session::analysisFailed);
    window.openPath(path);
    (void)QTest::qWaitFor(
        [&] { return !ready.isEmpty() || !loadFailed.isEmpty() || !analysisFailed.isEmpty(); }, 120000);
    QTest::qWait(20); // let the views take the signals
    if (!ready.isEmpty()) return QStringLiteral("ready");
    if (!loadFailed.isEmpty()) return loadFailed.front().front().toString();
    if (!analysisFailed.isEmpty()) return analysisFailed.front().front().toString();
    return QStringLiteral("timed out");
}

// Clicks up to `count` rows of the listing spread over its length, and presses Down on the last one.
void clickRows(MainWindow& window, int count)
{
    ListingView* view = window.listingPanel()->view();
    QAbstractItemModel* model = view->model();
    const int rows = model ? model->rowCount() : 0;
    for (int k = 0; k < count && rows > 0; ++k) {
        const QModelIndex index = model->index(k * rows / count, 1);
        view->scrollTo(index);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
    }
    QTest::keyClick(view, Qt::Key_Down);
    QTest::qWait(5);
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestHostileInputs : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-hostile")); }

    void everyHostileInputFailsInOneLineWithoutACrash()
    {
        const QString good = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(good);
        QTemporaryDir tmp;
        QStringList hostile;
        for (const QFileInfo& f :
             QDir(QStringLiteral(SASSX_HOSTILE_DIR)).entryInfoList({"*.bin"}, QDir::Files))
            if (f.fileName() != QLatin1String("minimal_ok.bin")) hostile << f.absoluteFilePath();
        QVERIFY2(hostile.size() >= 15, qPrintable(QString::number(hostile.size())));

        // Real cubins the ELF parser accepts but whose code is broken, or which end early.
        const QByteArray bytes = readFile(good);
        auto parsed = Cubin::load(good.toStdString());
        QVERIFY(parsed.ok() && !parsed->kernels().empty());
        const auto& text = parsed->sections()[size_t(parsed->kernels().front().textSection)];
        std::mt19937 rng(7);
        for (const char* kind : {"ff", "zero", "random"}) {
            QByteArray b = bytes;
            for (uint64_t k = 0; k < text.size; ++k)
                b[qsizetype(text.offset + k)] = kind[0] == 'f'   ? char(0xFF)
                                                : kind[0] == 'z' ? char(0)
                                                                 : char(rng());
            const QString path = tmp.filePath(QStringLiteral("code_%1.cubin").arg(QLatin1String(kind)));
            QVERIFY(writeFile(path, b));
            hostile << path;
        }
        for (int percent : {1, 30, 60, 95}) {
            const QString path = tmp.filePath(QStringLiteral("cut_%1.cubin").arg(percent));
            QVERIFY(writeFile(path, bytes.left(bytes.size() * percent / 100)));
            hostile << path;
        }
        const QString empty = tmp.filePath(QStringLiteral("empty.cubin"));
        QVERIFY(writeFile(empty, {}));
        hostile << empty;

        auto* session = new Session;
        session->store()->setAutosaveInterval(0);
        MainWindow window(session);
        session->setParent(&window);
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The window reports a failure in a message box: record its first line and close it.
        QStringList boxes;
        QTimer closer;
        QObject::connect(&closer, &QTimer::timeout, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                boxes << box->text();
                box->close();
            }
        });
        closer.start(20);

        for (const QString& path : hostile) {
            QCOMPARE(openInWindow(window, good), QStringLiteral("ready"));
            clickRows(window, 8);
            const QString outcome = openInWindow(window, path);
            QVERIFY2(outcome != QLatin1String("timed out"), qPrintable(path));
            if (outcome != QLatin1String("ready")) {
                // One line first: what failed and why; nvdisasm's own lines, if any, after it.
                const QString first = outcome.section(QLatin1Char('\n'), 0, 0);
                QVERIFY2(!first.trimmed().isEmpty() && first.size() < 400,
                         qPrintable(QFileInfo(path).fileName() + ": " + outcome.left(400)));
                // The previous kernel stays, intact, or the window is empty: never rows without a kernel.
                const bool kept = window.session()->variantTree()->analysis() != nullptr;
                QCOMPARE(window.listingPanel()->view()->model()->rowCount() > 0, kept);
            }
            // Clicking whatever rows are left must not crash (stale rows once did).
            clickRows(window, 8);
        }
        closer.stop();
        // Still usable: a good kernel opens and its rows click.
        QCOMPARE(openInWindow(window, good), QStringLiteral("ready"));
        clickRows(window, 8);
        QVERIFY(window.session()->variantTree()->analysis());
        QVERIFY(window.listingPanel()->view()->model()->rowCount() > 0);
    }
};

QTEST_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"
