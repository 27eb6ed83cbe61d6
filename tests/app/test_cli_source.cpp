// sassx-cli annotate with source lines: the text listing's "// file:line" lines and ptx=N, the JSON's
// source/ptx_line/line_info, a cubin without line info said plainly, and annotate --source with stall
// samples and a tuned cubin.
#include "cli_test_support.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kAttention =
    QStringLiteral(SASSX_SOURCE_DIR "/samples/triton/captured/attention_fwd.sm_90.cubin");
const QString kLineInfo = QStringLiteral(SASSX_CUBIN_SAMPLES "/rmsnorm_lineinfo_sm_90.cubin");
const QString kRmsStalls = QStringLiteral(SASSX_SOURCE_DIR "/tests/data/stalls/rmsnorm.h100.stalls.json");

} // namespace

class TestCliSource : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void textMarksSourceLineChanges();
    void jsonGivesSourceAndPtxLines();
    void noLineInfoSaidPlainly();
    void sourceSummaryWithSamples();
    void sourceSummaryWithVariant();
    void refusesMismatchedInput();
};

void TestCliSource::textMarksSourceLineChanges()
{
    const CliRun r = runCli({"annotate", kAttention});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    const QStringList lines = r.outLines();
    const int at =
        int(lines.indexOf(QRegularExpression(QStringLiteral("^/\\*0010\\*/ S2UR UR4,SR_CTAID.Y.*"))));
    QVERIFY(at > 0);
    QCOMPARE(lines[at - 1], QStringLiteral("        // attention.py:16  bh = tl.program_id(1)"));
    QVERIFY2(lines[at].contains(QStringLiteral(" ptx=42")), qPrintable(lines[at]));
    // A comment only where the line changes: /*0020*/ and /*0030*/ share attention.py:18.
    const int next = int(lines.indexOf(QRegularExpression(QStringLiteral("^/\\*0030\\*/.*"))));
    QVERIFY(next > at);
    QVERIFY(lines[next - 1].startsWith(QStringLiteral("/*0020*/")));
    // Every instruction line carries its PTX line; every comment names a file and line.
    int comments = 0;
    for (const QString& l : lines) {
        if (l.startsWith(QStringLiteral("/*"))) QVERIFY2(l.contains(QStringLiteral(" ptx=")), qPrintable(l));
        if (l.startsWith(QStringLiteral("        // "))) {
            ++comments;
            QVERIFY2(l.contains(QRegularExpression(QStringLiteral("^        // \\S+\\.py:\\d+"))),
                     qPrintable(l));
        }
    }
    QVERIFY(comments > 100);
}

