// sassx-cli tune --launcher slurm on a real one-node Slurm (tests/support/slurm_cluster.h): the bundled
// samples tuned with the estimate backend as one job array, each task a `sassx-cli tune --task-index I`
// process recording its kernel into the one database; the report comes from that database. A task that
// fails is named with its log in one line. Skips (with the reason) where slurm-wlm and munge are missing;
// ./run.sh test installs them, and tests/test_report.py fails a run that skipped for that reason.
#include "cli_test_support.h"
#include "slurm_cluster.h"
#include "sqlite_query.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

namespace {

// The bundled samples whose cubin was built (what a spec-directory plan tunes), by stem.
QStringList tunableSamples()
{
    QDir samples(SASSX_SAMPLES_DIR);
    QStringList stems;
    for (const QString& s : samples.entryList({"*.launch.json"}, QDir::Files, QDir::Name)) {
        const QJsonObject spec = QJsonDocument::fromJson(readBytes(samples.filePath(s))).object();
        if (QFileInfo::exists(samples.filePath(spec["cubin"].toString()))) stems << s.chopped(12);
    }
    return stems;
}

} // namespace

class TestCliTuneSlurm : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    sassx::test::SlurmCluster m_cluster;
    QString tmp(const QString& name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        if (tunableSamples().size() < 4) QSKIP("sample cubins missing (no nvcc?)");
    }

    void samplesThroughAJobArray()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        const QString db = tmp("slurm.sqlite"), runs = tmp("slurm-runs");
        const CliRun r = runCli({"tune", SASSX_SAMPLES_DIR, "--backend", "estimate", "--budget-evals", "12",
                                 "--launcher", "slurm", "--partition",
                                 QString::fromStdString(m_cluster.partition()), "--db", db, "--out", runs},
                                240000);
        QVERIFY2(r.ok(), qPrintable(r.describe() + "\n" + QString::fromStdString(m_cluster.logTail())));
        // Every kernel finished in its own task process: one run each, written by as many owners.
        const QStringList stems = tunableSamples();
        const QStringList rows =
            query(db, "SELECT k.name, r.status, r.backend, r.evaluations "
                      "FROM runs r JOIN kernels k ON k.id = r.kernel_id ORDER BY k.name");
        QCOMPARE(rows.size(), stems.size());
        for (int i = 0; i < rows.size(); ++i) {
            const QStringList c = rows[i].split('|');
            QCOMPARE(c[0], stems[i]);
            QCOMPARE(c[1], QStringLiteral("finished"));
            QCOMPARE(c[2], QStringLiteral("estimate"));
            QVERIFY2(c[3].toInt() >= 1 && c[3].toInt() <= 12, qPrintable(rows[i]));
        }
        QCOMPARE(query(db, "SELECT count(DISTINCT owner) FROM runs"),
                 QStringList{QString::number(stems.size())});
        // One log per array task, and the report rendered from the database by the submitting process.
        QCOMPARE(QDir(runs + "/slurm").entryList({"slurm-*.out"}, QDir::Files).size(), stems.size());
        QVERIFY2(QString::fromUtf8(r.out).contains("program-level ESTIMATE, not a measurement"),
                 qPrintable(QString::fromUtf8(r.out)));
        QVERIFY(QFileInfo::exists(runs + "/report.json"));
        QCOMPARE(
            QJsonDocument::fromJson(readBytes(runs + "/report.json")).object()["kernels"].toArray().size(),
            stems.size());
    }

    // A kernel whose spec cannot be made fails its task; the tune says which task and where its log is.
    void aFailedTaskIsNamed()
    {
        SASSX_REQUIRE_SLURM(m_cluster);
        const QString dir = tmp("unmade");
        QVERIFY(QDir().mkpath(dir));
        for (const char* f : {"rmsnorm.launch.json", "rmsnorm.sm_90.cubin"})
            QVERIFY(QFile::copy(QStringLiteral(SASSX_SAMPLES_DIR "/") + f, dir + "/" + f));
        QJsonObject spec = QJsonDocument::fromJson(readBytes(dir + "/rmsnorm.launch.json")).object();
        QJsonArray params = spec["params"].toArray();
        params.removeLast();
        spec["params"] = params;
        QVERIFY(writeBytes(dir + "/rmsnorm.launch.json", QJsonDocument(spec).toJson()));
        const CliRun r = runCli(
            {"tune", dir, "--backend", "estimate", "--budget-evals", "5", "--launcher", "slurm"}, 120000);
        QCOMPARE(r.exitCode, 1);
        const QStringList lines = r.errLines();
        QVERIFY2(lines.size() == 1 && lines[0].startsWith("sassx-cli: ") &&
                     lines[0].contains("Slurm task 0") && lines[0].contains("/slurm-"),
                 qPrintable(r.describe()));
    }
};

QTEST_GUILESS_MAIN(TestCliTuneSlurm)
#include "test_cli_tune_slurm.moc"
