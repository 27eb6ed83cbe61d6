// sassx-cli on the committed Blackwell samples (samples/blackwell: sm_100a, sm_103a, sm_120): info lists
// the capmerc and merc sections and says edits are off; annotate explains them (LDCU with its
// scoreboard, the kernel parameters at 0x380); legal lists nothing and says why; move, variants,
// triton-export and search refuse in one line naming the missing measurement
// (editRefusal, core/analysis/arch_model.h).
#include "cli_test_support.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kDir = QStringLiteral(SASSX_SOURCE_DIR "/samples/blackwell");

// The one line every edit of a Blackwell cubin is refused with.
QString refusal(const QString& arch)
{
    return arch +
           QStringLiteral(": no measured latency/yield/reuse evidence for Blackwell "
                          "(bench/blackwell/run_device.sh has not run on a Blackwell GPU); edits are off");
}

QString archOf(const QString& cubin)
{
    return QFileInfo(cubin).completeBaseName().section(QLatin1Char('.'), 1);
}

// "sassx-cli: <line>" and nothing else on stderr.
QString oneLine(const CliRun& r, const QString& line)
{
    const QStringList lines = r.errLines();
    if (lines.size() == 1 && lines.front() == QStringLiteral("sassx-cli: ") + line) return {};
    return QStringLiteral("expected the one line \"sassx-cli: %1\"; %2").arg(line, r.describe());
}

// A launch spec for the bias+GELU sample compiled for one architecture.
QByteArray elementwiseSpec(const QString& cubin)
{
    return QStringLiteral(R"({"name": "bw_bias_gelu", "kernel": "bw_bias_gelu",
 "cubin": "%1", "grid": [64, 1, 1], "block": [256, 1, 1], "dynamic_shared": 0,
 "params": [
  {"name": "x", "kind": "buffer", "dtype": "f16", "count": 131072, "init": {"kind": "normal", "mean": 0.0, "std": 1.0}, "role": "input"},
  {"name": "b", "kind": "buffer", "dtype": "f16", "count": 1024, "init": {"kind": "zeros"}, "role": "input"},
  {"name": "y", "kind": "buffer", "dtype": "f16", "count": 131072, "init": {"kind": "zeros"}, "role": "output"},
  {"name": "cols", "kind": "scalar", "dtype": "i32", "value": 1024},
  {"name": "n", "kind": "scalar", "dtype": "i64", "value": 131072}]})")
        .arg(cubin)
        .toUtf8();
}

} // namespace

