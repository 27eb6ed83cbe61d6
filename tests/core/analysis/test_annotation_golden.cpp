// Golden annotated listings (control codes, blocks, dependencies with distances, live registers) for
// every sample cubin the build compiled and the committed Blackwell samples. Regenerate after an
// intended change with SASSX_UPDATE_GOLDEN=1; a mismatch prints a unified diff. A listing over
// kGzipAbove is kept gzip-compressed (<name>.txt.gz, read with zcat) so that no tracked file outside
// samples/ passes 256 KB; the others stay text, so that their changes read in git diff.
#include "../sass/test_common.h"
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/sass/nvdisasm.h"
#include "core/session/annotation_json.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

#include <zlib.h>

using namespace sassx;

namespace {

constexpr qsizetype kGzipAbove = 240 * 1024;

// The whole of a gzip file, or nullopt where it cannot be read.
std::optional<QByteArray> readGzip(const QString& path)
{
    gzFile f = gzopen(QFile::encodeName(path).constData(), "rb");
    if (!f) return std::nullopt;
    QByteArray out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, n);
    const bool ok = n == 0;
    gzclose(f);
    if (!ok) return std::nullopt;
    return out;
}

bool writeGzip(const QString& path, const QByteArray& data)
{
    gzFile f = gzopen(QFile::encodeName(path).constData(), "wb9");
    if (!f) return false;
    const bool ok = gzwrite(f, data.constData(), unsigned(data.size())) == int(data.size());
    return gzclose(f) == Z_OK && ok;
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

} // namespace

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
        const QString gzipped = golden + ".gz";
        const QByteArray actualText = QByteArray::fromStdString(text);
        if (qEnvironmentVariableIsSet("SASSX_UPDATE_GOLDEN")) {
            const bool compress = actualText.size() > kGzipAbove;
            QFile::remove(compress ? golden : gzipped);
            QVERIFY(compress ? writeGzip(gzipped, actualText) : writeFile(golden, actualText));
            QSKIP("golden file rewritten");
        }
        const bool isGzipped = QFileInfo::exists(gzipped);
        QVERIFY2(!(isGzipped && QFileInfo::exists(golden)),
                 qPrintable("both " + golden + " and its .gz exist: keep one"));
        std::optional<QByteArray> expected;
        if (isGzipped) {
            expected = readGzip(gzipped);
        } else if (QFile f(golden); f.open(QIODevice::ReadOnly)) {
            expected = f.readAll();
        }
        QVERIFY2(expected.has_value(), qPrintable("missing or unreadable golden file " + golden +
                                                  "[.gz] (create with SASSX_UPDATE_GOLDEN=1)"));
        if (*expected == actualText) return;
        QTemporaryDir dir;
        const QString expectedPath = dir.filePath("expected.txt");
        const QString actualPath = dir.filePath("actual.txt");
        QVERIFY(writeFile(expectedPath, *expected) && writeFile(actualPath, actualText));
        QProcess diff;
        diff.start("diff", {"-u", "--label", isGzipped ? gzipped : golden, "--label", "actual", expectedPath,
                            actualPath});
        diff.waitForFinished();
        qWarning().noquote() << QString::fromUtf8(diff.readAllStandardOutput()).left(6000);
        QFAIL("annotated listing differs from the golden file (diff above)");
    }
};

QTEST_GUILESS_MAIN(TestAnnotationGolden)
#include "test_annotation_golden.moc"