void TestCliSource::jsonGivesSourceAndPtxLines()
{
    const CliRun r = runCli({"annotate", kAttention, "--json"});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QString error;
    const QJsonObject j = parseObject(r.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QJsonObject info = j["line_info"].toObject();
    QVERIFY(info["source"].toBool());
    QVERIFY(info["ptx"].toBool());
    QVERIFY(info["files"].toArray().size() >= 2);
    const QJsonArray insts = j["instructions"].toArray();
    const QJsonObject s2ur = insts[1].toObject();
    QCOMPARE(s2ur["offset"].toInt(), 0x10);
    QVERIFY(s2ur["source"]["file"].toString().endsWith(QStringLiteral("/attention.py")));
    QCOMPARE(s2ur["source"]["line"].toInt(), 16);
    QCOMPARE(s2ur["source"]["text"].toString(), QStringLiteral("    bh = tl.program_id(1)"));
    QCOMPARE(s2ur["ptx_line"].toInt(), 42);
    for (const QJsonValue& ins : insts)
        QVERIFY(ins["ptx_line"].toInt() > 0);
}

void TestCliSource::noLineInfoSaidPlainly()
{
    const QString plain = QStringLiteral(SASSX_SAMPLES_DIR "/rmsnorm.sm_90.cubin");
    const CliRun text = runCli({"annotate", plain});
    if (!text.ok() && !QFileInfo::exists(plain)) QSKIP("the sample cubins were not built");
    QVERIFY2(text.ok(), qPrintable(text.describe()));
    QVERIFY(text.outLines().value(2).startsWith(QStringLiteral("// no line info:")));
    QVERIFY(!text.out.contains(" ptx="));
    const CliRun json = runCli({"annotate", plain, "--json"});
    QString error;
    const QJsonObject j = parseObject(json.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(!j["line_info"]["source"].toBool());
    QVERIFY(j["line_info"]["notes"][0].toString().contains(QStringLiteral("-lineinfo")));
    for (const QJsonValue& ins : j["instructions"].toArray())
        QVERIFY(!ins.toObject().contains("source") && !ins.toObject().contains("ptx_line"));
    const CliRun summary = runCli({"annotate", plain, "--source"});
    QVERIFY2(summary.ok(), qPrintable(summary.describe()));
    QVERIFY(summary.out.startsWith("// no line info:"));
}

void TestCliSource::sourceSummaryWithSamples()
{
    if (!QFileInfo::exists(kLineInfo)) QSKIP("the -lineinfo CUDA cubin was not built (no nvcc)");
    const CliRun r = runCli({"annotate", kLineInfo, "--source", "--stalls", kRmsStalls, "--json"});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QString error;
    const QJsonObject j = parseObject(r.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    qint64 samples = 0;
    int instructions = 0;
    for (const QJsonValue& l : j["source_lines"].toArray()) {
        samples += l["samples"].toInteger();
        instructions += int(l["instructions"].toArray().size());
        QVERIFY(!l.toObject().contains("changed"));
    }
    // Every sample on the kernel lands on one line (the recorded profile's kernel_samples).
    QCOMPARE(samples, qint64(105631));
    const CliRun ann = runCli({"annotate", kLineInfo, "--json"});
    QCOMPARE(instructions, int(parseObject(ann.out, &error)["instructions"].toArray().size()));
    // The text says shares, and the inlined half conversions have their own line (cuda_fp16.hpp).
    const CliRun text = runCli({"annotate", kLineInfo, "--source", "--stalls", kRmsStalls});
    QVERIFY2(text.ok(), qPrintable(text.describe()));
    QVERIFY(text.out.contains("% samples"));
    QVERIFY(text.out.contains("cuda_fp16.hpp:"));
}

void TestCliSource::sourceSummaryWithVariant()
{
    QTemporaryDir dir;
    const QString moved = dir.filePath("moved.cubin");
    // attention_fwd's instruction 55 (a load of attention.py:22) one step down: a legal move.
    const CliRun move = runCli({"move", kAttention, "--move", "55:56", "-o", moved});
    QVERIFY2(move.ok(), qPrintable(move.describe()));
    const CliRun r = runCli({"annotate", kAttention, "--source", "--variant", moved, "--json"});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QString error;
    const QJsonObject j = parseObject(r.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    int changed = 0;
    for (const QJsonValue& l : j["source_lines"].toArray()) {
        const int either = l["changed"]["either"].toInt();
        changed += either;
        if (either)
            QVERIFY2(l["instructions"].toArray().contains(55) || l["instructions"].toArray().contains(56),
                     qPrintable(QString::number(l["line"].toInt())));
    }
    QVERIFY(changed >= 1 && changed <= 2);
    // The original against itself changes nothing.
    const CliRun same = runCli({"annotate", kAttention, "--source", "--variant", kAttention});
    QVERIFY2(same.ok(), qPrintable(same.describe()));
    QVERIFY(same.out.contains(" 0 changed"));
    QVERIFY(!QString::fromUtf8(same.out).contains(QRegularExpression(QStringLiteral(" [1-9]\\d* changed"))));
}

void TestCliSource::refusesMismatchedInput()
{
    const CliRun alone = runCli({"annotate", kAttention, "--stalls", kRmsStalls});
    QCOMPARE(alone.exitCode, 1);
    QVERIFY(alone.err.contains("--source"));
    const CliRun other = runCli({"annotate", kAttention, "--source", "--stalls", kRmsStalls});
    QCOMPARE(other.exitCode, 1);
    QVERIFY2(other.err.contains("samples of rmsnorm, not of attention_fwd"), other.err.constData());
    QCOMPARE(other.errLines().size(), 1);
}

QTEST_GUILESS_MAIN(TestCliSource)
#include "test_cli_source.moc"
