// A tune database as the window's dashboard: a real database made by the built sassx-cli over the
// sample kernels (estimate backend), shown as a sortable kernel table with the report's figures and
// its program-level ESTIMATE line; a kernel activated in the table opens in the explorer with its run
// in the Search dock and its best as the current variant; a database of another version and a SQLite
// file of another program are refused with one line while what was open stays; with sassx_capture's
// example program-time.json beside the database each kernel's in-program speed-up stands beside its
// isolated one, and without it every row says "not timed". The dashboard's picture
// goes to <build>/tests/widgets/screenshots/tune-dashboard.png (docs/images/ holds a copy).
#include "core/session/input_loader.h"
#include "core/session/session.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/main_window.h"
#include "widgets/models/tune_kernels_model.h"
#include "widgets/tune_dashboard.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <algorithm>
#include <memory>

using namespace sassx;

using sassx::test::newWindow;

namespace {

// The kernels tuned: small, with a share each (a spec directory gives equal shares).
const QStringList kKernels = {QStringLiteral("rmsnorm"), QStringLiteral("sgemm_leakyrelu"),
                              QStringLiteral("hgemm_leakyrelu")};

bool exec(const QString& db, const char* sql)
{
    sqlite3* raw = nullptr;
    bool ok = sqlite3_open(db.toUtf8().constData(), &raw) == SQLITE_OK &&
              sqlite3_exec(raw, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(raw);
    return ok;
}

// Opens `path` in the window's dashboard; true once it loaded, false (message in *error) when refused.
bool openDatabase(MainWindow& window, const QString& path, QString* error = nullptr)
{
    QSignalSpy loaded(window.tuneDashboard(), &TuneDashboard::loaded);
    QSignalSpy failed(window.tuneDashboard(), &TuneDashboard::loadFailed);
    window.openPath(path);
    (void)QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 60000);
    if (error && !failed.isEmpty()) *error = failed.front().front().toString();
    return !loaded.isEmpty();
}

int rowOf(const QSortFilterProxyModel* proxy, const QString& kernel)
{
    for (int r = 0; r < proxy->rowCount(); ++r)
        if (proxy->index(r, 0).data(TuneKernelsModel::KernelRole).toString() == kernel) return r;
    return -1;
}

} // namespace

