// Golden annotated listings (control codes, blocks, dependencies with distances, live registers) for
// every sample cubin the build compiled and the committed Blackwell samples. Regenerate after an
// intended change with SASSX_UPDATE_GOLDEN=1; a mismatch prints a unified diff.
#include "../sass/test_common.h"
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/sass/nvdisasm.h"
#include "core/session/annotation_json.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace sassx;

class TestAnnotationGolden : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed: run ./run.sh to install the pinned wheel");
    }

    void listing_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& p : sampleCubins())
            QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p;
        // The Blackwell samples are committed cubins (samples/blackwell/build.sh), not built here.
        const QDir blackwell(QStringLiteral(SASSX_SOURCE_DIR "/samples/blackwell"));
        for (const auto& f : blackwell.entryList({"*.cubin"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << blackwell.filePath(f);
    }

    void listing()
    {
        QFETCH(QString, path);
        auto cubin = Cubin::load(path.toStdString());
        QVERIFY2(cubin.ok(), cubin.ok() ? "" : cubin.message().c_str());
        auto listings = disassemble(*cubin);
        QVERIFY2(listings.ok(), listings.ok() ? "" : listings.message().c_str());
        std::string text;
        for (auto& l : *listings)
            text += annotationText(*KernelAnalysis::build(std::move(l)), cubin->archName());
        const QString golden = QString(SASSX_SOURCE_DIR) + "/tests/core/analysis/golden/" +
                               QFileInfo(path).completeBaseName() + ".txt";
        if (qEnvironmentVariableIsSet("SASSX_UPDATE_GOLDEN")) {
            QFile f(golden);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(text));
            QSKIP("golden file rewritten");
        }
        QFile f(golden);
        QVERIFY2(f.open(QIODevice::ReadOnly),
                 qPrintable("missing golden file " + golden + " (create with SASSX_UPDATE_GOLDEN=1)"));
        const QByteArray expected = f.readAll();
        if (expected == QByteArray::fromStdString(text)) return;
        QTemporaryDir dir;
        QFile actual(dir.filePath("actual.txt"));
        QVERIFY(actual.open(QIODevice::WriteOnly));
        actual.write(QByteArray::fromStdString(text));
        actual.close();
        QProcess diff;
        diff.start("diff", {"-u", golden, actual.fileName()});
        diff.waitForFinished();
        qWarning().noquote() << QString::fromUtf8(diff.readAllStandardOutput()).left(6000);
        QFAIL("annotated listing differs from the golden file (diff above)");
    }
};

QTEST_GUILESS_MAIN(TestAnnotationGolden)
#include "test_annotation_golden.moc"
