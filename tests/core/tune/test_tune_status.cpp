// The tune's typed decisions and their one name table each (tune_status.h, tune_runner.h's KernelState,
// tune_launcher.h's Launcher): every name reads back as its value, text outside a table is refused in one
// line, a database row whose status another program wrote is refused when read, and the report's
// "finished*" is a finished run that was resumed.
#include "core/tune/tune_db.h"
#include "core/tune/tune_launcher.h"
#include "core/tune/tune_plan.h"
#include "core/tune/tune_report.h"
#include "core/tune/tune_status.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

using namespace sassx;
using namespace sassx::tune;

namespace {

// Each table's names, as the round trip reads them: the name parsed, then named again.
template <class E, std::size_t N>
std::optional<std::string> roundTrip(const std::array<EnumName<E>, N>& table, const std::string& text)
{
    const auto v = parseEnum(table, text);
    if (!v) return std::nullopt;
    return std::string(enumName(table, *v));
}

std::optional<std::string> roundTripIn(const QString& table, const std::string& text)
{
    if (table == "run") return roundTrip(kRunStatusNames, text);
    if (table == "kernel") return roundTrip(kKernelStatusNames, text);
    if (table == "state") return roundTrip(kKernelStateNames, text);
    if (table == "launcher") return roundTrip(kLauncherNames, text);
    return std::nullopt;
}

// The accepted names of a table, each a row.
template <class E, std::size_t N> void addNames(const char* table, const std::array<EnumName<E>, N>& names)
{
    for (const EnumName<E>& e : names)
        QTest::newRow((std::string(table) + " " + std::string(e.name)).c_str())
            << table << QString::fromUtf8(e.name);
}

bool rawSql(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
              sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

} // namespace

class TestTuneStatus : public QObject
{
    Q_OBJECT

private slots:
    void namesRoundTrip_data()
    {
        QTest::addColumn<QString>("table");
        QTest::addColumn<QString>("name");
        addNames("run", kRunStatusNames);
        addNames("kernel", kKernelStatusNames);
        addNames("state", kKernelStateNames);
        addNames("launcher", kLauncherNames);
    }
    void namesRoundTrip()
    {
        QFETCH(QString, table);
        QFETCH(QString, name);
        const auto back = roundTripIn(table, name.toStdString());
        QVERIFY2(back, qPrintable(name + " is not read back"));
        QCOMPARE(QString::fromStdString(*back), name);
    }

    // Text that is no run status: the report's marks and spellings close to a name.
    void unknownRunStatusRefused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("resumed mark") << "finished*";
        QTest::newRow("report only") << "interrupted";
        QTest::newRow("capitalised") << "Finished";
        QTest::newRow("empty") << "";
        QTest::newRow("progress state") << "queued";
    }
    void unknownRunStatusRefused()
    {
        QFETCH(QString, text);
        const auto s = parseRunStatus(text.toStdString());
        QVERIFY(!s);
        QCOMPARE(QString::fromStdString(s.message()),
                 "a run's status must be running, stopped, finished or failed (not '" + text + "')");
    }

    void unknownLauncherRefused()
    {
        const auto l = parseEnumOrError(kLauncherNames, "pbs", "--launcher");
        QVERIFY(!l);
        QCOMPARE(QString::fromStdString(l.message()),
                 QStringLiteral("--launcher must be local or slurm (not 'pbs')"));
    }

    // The report's status of a run, and its text cell: "finished*" is a finished run that was resumed.
    void reportStatus_data()
    {
        QTest::addColumn<int>("run");
        QTest::addColumn<bool>("ownerGone");
        QTest::addColumn<int>("resumed");
        QTest::addColumn<QString>("cell");
        QTest::newRow("finished") << int(RunStatus::Finished) << false << 0 << "finished";
        QTest::newRow("finished, resumed") << int(RunStatus::Finished) << false << 2 << "finished*";
        QTest::newRow("stopped, resumed") << int(RunStatus::Stopped) << false << 1 << "stopped";
        QTest::newRow("running") << int(RunStatus::Running) << false << 0 << "running";
        QTest::newRow("running, owner gone") << int(RunStatus::Running) << true << 1 << "interrupted";
        QTest::newRow("failed") << int(RunStatus::Failed) << true << 0 << "failed";
    }
    void reportStatus()
    {
        QFETCH(int, run);
        QFETCH(bool, ownerGone);
        QFETCH(int, resumed);
        QFETCH(QString, cell);
        TuneReportRow row;
        row.status = kernelStatusOf(RunStatus(run), ownerGone);
        row.resumed = resumed;
        QCOMPARE(QString::fromStdString(statusCell(row)), cell);
    }

    // A row another program wrote with a status of its own is refused in one line naming the run, and a
    // run ends only finished or stopped through finishRun.
    void databaseStatusRefused()
    {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("tune.sqlite").toStdString();
        int64_t runId = 0;
        {
            auto db = TuneDb::open(path);
            QVERIFY2(db, db ? "" : db.message().c_str());
            TuneKernel k;
            k.name = "rmsnorm";
            k.specPath = "/specs/rmsnorm.launch.json";
            k.cubinPath = "/specs/rmsnorm.sm_90.cubin";
            auto id = (*db)->upsertKernel(k, "equal shares");
            QVERIFY(id);
            auto run = (*db)->startRun(*id, "/runs/rmsnorm", "{}", "estimate");
            QVERIFY(run);
            runId = *run;
            QCOMPARE((*(*db)->latestRun("rmsnorm"))->status, RunStatus::Running);
            const Status failed = (*db)->finishRun(runId, RunStatus::Failed, {}, std::nullopt);
            QVERIFY(!failed);
            QCOMPARE(QString::fromStdString(failed.message()),
                     QStringLiteral("a run ends finished or stopped, not failed"));
        }
        QVERIFY(rawSql(path, "UPDATE runs SET status = 'paused'"));
        auto db = TuneDb::open(path);
        QVERIFY(db);
        const std::string expected =
            path + ": run " + std::to_string(runId) +
            " of rmsnorm: a run's status must be running, stopped, finished or failed (not 'paused')";
        const auto latest = (*db)->latestRun("rmsnorm");
        QVERIFY(!latest);
        QCOMPARE(latest.message(), expected);
        const auto runs = (*db)->runs();
        QVERIFY(!runs);
        QCOMPARE(runs.message(), expected);
        const auto report = buildReport(**db);
        QVERIFY(!report);
        QCOMPARE(report.message(), expected);
    }
};

QTEST_GUILESS_MAIN(TestTuneStatus)
#include "test_tune_status.moc"