class TestTuneDashboard : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_db;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-tune-dashboard"));
        QSettings().clear();
        for (const QString& k : kKernels)
            SASSX_REQUIRE_SAMPLE(test::sampleSpec(k));
        QVERIFY(m_tmp.isValid());
        m_db = m_tmp.filePath(QStringLiteral("tune.sqlite"));
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(QStringLiteral(SASSX_CLI),
                  {QStringLiteral("tune"), QStringLiteral(SASSX_SAMPLES_DIR), QStringLiteral("--backend"),
                   QStringLiteral("estimate"), QStringLiteral("--budget-evals"), QStringLiteral("30"),
                   QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--kernels"),
                   kKernels.join(QLatin1Char(',')), QStringLiteral("--db"), m_db, QStringLiteral("--out"),
                   m_tmp.filePath(QStringLiteral("runs"))});
        QVERIFY2(cli.waitForFinished(300000), "sassx-cli tune did not finish");
        QVERIFY2(cli.exitCode() == 0, cli.readAll().constData());
    }

    void classifiedByContent()
    {
        QVERIFY(classifyInput(m_db.toStdString()).sqliteDatabase);
        QVERIFY(!classifyInput(test::sampleCubin(QStringLiteral("rmsnorm")).toStdString()).sqliteDatabase);
    }

    void tableOfKernels()
    {
        auto window = newWindow();
        QVERIFY(openDatabase(*window, m_db));
        TuneDashboard* dash = window->tuneDashboard();
        QVERIFY(window->findChild<QDockWidget*>(QStringLiteral("tuneDock"))->isVisibleTo(window.get()));
        QAbstractItemModelTester tester(dash->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(dash->model()->rowCount(), int(kKernels.size()));
        for (const QString& k : kKernels)
            QVERIFY2(rowOf(dash->proxy(), k) >= 0, qPrintable(k));

        // The program figure is labelled as the report labels it, and each row says its figures are the
        // estimate backend's.
        const QString line = dash->findChild<QLabel*>(QStringLiteral("tuneProgramLine"))->text();
        QVERIFY2(line.contains(QStringLiteral("ESTIMATE, not a measurement")), qPrintable(line));
        for (const TuneDashboardRow& r : dash->model()->rows()) {
            QVERIFY(r.estimate);
            QCOMPARE(r.status, QStringLiteral("finished"));
            QCOMPARE(r.evaluations, 30);
            QVERIFY(r.speedupText.contains(QStringLiteral("est.")));
            QVERIFY(r.backendLabel.startsWith(QStringLiteral("estimate")));
        }
        QVERIFY(dash->findChild<QLabel*>(QStringLiteral("tuneSource"))->text().contains(m_db));

        // Speed-up sorts by number, both ways (the text would sort "10.0x" before "9.0x").
        dash->view()->sortByColumn(TuneKernelsModel::SpeedupColumn, Qt::AscendingOrder);
        std::vector<double> seen;
        for (int r = 0; r < dash->proxy()->rowCount(); ++r)
            seen.push_back(dash->proxy()
                               ->index(r, TuneKernelsModel::SpeedupColumn)
                               .data(TuneKernelsModel::SortRole)
                               .toDouble());
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY(seen.front() < seen.back()); // the samples' estimates differ, so the order means something
        dash->view()->sortByColumn(TuneKernelsModel::SpeedupColumn, Qt::DescendingOrder);
        QCOMPARE(dash->proxy()
                     ->index(0, TuneKernelsModel::SpeedupColumn)
                     .data(TuneKernelsModel::SortRole)
                     .toDouble(),
                 seen.back());

        // The picture of the dashboard for docs/user-guide.md.
        dash->resize(1100, 260);
        const QString dir = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
        QDir().mkpath(dir);
        QVERIFY(dash->grab().save(dir + QStringLiteral("/tune-dashboard.png")));
    }

    void inProgramBesideIsolated()
    {
        // The database with sassx_capture's example program-time.json beside it: rmsnorm measured faster
        // inside the program, sgemm_leakyrelu a control (unchanged), hgemm_leakyrelu not launched after.
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("tune.sqlite"));
        QVERIFY(QFile::copy(m_db, db));
        QVERIFY(QFile::copy(QStringLiteral(SASSX_SOURCE_DIR) +
                                QStringLiteral("/tests/app/capture/data/program-time.example.json"),
                            dir.filePath(QStringLiteral("program-time.json"))));
        auto data = loadTuneDashboard(db);
        QVERIFY2(data, data ? "" : data.message().c_str());
        QVERIFY2(data->programTimeLine.contains(QStringLiteral("MEASURED inside the program")),
                 qPrintable(data->programTimeLine));
        QVERIFY(data->programLine.contains(QStringLiteral("ESTIMATE, not a measurement"))); // unchanged

        TuneDashboard dash;
        QAbstractItemModelTester tester(dash.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&dash, &TuneDashboard::loaded);
        dash.open(db);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(dash.findChild<QLabel*>(QStringLiteral("tuneProgramTime"))->text(), data->programTimeLine);
        QCOMPARE(dash.model()->headerData(TuneKernelsModel::InProgramColumn, Qt::Horizontal).toString(),
                 QStringLiteral("In-program speed-up [interval]"));
        QCOMPARE(dash.model()->headerData(TuneKernelsModel::SpeedupColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Isolated speed-up [95% interval]"));
        auto cell = [&](const QString& kernel, int role) {
            const int r = rowOf(dash.proxy(), kernel);
            return dash.proxy()->index(r, TuneKernelsModel::InProgramColumn).data(role);
        };
        const QString rms = cell(QStringLiteral("rmsnorm"), Qt::DisplayRole).toString();
        QVERIFY2(rms.startsWith(QStringLiteral("1.05")) && rms.contains(QStringLiteral(" [1.04")) &&
                     !rms.contains(QStringLiteral("unresolved")),
                 qPrintable(rms));
        QVERIFY(cell(QStringLiteral("rmsnorm"), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("20.200 us before, 19.100 us after")));
        // unchanged before and after: a control, never "faster" or "unresolved"
        QVERIFY(cell(QStringLiteral("sgemm_leakyrelu"), Qt::DisplayRole)
                    .toString()
                    .startsWith(QStringLiteral("control 1.00")));
        QCOMPARE(cell(QStringLiteral("hgemm_leakyrelu"), Qt::DisplayRole).toString(),
                 QStringLiteral("not launched after"));
        QCOMPARE(cell(QStringLiteral("hgemm_leakyrelu"), TuneKernelsModel::SortRole).toDouble(), 0.0);
        // Sorted by the in-program figure: the measured kernels by number, the one not timed last.
        dash.view()->sortByColumn(TuneKernelsModel::InProgramColumn, Qt::DescendingOrder);
        QCOMPARE(dash.proxy()->index(0, 0).data().toString(), QStringLiteral("rmsnorm"));
        QCOMPARE(dash.proxy()->index(2, 0).data().toString(), QStringLiteral("hgemm_leakyrelu"));

        // Without the file nothing is invented: every row "not timed", the line says how to measure it.
        dash.open(m_db);
        QVERIFY(loaded.wait(60000));
        for (const TuneDashboardRow& r : dash.model()->rows()) {
            QCOMPARE(r.inProgramText, QStringLiteral("not timed"));
            QVERIFY(!r.inProgramTimed);
        }
        QVERIFY(dash.findChild<QLabel*>(QStringLiteral("tuneProgramTime"))
                    ->text()
                    .startsWith(QStringLiteral("in-program: not timed")));
    }

    void numericColumnsSortByNumber()
    {
        // Figures whose text sorts otherwise: "10.2000x" before "9.5000x", "100" before "30".
        std::vector<TuneDashboardRow> rows(3);
        rows[0].kernel = QStringLiteral("a");
        rows[0].hasBest = true;
        rows[0].speedup = 9.5;
        rows[0].speedupText = QStringLiteral("9.5000x");
        rows[0].evaluations = 30;
        rows[1].kernel = QStringLiteral("b");
        rows[1].hasBest = true;
        rows[1].speedup = 10.2;
        rows[1].speedupText = QStringLiteral("10.2000x");
        rows[1].evaluations = 100;
        rows[2].kernel = QStringLiteral("c"); // never ran: no speed-up, sorts below every figure
        rows[2].speedupText = QStringLiteral("-");
        rows[2].evaluations = 4;
        TuneDashboard dash;
        QAbstractItemModelTester tester(dash.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        dash.model()->setRows(rows);
        auto order = [&] {
            QString s;
            for (int r = 0; r < dash.proxy()->rowCount(); ++r)
                s += dash.proxy()->index(r, 0).data().toString();
            return s;
        };
        dash.view()->sortByColumn(TuneKernelsModel::SpeedupColumn, Qt::DescendingOrder);
        QCOMPARE(order(), QStringLiteral("bac"));
        dash.view()->sortByColumn(TuneKernelsModel::EvaluationsColumn, Qt::AscendingOrder);
        QCOMPARE(order(), QStringLiteral("cab"));
    }

    void activatingOpensTheKernel()
    {
        auto window = newWindow();
        QVERIFY(openDatabase(*window, m_db));
        TuneDashboard* dash = window->tuneDashboard();
        // The kernel whose best improved most: its run has a best to open.
        dash->view()->sortByColumn(TuneKernelsModel::SpeedupColumn, Qt::DescendingOrder);
        const QModelIndex top = dash->proxy()->index(0, TuneKernelsModel::KernelColumn);
        const QString kernel = top.data(TuneKernelsModel::KernelRole).toString();
        const TuneDashboardRow* row = nullptr;
        for (const TuneDashboardRow& r : dash->model()->rows())
            if (r.kernel == kernel) row = &r;
        QVERIFY(row && row->edits > 0);

        QSignalSpy ready(window->session(), &Session::analysisReady);
        Q_EMIT dash->view()->activated(top);
        QVERIFY(ready.wait(120000));
        QTRY_COMPARE_WITH_TIMEOUT(window->session()->searchRuns()->searches().size(), size_t(1), 10000);
        QCOMPARE(window->session()->kernelName(), kernel); // the samples' symbols are their spec names
        QCOMPARE(window->session()->launchSpecPath(), test::sampleSpec(kernel));
        const SearchRecord& record = window->session()->searchRuns()->searches().front();
        QCOMPARE(int(record.history.size()), 30);
        QVERIFY(record.improved());
        // The run's best is the current variant: the diff shows it against the original.
        const int current = window->session()->variantTree()->currentVariantId();
        QVERIFY(current > 0);
        QCOMPARE(window->session()->variantTree()->variant(current)->edits.empty(), false);
        QVERIFY(window->findChild<QDockWidget*>(QStringLiteral("searchDock"))->isVisibleTo(window.get()));
        QVERIFY(window->findChild<QDockWidget*>(QStringLiteral("diffDock"))->isVisibleTo(window.get()));
    }

    void refusedDatabasesLoseNothing()
    {
        auto window = newWindow();
        QVERIFY(openDatabase(*window, m_db));
        QVERIFY(test::openAndWait(*window->session(), test::sampleCubin(QStringLiteral("rmsnorm"))));
        const int rows = window->tuneDashboard()->model()->rowCount();

        // Another schema version (a copy: the real one stays for the other tests).
        const QString other = m_tmp.filePath(QStringLiteral("other-version.sqlite"));
        QVERIFY(QFile::copy(m_db, other));
        QVERIFY(exec(other, "PRAGMA user_version=99"));
        QString error;
        QVERIFY(!openDatabase(*window, other, &error));
        QVERIFY2(error.contains(QStringLiteral("version 99")) && !error.contains(QLatin1Char('\n')),
                 qPrintable(error));
        QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("version 99")));

        // A SQLite file of another program: refused, and not altered (no tables added, no journal mode).
        const QString foreign = m_tmp.filePath(QStringLiteral("foreign.sqlite"));
        QVERIFY(exec(foreign, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)"));
        const QByteArray before = [&] {
            QFile f(foreign);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QVERIFY(!openDatabase(*window, foreign, &error));
        QVERIFY2(error.contains(QStringLiteral("not a sassx tune database")) &&
                     !error.contains(QLatin1Char('\n')),
                 qPrintable(error));
        QFile after(foreign);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before);

        // A truncated file that only begins like SQLite: classified as a database, refused with one line.
        const QString truncated = m_tmp.filePath(QStringLiteral("truncated.sqlite"));
        {
            QFile f(truncated);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray("SQLite format 3", 16) + QByteArray(40, '\xff'));
        }
        QVERIFY(classifyInput(truncated.toStdString()).sqliteDatabase);
        QVERIFY(!openDatabase(*window, truncated, &error));
        QVERIFY2(!error.isEmpty() && !error.contains(QLatin1Char('\n')), qPrintable(error));

        // An empty SQLite file is not made into a tune database either.
        const QString empty = m_tmp.filePath(QStringLiteral("empty.sqlite"));
        QVERIFY(exec(empty, "PRAGMA user_version=0"));
        QVERIFY(!openDatabase(*window, empty, &error));

        // What was open stays: the kernel, and the dashboard's database and rows.
        QCOMPARE(window->session()->kernelName(), QStringLiteral("rmsnorm"));
        QCOMPARE(window->tuneDashboard()->path(), QFileInfo(m_db).absoluteFilePath());
        QCOMPARE(window->tuneDashboard()->model()->rowCount(), rows);
    }

    void refreshReadsAgain()
    {
        auto window = newWindow();
        QVERIFY(openDatabase(*window, m_db));
        QSignalSpy loaded(window->tuneDashboard(), &TuneDashboard::loaded);
        window->tuneDashboard()->findChild<QPushButton*>(QStringLiteral("tuneRefresh"))->click();
        QVERIFY(loaded.wait(60000));
        QCOMPARE(window->tuneDashboard()->model()->rowCount(), int(kKernels.size()));
    }

    void rereadWhenATuneWrites()
    {
        // A copy: the write stands for a running tune's.
        const QString copy = m_tmp.filePath(QStringLiteral("written.sqlite"));
        QVERIFY(QFile::copy(m_db, copy));
        auto window = newWindow();
        QVERIFY(openDatabase(*window, copy));
        QSignalSpy loaded(window->tuneDashboard(), &TuneDashboard::loaded);
        QTest::qWait(1100); // a new modification time, whatever the file system's resolution
        QVERIFY(exec(copy, "UPDATE kernels SET time_share = 0.5 WHERE name = 'rmsnorm'"));
        QVERIFY(loaded.wait(10000));
        bool seen = false;
        for (const TuneDashboardRow& r : window->tuneDashboard()->model()->rows())
            seen = seen || (r.kernel == QStringLiteral("rmsnorm") && r.timeShare == 0.5);
        QVERIFY(seen);
    }
};

QTEST_MAIN(TestTuneDashboard)
#include "test_tune_dashboard.moc"