class TestCliBlackwell : public QObject
{
    Q_OBJECT
private slots:
    void info_data()
    {
        QTest::addColumn<QString>("cubin");
        for (const QString& f : QDir(kDir).entryList({"*.cubin"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << QDir(kDir).filePath(f);
        QVERIFY(QDir(kDir).entryList({"*.cubin"}).size() >= 9);
    }

    void info()
    {
        QFETCH(QString, cubin);
        const QString arch = archOf(cubin);
        const CliRun json = runCli({"info", cubin, "--json"});
        QVERIFY2(json.ok(), qPrintable(json.describe()));
        QString error;
        const QJsonObject o = parseObject(json.out, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QJsonObject c = o["cubins"].toArray().at(0).toObject();
        QCOMPARE(c["arch"].toString(), arch);
        QCOMPARE(c["edits"].toString(), refusal(arch));
        const QString kernel = c["kernels"].toArray().at(0).toObject()["name"].toString();
        QStringList merc;
        for (const QJsonValue& m : c["merc_sections"].toArray()) {
            merc << m["section"].toString();
            if (merc.back().startsWith(QStringLiteral(".nv.capmerc.text.")))
                QVERIFY(m["bytes"].toInteger() > 0);
        }
        QVERIFY2(merc.contains(".nv.capmerc.text." + kernel), qPrintable(merc.join(' ')));
        QVERIFY2(merc.contains(".nv.merc.nv.info." + kernel), qPrintable(merc.join(' ')));
        QVERIFY2(merc.contains(".nv.merc.symtab"), qPrintable(merc.join(' ')));

        const CliRun text = runCli({"info", cubin});
        QVERIFY2(text.ok(), qPrintable(text.describe()));
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QRegularExpression(
                     "\\n    \\.nv\\.capmerc\\.text\\." + kernel +
                     ": \\d+ B, a second form of the code the driver may finalise instead of \\.text\\n")),
                 qPrintable(out));
        QVERIFY2(out.contains("    edits off: " + refusal(arch) + "\n"), qPrintable(out));
    }

    // What changed from Hopper shows in the listing: parameters at c[0x0][0x380] and up, read with LDCU,
    // which sets a write scoreboard (Hopper's ULDC has none).
    void annotateShowsLdcu()
    {
        const CliRun r = runCli({"annotate", kDir + "/bw_elementwise.sm_100a.cubin"});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(
                     QRegularExpression(R"(LDCU(\.64)? UR\d+,c\[0x0\]\[0x38[0-9a-f]\]\s+S\d\d Y\d W\d )")),
                 qPrintable(out.left(3000)));
        QVERIFY(!out.contains(QStringLiteral("ULDC")));
    }

    // The tcgen05 GEMM: its tensor-core and tensor-memory instructions appear in the listing.
    void annotateShowsTcgen05()
    {
        const CliRun r = runCli({"annotate", kDir + "/bw_gemm_tcgen05.sm_100a.cubin"});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const QString out = QString::fromUtf8(r.out);
        for (const char* op : {"UTCHMMA", "UTCBAR", "LDTM"})
            QVERIFY2(out.contains(QLatin1String(op)), op);
        const CliRun desktop = runCli({"annotate", kDir + "/bw_gemm_tcgen05.sm_120.cubin"});
        QVERIFY2(desktop.ok(), qPrintable(desktop.describe()));
        QVERIFY(QString::fromUtf8(desktop.out).contains(QStringLiteral("HMMA")));
        QVERIFY(!QString::fromUtf8(desktop.out).contains(QStringLiteral("UTCHMMA")));
    }

    void legalListsNothingAndSaysWhy_data()
    {
        QTest::addColumn<QString>("cubin");
        for (const char* f : {"bw_attention.sm_100a", "bw_elementwise.sm_103a", "bw_gemm_tcgen05.sm_120"})
            QTest::newRow(f) << kDir + "/" + f + ".cubin";
    }

    void legalListsNothingAndSaysWhy()
    {
        QFETCH(QString, cubin);
        const QString arch = archOf(cubin);
        const CliRun r = runCli({"legal", cubin, "--all", "--control", "all", "--json"});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QString error;
        const QJsonObject o = parseObject(r.out, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(o["moves"].toArray().size(), 0);
        QCOMPARE(o["control_edits"].toArray().size(), 0);
        QCOMPARE(o["why_none"].toString(), refusal(arch));
        QCOMPARE(o["notices"].toArray(), QJsonArray{refusal(arch)});
        const CliRun text = runCli({"legal", cubin, "--all"});
        QVERIFY2(text.ok(), qPrintable(text.describe()));
        QVERIFY2(QString::fromUtf8(text.out).contains("  why none: " + refusal(arch) + "\n"),
                 qPrintable(text.describe()));
    }

    void moveAndVariantsRefuse()
    {
        QTemporaryDir tmp;
        const QString cubin = kDir + "/bw_attention.sm_100a.cubin";
        const QString out = tmp.filePath("moved.cubin");
        const CliRun move = runCli({"move", cubin, "--move", "10:11", "-o", out});
        QCOMPARE(move.exitCode, 2);
        QVERIFY2(oneLine(move, refusal("sm_100a")).isEmpty(), qPrintable(oneLine(move, refusal("sm_100a"))));
        QVERIFY(!QFileInfo::exists(out));
        const CliRun edit =
            runCli({"move", kDir + "/bw_elementwise.sm_120.cubin", "--edit", "5:yield=0", "-o", out});
        QCOMPARE(edit.exitCode, 2);
        QVERIFY2(oneLine(edit, refusal("sm_120")).isEmpty(), qPrintable(oneLine(edit, refusal("sm_120"))));
        QVERIFY(!QFileInfo::exists(out));
        const CliRun variants = runCli({"variants", cubin, "--count", "3", "-o", tmp.filePath("v.jsonl")});
        QCOMPARE(variants.exitCode, 2);
        QVERIFY2(oneLine(variants, refusal("sm_100a")).isEmpty(),
                 qPrintable(oneLine(variants, refusal("sm_100a"))));
    }

    // triton-export never writes a Blackwell cubin into a cache entry: its capmerc code could run instead.
    void tritonExportRefuses()
    {
        QTemporaryDir entry;
        const CliRun r =
            runCli({"triton-export", entry.path(), "--cubin", kDir + "/bw_gemm_tcgen05.sm_103a.cubin"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneLine(r, refusal("sm_103a")).isEmpty(), qPrintable(oneLine(r, refusal("sm_103a"))));
        QVERIFY(QDir(entry.path()).isEmpty());
    }

    // The static estimate works on every Blackwell part a family model covers: sm_103a estimates with
    // sm_100's model, labelled an estimate.
    void benchEstimates_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("model");
        QTest::newRow("sm_100a") << "sm_100a"
                                 << "[estimate, model sm_100]";
        QTest::newRow("sm_103a") << "sm_103a"
                                 << "[estimate, model sm_100]";
        QTest::newRow("sm_120") << "sm_120"
                                << "[estimate, model sm_120]";
    }
    void benchEstimates()
    {
        QFETCH(QString, arch);
        QFETCH(QString, model);
        QTemporaryDir tmp;
        const QString spec = tmp.filePath("bw_bias_gelu.launch.json");
        QVERIFY(writeBytes(spec, elementwiseSpec(kDir + "/bw_elementwise." + arch + ".cubin")));
        const CliRun r = runCli({"bench", spec, "--backend", "estimate"});
        QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("baseline") && r.out.contains(model.toUtf8()), qPrintable(r.describe()));
    }

    // A search never starts: the spec is valid, the estimate backend needs no GPU, and the one line is
    // the refusal.
    void searchRefuses()
    {
        QTemporaryDir tmp;
        const QString spec = tmp.filePath("bw_bias_gelu.launch.json");
        QVERIFY(writeBytes(spec, elementwiseSpec(kDir + "/bw_elementwise.sm_100a.cubin")));
        const CliRun r = runCli(
            {"search", spec, "-o", tmp.filePath("run"), "--backend", "estimate", "--budget-evals", "5"});
        QVERIFY2(r.exitCode != 0 && !r.crashed, qPrintable(r.describe()));
        QVERIFY2(oneLine(r, refusal("sm_100a")).isEmpty(), qPrintable(oneLine(r, refusal("sm_100a"))));
        QVERIFY(!QFileInfo::exists(tmp.filePath("run/best.cubin")));
    }
};

QTEST_GUILESS_MAIN(TestCliBlackwell)
#include "test_cli_blackwell.moc"
