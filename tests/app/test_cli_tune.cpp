// sassx-cli tune end to end with the estimate backend: every bundled sample tuned into one database and
// reported; a tune killed (SIGKILL, then SIGTERM) resumes without redoing finished kernels; two processes
// writing one database at once; write-back of a verified best into a Triton cache entry and its restore;
// one-line errors for bad input. Small budgets: the estimate runs hundreds of evaluations a second.
#include "cli_test_support.h"
#include "sqlite_query.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <sqlite3.h>

#include <csignal>
#include <functional>

namespace {

QString samplePath(const QString& file)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1").arg(file);
}

QString oneLine(const CliRun& r, const QString& reason)
{
    const QStringList lines = r.errLines();
    if (r.ok() || r.crashed || r.timedOut) return QStringLiteral("expected a clean failure: ") + r.describe();
    if (r.exitCode != 1) return "exit code is not 1: " + r.describe();
    if (lines.size() != 1 || !lines[0].startsWith("sassx-cli: "))
        return "not one 'sassx-cli: ' line: " + r.describe();
    if (!lines[0].contains(reason, Qt::CaseInsensitive))
        return "does not mention '" + reason + "': " + lines[0];
    return {};
}

// A directory of the named samples' specs and cubins.
bool specDir(const QString& dir, const QStringList& stems)
{
    if (!QDir().mkpath(dir)) return false;
    for (const QString& s : stems)
        for (const QString& f : {s + ".launch.json", s + ".sm_90.cubin"})
            if (!QFile::copy(samplePath(f), dir + "/" + f)) return false;
    return true;
}

// Starts sassx-cli and waits until `ready` holds for what it has printed so far (then signals it with
// `signal`) or it exits; returns whether `ready` was met while it ran.
bool runUntil(const QStringList& args, const std::function<bool(const QByteArray&)>& ready, int signal,
              CliRun* result)
{
    QProcess p;
    p.setProgram(QStringLiteral(SASSX_CLI));
    p.setArguments(args);
    p.start();
    if (!p.waitForStarted(10000)) return false;
    QByteArray out;
    bool met = false;
    for (int i = 0; i < 6000 && p.state() == QProcess::Running; ++i) {
        p.waitForReadyRead(20);
        out += p.readAllStandardOutput();
        if (ready(out)) {
            met = true;
            ::kill(pid_t(p.processId()), signal);
            break;
        }
    }
    p.waitForFinished(60000);
    result->args = args;
    result->out = out + p.readAllStandardOutput();
    result->err = p.readAllStandardError();
    result->exitCode = p.exitCode();
    result->crashed = p.exitStatus() == QProcess::CrashExit;
    return met;
}

// Whether one of the JSON progress lines in `out` says `kernel` reached `state`.
bool hasState(const QByteArray& out, const QString& kernel, const QString& state)
{
    for (const QByteArray& line : out.split('\n')) {
        const QJsonObject j = QJsonDocument::fromJson(line).object();
        if (j["kernel"].toString() == kernel && j["state"].toString() == state) return true;
    }
    return false;
}

// A synthetic Triton cache entry holding `cubin` as kernel `kernel` (core/rewrite/triton_cache.h).
bool tritonEntry(const QString& dir, const QString& cubin, const QString& kernel)
{
    if (!QDir().mkpath(dir)) return false;
    const QJsonObject target{{"backend", "cuda"}, {"arch", 90}, {"warp_size", 32}};
    const QJsonObject meta{{"hash", "0123abcd"}, {"target", target}, {"num_warps", 4}, {"num_ctas", 1},
                           {"num_stages", 3},    {"shared", 0},      {"name", kernel}};
    return QFile::copy(cubin, dir + "/" + kernel + ".cubin") &&
           writeBytes(dir + "/" + kernel + ".json", QJsonDocument(meta).toJson());
}

} // namespace

