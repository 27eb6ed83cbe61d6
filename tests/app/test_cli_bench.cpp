// bench --backend estimate: runs without a GPU; every figure is labelled an estimate.
#include "test_cli.h"

#include <QRegularExpression>
#include <QtTest>

void TestCli::benchEstimate_data()
{
    QTest::addColumn<bool>("json");
    QTest::addColumn<bool>("movedCandidate");
    QTest::newRow("text, moved candidate") << false << true;
    QTest::newRow("json, original") << true << false;
}

// No GPU needed; every figure says it is an estimate and correctness is "unverified". Text on the
// moved rmsnorm, JSON on the original (one run each: the estimate disassembles the kernel).
void TestCli::benchEstimate()
{
    QFETCH(bool, json);
    QFETCH(bool, movedCandidate);
    if (m_vars["spec"].isEmpty() || m_vars["rmsnorm"].isEmpty()) QSKIP("no rmsnorm sample or launch spec");
    QStringList args{"bench", m_vars["spec"], "--backend", "estimate"};
    QString error;
    if (movedCandidate) {
        if (m_vars["legal"].isEmpty()) QSKIP("no legal move in rmsnorm");
        QVERIFY2(ensureMoved(&error), qPrintable(error));
        args << "--cubin" << m_moved;
    }
    if (json) args << "--json";
    const CliRun r = runCli(args);
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    // A candidate the checker accepts gets no "not checked legal" note (diffChecker: one it refuses does).
    QVERIFY2(!r.err.contains("not checked legal"), r.err.constData());
    if (!json) {
        // Every line with a number but the spec's and the candidate's path names the estimate as its
        // source; nothing claims a measured time or a verdict.
        int figures = 0;
        static const QRegularExpression digit("[0-9]");
        for (const QString& line : r.outLines()) {
            const QString field = line.section(' ', 0, 0);
            QVERIFY2(field != "verdict" && field != "time", qPrintable("a measurement claim: " + line));
            if (field == "correct") QVERIFY2(line.contains("unverified"), qPrintable(line));
            if (field == "candidate") QVERIFY2(line.endsWith(m_moved), qPrintable(line));
            if (field == "spec" || field == "candidate" || !line.contains(digit)) continue;
            QVERIFY2(line.contains("[estimate"), qPrintable("figure not labelled an estimate: " + line));
            ++figures;
        }
        QVERIFY2(figures >= 3, r.out.constData());
        return;
    }
    const QJsonObject j = parseObject(r.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = checkKeys(j, "bench",
                      {{"spec", QJsonValue::String},
                       {"kernel", QJsonValue::String},
                       {"candidate", QJsonValue::String},
                       {"backend", QJsonValue::String},
                       {"correct", QJsonValue::String},
                       {"note", QJsonValue::String},
                       {"baseline", QJsonValue::Object},
                       {"candidate_cycles", QJsonValue::Double},
                       {"ratio", QJsonValue::Double},
                       {"source", QJsonValue::Object}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(j["kernel"].toString(), QString("rmsnorm"));
    QCOMPARE(j["backend"].toString(), QString("estimate"));
    QCOMPARE(j["correct"].toString(), QString("unverified"));
    QVERIFY(j["note"].toString().contains("unverified"));
    QCOMPARE(j["source"]["kind"].toString(), QString("estimate"));
    const QJsonObject b = j["baseline"].toObject();
    error = checkKeys(b, "baseline", {{"cycles", QJsonValue::Double}, {"source", QJsonValue::String}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(b["source"].toString(), QString("estimate"));
    QVERIFY(b["cycles"].toDouble() > 0 && j["candidate_cycles"].toDouble() > 0);
    // An estimate never carries a time per launch (docs/evaluator.md: the model's time is 3-4x off).
    QVERIFY(!j.contains("candidate_us") && !b.contains("microseconds"));
    // Without --cubin the candidate is the spec's own cubin: the deterministic model gives ratio 1.
    QVERIFY2(j["candidate"].toString().endsWith("/rmsnorm.sm_90.cubin"),
             qPrintable(j["candidate"].toString()));
    QCOMPARE(j["ratio"].toDouble(), 1.0);
}
