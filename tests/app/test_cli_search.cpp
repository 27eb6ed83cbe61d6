// sassx-cli search end to end on a sample with the estimate backend: the report and its files, JSON
// lines, a run killed with SIGKILL resumed from its checkpoint, and one-line errors for bad input.
#include "cli_test_support.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

namespace {

QString samplePath(const QString& file)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1").arg(file);
}

const QString kSpec = samplePath(QStringLiteral("flash_attn_fwd.launch.json"));

int csvRows(const QString& path)
{
    const QByteArray csv = readBytes(path);
    return csv.count('\n') - 1; // minus the header
}

QString oneLine(const CliRun& r, const QString& reason)
{
    const QStringList lines = r.errLines();
    if (r.ok() || r.crashed || r.timedOut) return QStringLiteral("expected a clean failure: ") + r.describe();
    if (lines.size() != 1 || !lines[0].startsWith("sassx-cli: "))
        return "not one 'sassx-cli: ' line: " + r.describe();
    if (!lines[0].contains(reason, Qt::CaseInsensitive))
        return "does not mention '" + reason + "': " + lines[0];
    return {};
}

} // namespace

class TestCliSearch : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo::exists(kSpec) || !QFileInfo::exists(samplePath("flash_attn_fwd.sm_90.cubin")))
            QSKIP("flash_attn_fwd sample missing (no nvcc?)");
    }

    // Without a GPU, a space of yield or reuse edits is searched blind: the CLI and the report say so.
    void estimateSaysWhatItCannotSee_data()
    {
        QTest::addColumn<QString>("space");
        QTest::addColumn<bool>("blind");
        QTest::newRow("yield") << "yield" << true;
        QTest::newRow("all+control") << "all+control" << true;
        QTest::newRow("all") << "all" << false;
    }
    void estimateSaysWhatItCannotSee()
    {
        QFETCH(QString, space);
        QFETCH(bool, blind);
        const QString out = m_tmp.filePath("blind-" + space);
        // No --algo: climb is the default.
        const CliRun r = runCli(
            {"search", kSpec, "--space", space, "--budget-evals", "6", "--backend", "estimate", "-o", out});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const bool said = r.err.contains("does not model yield or reuse bits");
        QCOMPARE(said, blind);
        const QJsonObject report = QJsonDocument::fromJson(readBytes(out + "/report.json")).object();
        QCOMPARE(report["config"].toObject()["algorithm"].toString(), QStringLiteral("climb"));
        QCOMPARE(report["evaluator"].toObject()["blind_spot"].toString().isEmpty(), !blind);
        QCOMPARE(report["summary"].toString().contains("note: the estimate does not model"), blind);
    }

    // No --space: auto, which under the estimate is the mem space (it scores every yield and reuse edit
    // 1.000x); the space used is printed and recorded beside the request. With a budget past the climb's
    // convergence the report says how often it restarted.
    void defaultSpaceIsAuto()
    {
        const QString spec = samplePath("rmsnorm.launch.json");
        if (!QFileInfo::exists(spec)) QSKIP("rmsnorm sample missing");
        const QString out = m_tmp.filePath("auto");
        const CliRun r =
            runCli({"search", spec, "--budget-evals", "1500", "--backend", "estimate", "-o", out});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QVERIFY2(
            r.err.contains("sassx-cli: space: mem (auto: the estimate scores every yield and reuse edit"),
            r.err.constData());
        QVERIFY2(!r.err.contains("does not model yield"), r.err.constData());
        const QJsonObject report = QJsonDocument::fromJson(readBytes(out + "/report.json")).object();
        const QJsonObject config = report["config"].toObject();
        QCOMPARE(config["space"].toString(), QStringLiteral("mem"));
        QCOMPARE(config["space_requested"].toString(), QStringLiteral("auto"));
        QCOMPARE(report["space"].toObject()["used"].toString(), QStringLiteral("mem"));
        QCOMPARE(report["space"].toObject()["requested"].toString(), QStringLiteral("auto"));
        QCOMPARE(report["evaluations"].toInt(), 1500);
        QCOMPARE(report["stop_reason"].toString(), QStringLiteral("budget"));
        const QString detail = report["stop_detail"].toString();
        QVERIFY2(detail.startsWith("budget spent after ") && detail.contains("converged at"),
                 qPrintable(detail));
        QVERIFY2(report["summary"].toString().contains(detail), qPrintable(report["summary"].toString()));
        const QJsonObject checkpoint = QJsonDocument::fromJson(readBytes(out + "/checkpoint.json")).object();
        QVERIFY(checkpoint["climb"].toObject()["restarts"].toInt() >= 1);
        QCOMPARE(checkpoint["config"].toObject()["space_requested"].toString(), QStringLiteral("auto"));
        // A named space stays named; --no-restart ends the climb where it converged.
        const QString named = m_tmp.filePath("named");
        const CliRun n = runCli({"search", spec, "--space", "mem", "--no-restart", "--budget-evals", "1500",
                                 "--backend", "estimate", "-o", named});
        QVERIFY2(n.ok(), qPrintable(n.describe()));
        QVERIFY(!n.err.contains("sassx-cli: space:"));
        const QJsonObject nr = QJsonDocument::fromJson(readBytes(named + "/report.json")).object();
        QCOMPARE(nr["config"].toObject()["space_requested"].toString(), QStringLiteral("mem"));
        QCOMPARE(nr["stop_reason"].toString(), QStringLiteral("converged"));
        QVERIFY(nr["evaluations"].toInt() < 1500);
    }

    void textReport()
    {
        const QString out = m_tmp.filePath("text");
        const CliRun r = runCli({"search", kSpec, "--algo", "anneal", "--space", "all", "--budget-evals",
                                 "40", "--backend", "estimate", "-o", out});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const QStringList lines = r.outLines();
        QVERIFY2(lines.size() >= 5, r.out.constData());
        // A speed-up (> 1 = faster), labelled an estimate, then where everything went.
        QVERIFY2(lines[0].startsWith("best 1.") && lines[0].contains("estimate") &&
                     lines[0].contains("not a measurement"),
                 qPrintable(lines[0]));
        for (const char* file :
             {"best.cubin", "best.json", "history.csv", "report.json", "diff.html", "checkpoint.json"})
            QVERIFY2(QFileInfo::exists(out + "/" + file), file);
        QVERIFY(r.out.contains(QDir(out).filePath("report.json").toUtf8()));
        QCOMPARE(csvRows(out + "/history.csv"), 40);
        QVERIFY(r.errLines().value(0).contains("evaluator: estimate"));
    }

    // --guide stalls with samples recorded on an H100: the report says what guided it, the samples
    // used are kept beside it; without samples (estimate backend, no --stalls) a one-line refusal.
    void stallGuided()
    {
        const QString spec = samplePath("sgemm_leakyrelu.launch.json");
        if (!QFileInfo::exists(spec)) QSKIP("sgemm sample missing");
        const QString stalls =
            QStringLiteral(SASSX_SOURCE_DIR "/tests/data/stalls/sgemm_leakyrelu.h100.stalls.json");
        const QString out = m_tmp.filePath("guided");
        const CliRun r =
            runCli({"search", spec, "--algo", "anneal", "--space", "all", "--budget-evals", "30", "--backend",
                    "estimate", "--guide", "stalls", "--stalls", stalls, "-o", out});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const QJsonObject report = QJsonDocument::fromJson(readBytes(out + "/report.json")).object();
        QCOMPARE(report["guide"].toObject()["kind"].toString(), QStringLiteral("stalls"));
        QVERIFY(report["guide"].toObject()["source"].toString().contains(QStringLiteral("H100")));
        QCOMPARE(report["config"].toObject()["guide"].toString(), QStringLiteral("stalls"));
        QVERIFY(QFileInfo::exists(out + "/stalls.json"));
        const CliRun none = runCli({"search", spec, "--algo", "anneal", "--budget-evals", "5", "--backend",
                                    "estimate", "--guide", "stalls", "-o", m_tmp.filePath("guided-none")});
        // The evaluator note, then the refusal on one line.
        QCOMPARE(none.exitCode, 1);
        QVERIFY(!none.crashed && !none.timedOut);
        const QString last = none.errLines().value(none.errLines().size() - 1);
        QVERIFY2(last.startsWith(QStringLiteral("sassx-cli: ")) &&
                     last.contains(QStringLiteral("without a GPU")),
                 qPrintable(none.describe()));
    }

    void jsonLines()
    {
        const QString out = m_tmp.filePath("json");
        const CliRun r = runCli({"search", kSpec, "--algo", "random", "--space", "mem", "--budget-evals",
                                 "12", "--backend", "estimate", "--json", "-o", out});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const QStringList lines = r.outLines();
        QCOMPARE(lines.size(), 13); // one per evaluation, then the report
        QString error;
        for (int i = 0; i < 12; ++i) {
            const QJsonObject e = parseObject(lines[i].toUtf8(), &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            error = checkKeys(e, "evaluation",
                              {{"step", QJsonValue::Double},
                               {"kind", QJsonValue::String},
                               {"edits", QJsonValue::Array},
                               {"figures", QJsonValue::Object},
                               {"outcome", QJsonValue::String},
                               {"status", QJsonValue::Object}});
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(e["step"].toInt(), i);
        }
        const QJsonObject last = parseObject(lines[12].toUtf8(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QJsonObject report = last["report"].toObject();
        error = checkKeys(report, "report",
                          {{"best", QJsonValue::Object},
                           {"evaluations", QJsonValue::Double},
                           {"evaluations_per_second", QJsonValue::Double},
                           {"verification", QJsonValue::Object},
                           {"device", QJsonValue::String},
                           {"date", QJsonValue::String},
                           {"summary", QJsonValue::String}});
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    // kill -9 mid-run, then --resume: the run goes on from its checkpoint with its history.
    void resumesAfterKill()
    {
        const QString out = m_tmp.filePath("killed");
        QProcess p;
        p.setProgram(QStringLiteral(SASSX_CLI));
        p.setArguments({"search", kSpec, "--algo", "anneal", "--space", "all", "--budget-evals", "1000000",
                        "--backend", "estimate", "--checkpoint-every", "5", "-o", out});
        p.start();
        QVERIFY(p.waitForStarted(10000));
        int saved = 0;
        for (int i = 0; i < 600 && saved < 20; ++i) {
            QThread::msleep(100);
            const QByteArray cp = readBytes(out + "/checkpoint.json");
            const QJsonDocument doc = QJsonDocument::fromJson(cp);
            if (doc.isObject()) saved = doc.object()["history"].toArray().size();
        }
        p.kill(); // SIGKILL: no chance to write anything more
        QVERIFY(p.waitForFinished(10000));
        QVERIFY2(saved >= 20, "no checkpoint with 20 evaluations within a minute");
        const QJsonObject before = QJsonDocument::fromJson(readBytes(out + "/checkpoint.json")).object();
        const int kept = before["history"].toArray().size();
        QVERIFY(kept >= 20);

        const int budget = kept + 15;
        const CliRun r = runCli({"search", kSpec, "--resume", "--budget-evals", QString::number(budget),
                                 "--backend", "estimate", "-o", out});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const QJsonObject report = QJsonDocument::fromJson(readBytes(out + "/report.json")).object();
        QCOMPARE(report["evaluations"].toInt(), budget);
        QCOMPARE(csvRows(out + "/history.csv"), budget);
        const QJsonObject after = QJsonDocument::fromJson(readBytes(out + "/checkpoint.json")).object();
        // The evaluations made before the kill are still the first ones of the history.
        const QJsonArray h0 = before["history"].toArray(), h1 = after["history"].toArray();
        for (int i = 0; i < kept; ++i)
            QCOMPARE(h1[i].toObject()["edits"], h0[i].toObject()["edits"]);
        QCOMPARE(after["config"].toObject()["algorithm"].toString(), QStringLiteral("anneal"));
        QCOMPARE(after["kernel"].toObject()["name"].toString(), QStringLiteral("flash_attn_fwd"));

        // The checkpoint names its kernel: resuming it with another kernel's spec is refused.
        const QString other = samplePath(QStringLiteral("rmsnorm.launch.json"));
        if (QFileInfo::exists(other)) {
            const CliRun wrong = runCli({"search", other, "--resume", "--budget-evals",
                                         QString::number(budget + 5), "--backend", "estimate", "-o", out});
            // (after the line that names the evaluator, which is information, not an error)
            QCOMPARE(wrong.exitCode, 1);
            QVERIFY2(wrong.errLines()
                             .value(wrong.errLines().size() - 1)
                             .startsWith("sassx-cli: the checkpoint in ") &&
                         wrong.errLines().last().contains("is a search of kernel 'flash_attn_fwd'"),
                     qPrintable(wrong.describe()));
            QCOMPARE(QJsonDocument::fromJson(readBytes(out + "/checkpoint.json"))
                         .object()["history"]
                         .toArray()
                         .size(),
                     budget); // untouched
        }
    }

    // An nvdisasm that leaves instructions out (the GPU machine's older toolkit did, on flash_attn_fwd)
    // must not yield an analysis blind to them: the kernel is refused in one line that says the fix.
    void refusesAnIncompleteListing()
    {
        QString nvdisasm = qEnvironmentVariable("SASSX_NVDISASM");
        if (nvdisasm.isEmpty()) {
            QProcess find;
            find.start(QStringLiteral("python3"),
                       {"-c",
                        "import glob,site,shutil; p=[shutil.which('nvdisasm')] + [q for s in "
                        "site.getsitepackages()+[site.getusersitepackages()] for q in "
                        "glob.glob(s+'/nvidia/cu*/bin/nvdisasm')]; print(next((x for x in p if x), ''))"});
            find.waitForFinished(30000);
            nvdisasm = QString::fromUtf8(find.readAllStandardOutput()).trimmed();
        }
        if (nvdisasm.isEmpty()) QSKIP("no nvdisasm to wrap");
        // The real nvdisasm's JSON with each function's last instruction dropped.
        const QString script = m_tmp.filePath("short_nvdisasm.sh");
        QVERIFY(writeBytes(
            script, QStringLiteral("#!/bin/sh\n\"%1\" \"$@\" | python3 -c \"import json,sys\n"
                                   "d=json.load(sys.stdin)\n"
                                   "[f['sass-instructions'].pop() for f in d[1] if f['sass-instructions']]\n"
                                   "json.dump(d,sys.stdout)\"\n")
                        .arg(nvdisasm)
                        .toUtf8()));
        QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SASSX_NVDISASM"), script);
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SASSX_CLI), {"legal", samplePath("flash_attn_fwd.sm_90.cubin")});
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(!err.contains('\n') && err.startsWith("sassx-cli: ") &&
                     err.contains("listing is incomplete") && err.contains("SASSX_NVDISASM"),
                 qPrintable(err));
    }

    void ppoRunKeepsItsPolicy()
    {
        // A short PPO run writes its policy beside the checkpoint and says so in the report; a second run
        // warm-starts from it.
        // Every step measured and no list phase, so 40 evaluations are 40 transitions: two updates.
        QVERIFY(writeBytes(m_tmp.filePath("ppo.json"),
                           R"({"steps_per_update": 16, "episode_length": 4, "edits_per_evaluation": 1,
                               "list_seed": false})"));
        const QString out = m_tmp.filePath("ppo");
        const CliRun r =
            runCli({"search", kSpec, "--algo", "ppo", "--space", "all", "--budget-evals", "40",
                    "--ppo-config", m_tmp.filePath("ppo.json"), "--backend", "estimate", "-o", out});
        if (!r.ok() && r.err.contains("plug-in")) QSKIP(qPrintable(r.errLines().last()));
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QVERIFY(QFileInfo(out + "/policy.pt").size() > 1000);
        QVERIFY2(r.out.contains("policy: "), r.out.constData());
        const QJsonObject ppo =
            QJsonDocument::fromJson(readBytes(out + "/report.json")).object()["ppo"].toObject();
        QCOMPARE(ppo["updates"].toInt(), 2);
        QCOMPARE(ppo["settings"].toObject()["episode_length"].toInt(), 4);
        QCOMPARE(ppo["learning"].toArray().size(), 2);
        QCOMPARE(ppo["reward_unit_is"].toString(), QStringLiteral("reward_scale")); // the estimate: no floor
        QCOMPARE(csvRows(out + "/history.csv"), 40);

        const QString warm = m_tmp.filePath("ppo-warm");
        const CliRun w = runCli({"search", kSpec, "--algo", "ppo", "--space", "all", "--budget-evals", "10",
                                 "--ppo-config", m_tmp.filePath("ppo.json"), "--policy", out + "/policy.pt",
                                 "--backend", "estimate", "-o", warm});
        QVERIFY2(w.ok(), qPrintable(w.describe()));
        const QJsonObject wp =
            QJsonDocument::fromJson(readBytes(warm + "/report.json")).object()["ppo"].toObject();
        QCOMPARE(wp["warm_start"].toString(), out + "/policy.pt");
        // Another width does not fit the saved policy: refused in one line.
        QVERIFY(writeBytes(m_tmp.filePath("wide.json"), R"({"hidden": 32})"));
        const CliRun bad = runCli({"search", kSpec, "--algo", "ppo", "--budget-evals", "5", "--ppo-config",
                                   m_tmp.filePath("wide.json"), "--policy", out + "/policy.pt", "--backend",
                                   "estimate", "-o", m_tmp.filePath("ppo-wide")});
        // Refused once the evaluator is chosen (its notices come first): the last line says why.
        QVERIFY2(!bad.ok() && !bad.crashed && bad.exitCode == 1, qPrintable(bad.describe()));
        QVERIFY2(bad.errLines().last().contains("does not fit") && bad.errLines().last().contains("32"),
                 qPrintable(bad.describe()));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QString o = m_tmp.filePath("bad");
        QTest::newRow("no spec")
            << QStringList{"search", "/nonexistent.json", "--algo", "anneal", "--budget-evals", "5", "-o", o}
            << "nonexistent";
        QTest::newRow("unknown algo")
            << QStringList{"search", kSpec, "--algo", "tabu", "--budget-evals", "5", "-o", o} << "tabu";
        QTest::newRow("unknown space")
            << QStringList{"search",         kSpec, "--algo", "anneal", "--space", "regs",
                           "--budget-evals", "5",   "-o",     o}
            << "regs";
        QTest::newRow("bad duration")
            << QStringList{"search", kSpec, "--algo", "anneal", "--budget-time", "soon", "-o", o}
            << "duration";
        QTest::newRow("bad count") << QStringList{"search",         kSpec,  "--algo", "anneal",
                                                  "--budget-evals", "five", "-o",     o}
                                   << "five";
        QTest::newRow("no budget") << QStringList{"search", kSpec, "--algo", "greedy", "-o", o} << "budget";
        QTest::newRow("no-restart anneal")
            << QStringList{"search",         kSpec, "--algo", "anneal", "--no-restart",
                           "--budget-evals", "5",   "-o",     o}
            << "--algo climb";
        QTest::newRow("sip greedy") << QStringList{"search",   kSpec, "--algo",         "greedy",
                                                   "--preset", "sip", "--budget-evals", "5",
                                                   "-o",       o}
                                    << "annealing";
        QTest::newRow("policy without ppo")
            << QStringList{"search", kSpec,      "--algo", "anneal", "--budget-evals",
                           "5",      "--policy", "p.pt",   "-o",     o}
            << "--algo ppo";
        QTest::newRow("ppo unknown setting") << QStringList{"search",
                                                            kSpec,
                                                            "--algo",
                                                            "ppo",
                                                            "--budget-evals",
                                                            "5",
                                                            "--ppo-config",
                                                            m_tmp.filePath("bad-ppo.json"),
                                                            "-o",
                                                            o}
                                             << "unknown PPO setting 'learning_rat'";
        QTest::newRow("ppo missing policy") << QStringList{"search",
                                                           kSpec,
                                                           "--algo",
                                                           "ppo",
                                                           "--budget-evals",
                                                           "5",
                                                           "--backend",
                                                           "estimate",
                                                           "--policy",
                                                           "/nonexistent/policy.pt",
                                                           "-o",
                                                           o}
                                            << "cannot read the policy";
        QTest::newRow("listsched yield")
            << QStringList{"search", kSpec, "--algo", "listsched", "--space", "yield", "-o", o} << "no moves";
        QTest::newRow("unknown option")
            << QStringList{"search", kSpec, "--algo", "anneal", "--budget-evals", "5", "--fast", "-o", o}
            << "--fast";
        QTest::newRow("no output") << QStringList{"search", kSpec, "--algo", "anneal", "--budget-evals", "5"}
                                   << "usage";
        QTest::newRow("resume nothing") << QStringList{"search",
                                                       kSpec,
                                                       "--resume",
                                                       "--backend",
                                                       "estimate",
                                                       "-o",
                                                       m_tmp.filePath("empty")}
                                        << "no checkpoint";
        QTest::newRow("gpu without one") << QStringList{"search",
                                                        kSpec,
                                                        "--algo",
                                                        "anneal",
                                                        "--budget-evals",
                                                        "5",
                                                        "--backend",
                                                        "gpu",
                                                        "--worker",
                                                        "/nonexistent/sassx-worker",
                                                        "-o",
                                                        o}
                                         << "worker";
        QTest::newRow("spec mismatch") << QStringList{"search",
                                                      m_tmp.filePath("mismatch.json"),
                                                      "--algo",
                                                      "anneal",
                                                      "--budget-evals",
                                                      "5",
                                                      "--backend",
                                                      "estimate",
                                                      "-o",
                                                      o}
                                       << "param";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        // A spec that names the flash_attn_fwd cubin with one parameter too few.
        QJsonObject spec = QJsonDocument::fromJson(readBytes(kSpec)).object();
        QJsonArray params = spec["params"].toArray();
        params.removeLast();
        spec["params"] = params;
        spec["cubin"] = samplePath("flash_attn_fwd.sm_90.cubin");
        QVERIFY(writeBytes(m_tmp.filePath("mismatch.json"), QJsonDocument(spec).toJson()));
        QVERIFY(writeBytes(m_tmp.filePath("bad-ppo.json"), R"({"learning_rat": 0.1})"));
        const CliRun r = runCli(args);
        const QString problem = oneLine(r, reason);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(r.exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(TestCliSearch)
#include "test_cli_search.moc"