class TestCliTune : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QByteArray m_foreignBytes;
    QString tmp(const QString& name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        for (const char* f : {"rmsnorm.sm_90.cubin", "sgemm_leakyrelu.sm_90.cubin"})
            if (!QFileInfo::exists(samplePath(f))) QSKIP("sample cubins missing (no nvcc?)");
    }

    // Every bundled sample: a finished run with its evaluations in the database, the report (text,
    // HTML, JSON) labelled an estimate; a second tune finds everything done and runs nothing.
    void samplesEndToEnd()
    {
        const QString db = tmp("samples.sqlite"), runs = tmp("samples-runs");
        // Two kernels at a time (threads: the estimate needs no GPU).
        const QStringList args =
            QStringList{"tune", SASSX_SAMPLES_DIR, "--backend", "estimate", "--jobs", "2"} +
            QStringList{"--budget-evals", "12", "--db", db, "--out", runs};
        const CliRun r = runCli(args, 240000);
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QDir samples(SASSX_SAMPLES_DIR);
        const QStringList specs = samples.entryList({"*.launch.json"});
        QStringList expected;
        for (const QString& s : specs)
            if (QFileInfo::exists(samples.filePath(
                    QJsonDocument::fromJson(readBytes(samples.filePath(s))).object()["cubin"].toString())))
                expected << s.chopped(12);
        QVERIFY(expected.size() >= 4);
        const QStringList rows =
            query(db, "SELECT k.name, r.status, r.backend, r.evaluations, "
                      "(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id), "
                      "(SELECT count(*) FROM bests b WHERE b.run_id = r.id) "
                      "FROM runs r JOIN kernels k ON k.id = r.kernel_id ORDER BY k.name");
        QCOMPARE(rows.size(), expected.size());
        for (int i = 0; i < rows.size(); ++i) {
            const QStringList c = rows[i].split('|');
            QCOMPARE(c[0], expected[i]);
            QCOMPARE(c[1], QStringLiteral("finished"));
            QCOMPARE(c[2], QStringLiteral("estimate"));
            QVERIFY2(c[3].toInt() >= 1 && c[3].toInt() <= 12 && c[3] == c[4], qPrintable(rows[i]));
            QCOMPARE(c[5], QStringLiteral("1"));
        }
        QCOMPARE(query(db, "PRAGMA user_version"), QStringList{"1"});
        QCOMPARE(query(db, "PRAGMA journal_mode"), QStringList{"wal"});
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains("program-level ESTIMATE, not a measurement") &&
                     text.contains("equal shares: no capture"),
                 qPrintable(text));
        QVERIFY(QFileInfo::exists(runs + "/report.html") && QFileInfo::exists(runs + "/report.json"));
        const QJsonObject report = QJsonDocument::fromJson(readBytes(runs + "/report.json")).object();
        QCOMPARE(report["kernels"].toArray().size(), expected.size());
        QVERIFY(report["program_estimate"].toObject()["label"].toString().startsWith(
            "estimate, not a measurement"));

        // Again: nothing to do, the same runs; --report-only --json renders from the database alone.
        const CliRun again = runCli(args);
        QVERIFY2(again.ok(), qPrintable(again.describe()));
        QCOMPARE(query(db, "SELECT count(*) FROM runs"), QStringList{QString::number(expected.size())});
        const CliRun only =
            runCli({"tune", SASSX_SAMPLES_DIR, "--db", db, "--out", runs, "--report-only", "--json"});
        QVERIFY2(only.ok(), qPrintable(only.describe()));
        const QJsonObject j = QJsonDocument::fromJson(only.out).object();
        QCOMPARE(j["report"].toObject()["kernels"].toArray().size(), expected.size());
    }

    // Killed with SIGKILL while the second kernel runs, then stopped with SIGTERM: each time the first
    // kernel stays done (its one run untouched), the second continues from its checkpoint; the history
    // exported from the database equals the run's own history.csv.
    void killedTuneResumes()
    {
        const QString dir = tmp("resume");
        QVERIFY(specDir(dir, {"rmsnorm", "sgemm_leakyrelu"}));
        const QString db = dir + "/tune.sqlite", ckpt = dir + "/tune-runs/sgemm_leakyrelu/checkpoint.json";
        const QStringList args = {"tune", dir, "--backend", "estimate", "--budget-evals", "1000", "--json"};
        CliRun killed;
        const bool hit = runUntil(
            args,
            [&](const QByteArray& out) {
                return hasState(out, "rmsnorm", "finished") && QFileInfo::exists(ckpt);
            },
            SIGKILL, &killed);
        QVERIFY2(hit, qPrintable(killed.describe()));
        QCOMPARE(query(db, "SELECT k.name, r.id, r.status FROM runs r JOIN kernels k ON k.id = r.kernel_id "
                           "ORDER BY r.id"),
                 (QStringList{"rmsnorm|1|finished", "sgemm_leakyrelu|2|running"}));
        const QString rmsEvals = query(db, "SELECT count(*) FROM evaluations WHERE run_id = 1").value(0);
        const CliRun interrupted = runCli({"tune", dir, "--report-only"});
        QVERIFY2(interrupted.ok() && interrupted.out.contains("interrupted"),
                 qPrintable(interrupted.describe()));

        CliRun stopped;
        QVERIFY(runUntil(
            args, [](const QByteArray& out) { return out.contains(R"("phase":"climb")"); }, SIGTERM,
            &stopped));
        const QString problem = oneLine(stopped, "stopped with 1 kernel(s) unfinished: run the same command");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(hasState(stopped.out, "rmsnorm", "done"), stopped.out.constData());
        QVERIFY2(hasState(stopped.out, "sgemm_leakyrelu", "stopped"), stopped.out.constData());
        QCOMPARE(query(db, "SELECT status, resumed FROM runs WHERE id = 2"), QStringList{"stopped|1"});

        const CliRun finished = runCli(args);
        QVERIFY2(finished.ok(), qPrintable(finished.describe()));
        QCOMPARE(
            query(db, "SELECT k.name, r.id, r.status, r.resumed, r.evaluations FROM runs r JOIN kernels k ON "
                      "k.id = r.kernel_id ORDER BY r.id"),
            (QStringList{"rmsnorm|1|finished|0|" + rmsEvals, "sgemm_leakyrelu|2|finished|2|1000"}));
        QCOMPARE(query(db, "SELECT count(*), min(step), max(step) FROM evaluations WHERE run_id = 2"),
                 QStringList{"1000|0|999"});

        const CliRun exported = runCli({"tune", dir, "--report-only", "--export", tmp("exported")});
        QVERIFY2(exported.ok(), qPrintable(exported.describe()));
        for (const QString& k : QStringList{"rmsnorm", "sgemm_leakyrelu"})
            for (const QString& f : QStringList{"history.csv", "report.json"}) {
                const QByteArray mine = readBytes(tmp("exported") + "/" + k + "/" + f);
                QVERIFY2(!mine.isEmpty() && mine == readBytes(dir + "/tune-runs/" + k + "/" + f),
                         qPrintable(k + "/" + f));
            }
        QVERIFY(exported.out.contains("finished*")); // the resumed run is marked
    }

    // Two processes (as two Slurm array tasks) tuning one kernel each into the same database at once.
    void concurrentTasks()
    {
        const QString dir = tmp("tasks");
        QVERIFY(specDir(dir, {"rmsnorm", "sgemm_leakyrelu"}));
        QProcess a, b;
        for (auto [p, index] : {std::pair{&a, "0"}, std::pair{&b, "1"}}) {
            p->setProgram(QStringLiteral(SASSX_CLI));
            p->setArguments(
                {"tune", dir, "--backend", "estimate", "--budget-evals", "300", "--task-index", index});
            p->start();
        }
        for (QProcess* p : {&a, &b}) {
            QVERIFY(p->waitForFinished(120000));
            QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
        }
        QCOMPARE(query(dir + "/tune.sqlite",
                       "SELECT k.name, r.status FROM runs r JOIN kernels k ON k.id = r.kernel_id "
                       "ORDER BY k.name"),
                 (QStringList{"rmsnorm|finished", "sgemm_leakyrelu|finished"}));
    }

    // --total-time over a capture: each kernel's time budget is a floor of a quarter of an equal split
    // plus its share of the rest (docs/tune.md), and the parts add up to the total.
    void totalTimeSplitByShare()
    {
        const QString dir = tmp("split");
        QVERIFY(specDir(dir, {"rmsnorm", "sgemm_leakyrelu"}));
        QJsonArray kernels;
        for (const auto& [name, share] : {std::pair{"sgemm_leakyrelu", 0.6}, std::pair{"rmsnorm", 0.2}})
            kernels.append(
                QJsonObject{{"name", name}, {"spec", QString(name) + ".launch.json"}, {"time_share", share}});
        QVERIFY(writeBytes(
            dir + "/capture.json",
            QJsonDocument(QJsonObject{{"format", "sassx-capture"}, {"version", 1}, {"kernels", kernels}})
                .toJson()));
        const CliRun r =
            runCli({"tune", dir, "--backend", "estimate", "--total-time", "40s", "--budget-evals", "40"});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const QStringList budgets =
            query(dir + "/tune.sqlite",
                  "SELECT k.name, json_extract(r.config, '$.budget_seconds') FROM runs r JOIN "
                  "kernels k ON k.id = r.kernel_id ORDER BY k.name");
        QCOMPARE(budgets.size(), 2);
        const double rms = budgets[0].section('|', 1).toDouble(),
                     sgemm = budgets[1].section('|', 1).toDouble();
        // Floors of 40 / 2 / 4 s, the other 30 s by share; the second kernel's part stands as planned
        // because the first ended (by its evaluation budget) long before the deadline would scale it.
        QVERIFY2(qAbs(rms - (5.0 + 30.0 * 0.2 / 0.8)) < 1e-9, qPrintable(budgets.join(' ')));
        QVERIFY2(qAbs(sgemm - (5.0 + 30.0 * 0.6 / 0.8)) < 1e-9, qPrintable(budgets.join(' ')));
    }

    // After its search a kernel reports what it does with its best (re-measuring it, then verifying it
    // on a GPU), so the progress does not sit at 100% without saying why.
    void phasesAfterTheSearch()
    {
        const QString dir = tmp("phases");
        QVERIFY(specDir(dir, {"sgemm_leakyrelu"}));
        const CliRun r = runCli({"tune", dir, "--backend", "estimate", "--budget-evals", "40", "--json"});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QStringList phases;
        for (const QByteArray& line : r.out.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o.value("kernel").toString() == "sgemm_leakyrelu") phases << o.value("phase").toString();
        }
        QVERIFY2(phases.contains("re-measuring the best"), qPrintable(phases.join(", ")));
        QVERIFY2(phases.indexOf("re-measuring the best") > phases.indexOf("opening"),
                 qPrintable(phases.join(", ")));
    }

    // The default space: yield where kernels are measured, mem under the estimate (which scores every
    // yield edit 1.000x and says so when asked to search them).
    void defaultSpace()
    {
        const QString dir = tmp("space");
        QVERIFY(specDir(dir, {"rmsnorm"}));
        const auto space = [&](const QString& db) {
            return query(db, "SELECT json_extract(config, '$.space') FROM runs");
        };
        const CliRun estimated = runCli({"tune", dir, "--backend", "estimate", "--budget-evals", "4", "--db",
                                         tmp("space-est.sqlite"), "--out", tmp("space-est")});
        QVERIFY2(estimated.ok(), qPrintable(estimated.describe()));
        QCOMPARE(space(tmp("space-est.sqlite")), QStringList{"mem"});
        QVERIFY2(!estimated.err.contains("does not model yield"), estimated.err.constData());
        // Measured (here the worker cannot start, so the kernel fails after its run is recorded).
        const CliRun measured =
            runCli({"tune", dir, "--backend", "gpu", "--worker", tmp("no-such-worker"), "--budget-evals", "4",
                    "--db", tmp("space-gpu.sqlite"), "--out", tmp("space-gpu")});
        QVERIFY(!measured.ok());
        QCOMPARE(space(tmp("space-gpu.sqlite")), QStringList{"yield"});
        const CliRun blind =
            runCli({"tune", dir, "--backend", "estimate", "--space", "yield", "--budget-evals", "4", "--db",
                    tmp("space-blind.sqlite"), "--out", tmp("space-blind")});
        QVERIFY2(blind.ok(), qPrintable(blind.describe()));
        QVERIFY2(blind.err.contains("note: the estimate does not model yield or reuse bits"),
                 blind.err.constData());
    }

    // Only a verified best is written back, into the capture's Triton cache entry, with the original
    // kept; --restore puts it back.
    void writeBackAndRestore()
    {
        const QString dir = tmp("capture"), entry = tmp("cache/ENTRY");
        QVERIFY(specDir(dir, {"sgemm_leakyrelu"}));
        const QString original = samplePath("sgemm_leakyrelu.sm_90.cubin");
        QVERIFY(tritonEntry(entry, original, "sgemm_leakyrelu"));
        const QJsonObject kernel{{"name", "sgemm_leakyrelu"},
                                 {"spec", "sgemm_leakyrelu.launch.json"},
                                 {"launches", 4},
                                 {"gpu_time_us", 400.0},
                                 {"time_share", 0.4},
                                 {"triton_cache_dir", entry}};
        const QJsonObject capture{{"format", "sassx-capture"},
                                  {"version", 1},
                                  {"total_gpu_time_us", 1000.0},
                                  {"kernels", QJsonArray{kernel}},
                                  {"skipped", QJsonArray{}}};
        QVERIFY(writeBytes(dir + "/capture.json", QJsonDocument(capture).toJson()));
        const CliRun r =
            runCli({"tune", dir, "--backend", "estimate", "--budget-evals", "60", "--write-back"});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QVERIFY2(r.out.contains("time shares from the capture") && r.out.contains("40.0%"),
                 r.out.constData());
        QVERIFY2(r.out.contains("sgemm_leakyrelu: not written: its best is unverified"), r.out.constData());
        QCOMPARE(readBytes(entry + "/sgemm_leakyrelu.cubin"), readBytes(original));

        // As a GPU run would have left it: the best re-checked correct on fresh inputs.
        const QString db = dir + "/tune.sqlite";
        QCOMPARE(query(db, "SELECT improved FROM bests"), QStringList{"1"});
        query(db, "UPDATE bests SET verified = 1, verification = 'correct on fresh inputs'");
        // `--write-back` alone (no budget) writes back what the database holds; it tunes nothing.
        const CliRun wrote = runCli({"tune", dir, "--write-back"});
        QVERIFY2(wrote.ok(), qPrintable(wrote.describe()));
        QVERIFY2(wrote.out.contains("sgemm_leakyrelu: ") && wrote.out.contains("wrote "),
                 wrote.out.constData());
        const QByteArray best = readBytes(dir + "/tune-runs/sgemm_leakyrelu/best.cubin");
        QVERIFY(!best.isEmpty() && best != readBytes(original));
        QCOMPARE(readBytes(entry + "/sgemm_leakyrelu.cubin"), best);
        QCOMPARE(readBytes(entry + "/sgemm_leakyrelu.cubin.sassx-orig"), readBytes(original));
        QCOMPARE(query(db, "SELECT written_back FROM bests"), QStringList{entry});
        QCOMPARE(query(db, "SELECT count(*) FROM runs"), QStringList{"1"});

        const CliRun restored = runCli({"tune", dir, "--restore"});
        QVERIFY2(restored.ok(), qPrintable(restored.describe()));
        QVERIFY(restored.out.contains("restored the original cubin in " + entry.toUtf8()));
        QCOMPARE(readBytes(entry + "/sgemm_leakyrelu.cubin"), readBytes(original));
        QVERIFY(!QFileInfo::exists(entry + "/sgemm_leakyrelu.cubin.sassx-orig"));
        QCOMPARE(query(db, "SELECT written_back FROM bests"), QStringList{""});
    }

    // A kernel without a Triton cache entry (captured at the driver): its verified best goes into the
    // capture's tuned/ directory and manifest, which the driver hook reads; --restore takes it out; the
    // report names where the kernel came from.
    void writeBackIntoTunedDirectory()
    {
        const QString dir = tmp("driver-capture");
        QVERIFY(specDir(dir, {"sgemm_leakyrelu"}));
        const QJsonObject kernel{{"name", "sgemm_leakyrelu"},
                                 {"spec", "sgemm_leakyrelu.launch.json"},
                                 {"launches", 4},
                                 {"gpu_time_us", 400.0},
                                 {"time_share", 0.4},
                                 {"origin", "library"},
                                 {"library", "/venv/torch/lib/libtorch_cuda.so"}};
        const QJsonObject capture{{"format", "sassx-capture"},
                                  {"version", 1},
                                  {"total_gpu_time_us", 1000.0},
                                  {"kernels", QJsonArray{kernel}},
                                  {"skipped", QJsonArray{}}};
        QVERIFY(writeBytes(dir + "/capture.json", QJsonDocument(capture).toJson()));
        const CliRun r = runCli({"tune", dir, "--backend", "estimate", "--budget-evals", "60"});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QVERIFY2(r.out.contains("origin: library libtorch_cuda.so (/venv/torch/lib/libtorch_cuda.so)"),
                 r.out.constData());
        const QString db = dir + "/tune.sqlite";
        QCOMPARE(query(db, "SELECT improved FROM bests"), QStringList{"1"});
        query(db, "UPDATE bests SET verified = 1, verification = 'correct on fresh inputs'");
        const CliRun wrote = runCli({"tune", dir, "--write-back"});
        QVERIFY2(wrote.ok(), qPrintable(wrote.describe()));
        QVERIFY2(wrote.out.contains("tuned/sgemm_leakyrelu.tuned.cubin") &&
                     wrote.out.contains("python -m sassx_capture run --tuned"),
                 wrote.out.constData());
        const QByteArray best = readBytes(dir + "/tune-runs/sgemm_leakyrelu/best.cubin");
        QCOMPARE(readBytes(dir + "/tuned/sgemm_leakyrelu.tuned.cubin"), best);
        const QJsonObject manifest =
            QJsonDocument::fromJson(readBytes(dir + "/tuned/manifest.json")).object();
        QCOMPARE(manifest["format"].toString(), QStringLiteral("sassx-tuned"));
        const QJsonObject entry = manifest["kernels"].toArray().at(0).toObject();
        QCOMPARE(entry["kernel"].toString(), QStringLiteral("sgemm_leakyrelu"));
        QCOMPARE(
            entry["image_sha256"].toString(),
            QString::fromLatin1(QCryptographicHash::hash(readBytes(samplePath("sgemm_leakyrelu.sm_90.cubin")),
                                                         QCryptographicHash::Sha256)
                                    .toHex()));
        const CliRun restored = runCli({"tune", dir, "--restore"});
        QVERIFY2(restored.ok(), qPrintable(restored.describe()));
        QVERIFY2(restored.out.contains("removed its tuned cubin"), restored.out.constData());
        QVERIFY(!QFileInfo::exists(dir + "/tuned/sgemm_leakyrelu.tuned.cubin"));
        QVERIFY(QJsonDocument::fromJson(readBytes(dir + "/tuned/manifest.json"))
                    .object()["kernels"]
                    .toArray()
                    .isEmpty());
        QCOMPARE(query(db, "SELECT written_back FROM bests"), QStringList{""});
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QString missingCubin = tmp("no-cubin"), otherDb = tmp("other.sqlite"), ok = tmp("bad-ok");
        QDir().mkpath(missingCubin);
        QFile::copy(samplePath("rmsnorm.launch.json"), missingCubin + "/rmsnorm.launch.json");
        specDir(ok, {"rmsnorm"});
        // A spec that parses but cannot be made against its cubin (a parameter short), beside a good one.
        const QString unmade = tmp("unmade");
        specDir(unmade, {"rmsnorm", "sgemm_leakyrelu"});
        QJsonObject spec = QJsonDocument::fromJson(readBytes(unmade + "/rmsnorm.launch.json")).object();
        QJsonArray params = spec["params"].toArray();
        params.removeLast();
        spec["params"] = params;
        writeBytes(unmade + "/rmsnorm.launch.json", QJsonDocument(spec).toJson());
        sqlite3* h = nullptr;
        sqlite3_open(otherDb.toUtf8().constData(), &h);
        sqlite3_exec(h, "PRAGMA application_id=1396790104; CREATE TABLE t(a); PRAGMA user_version=9", nullptr,
                     nullptr, nullptr);
        sqlite3_close(h);
        const QStringList budget = {"--backend", "estimate", "--budget-evals", "5"};
        QTest::newRow("missing dir") << (QStringList{"tune", tmp("absent")} + budget) << "does not exist";
        QTest::newRow("spec whose cubin is missing")
            << (QStringList{"tune", missingCubin} + budget) << "rmsnorm.sm_90.cubin is missing";
        QTest::newRow("spec that cannot be made")
            << (QStringList{"tune", unmade} + budget)
            << "1 of 2 kernel(s) failed: rmsnorm: kernel rmsnorm takes 5";
        // Another program's SQLite database: refused, and not a byte of it changed (no WAL switch).
        const QString foreign = tmp("foreign.sqlite");
        sqlite3_open(foreign.toUtf8().constData(), &h);
        sqlite3_exec(h, "CREATE TABLE notes(a); INSERT INTO notes VALUES (1)", nullptr, nullptr, nullptr);
        sqlite3_close(h);
        m_foreignBytes = readBytes(foreign);
        QTest::newRow("database of another program")
            << (QStringList{"tune", ok, "--db", foreign} + budget) << "of another program";
        QTest::newRow("database of another version")
            << (QStringList{"tune", ok, "--db", otherDb} + budget) << "schema version 9";
        QTest::newRow("unknown option")
            << (QStringList{"tune", ok, "--frobnicate"} + budget) << "unknown option --frobnicate";
        QTest::newRow("no budget") << QStringList{"tune", ok, "--backend", "estimate"} << "give a budget";
        QTest::newRow("unknown kernel")
            << (QStringList{"tune", ok, "--kernels", "nope"} + budget) << "no kernel 'nope'";
        QTest::newRow("task index outside")
            << (QStringList{"tune", ok, "--task-index", "3"} + budget) << "--task-index 3";
        // No controller answers here (SLURM_CONF unset; test_cli_tune_slurm runs a real one).
        QTest::newRow("missing Slurm")
            << (QStringList{"tune", ok, "--launcher", "slurm"} + budget) << "--launcher slurm: ";
        QTest::newRow("write-back and restore")
            << (QStringList{"tune", ok, "--write-back", "--restore"} + budget) << "do not go together";
        QTest::newRow("report without a database")
            << QStringList{"tune", ok, "--report-only", "--db", tmp("never.sqlite")} << "no tune database at";
        QTest::newRow("bad duration")
            << QStringList{"tune", ok, "--total-time", "soon"} << "--total-time takes a duration";
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const CliRun r = runCli(args);
        const QString problem = oneLine(r, reason);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        if (QString(QTest::currentDataTag()) == "database of another program") {
            QCOMPARE(readBytes(tmp("foreign.sqlite")), m_foreignBytes);
            QVERIFY(!QFileInfo::exists(tmp("foreign.sqlite-wal")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliTune)
#include "test_cli_tune.moc"
