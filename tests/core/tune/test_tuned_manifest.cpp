// The write-back for kernels without a Triton cache entry and the driver hook's reader agree: a tuned
// cubin added to DIR/tuned is what inject::SubstitutionTable decides to run for the captured original,
// a second write-back replaces the entry, and --restore's removal leaves the original running.
#include "core/common/read_file.h"
#include "core/cubin/cubin.h"
#include "core/eval/sha256.h"
#include "core/inject/substitution_table.h"
#include "core/tune/tuned_manifest.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace sassx;
namespace fs = std::filesystem;

class TestTunedManifest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void addDecideRemove()
    {
        const std::string original =
            (fs::path(SASSX_SOURCE_DIR) / "samples/blackwell/bw_elementwise.sm_100a.cubin").string();
        auto bytes = readRegularFile(original);
        QVERIFY(bytes);
        auto cubin = Cubin::parse(*bytes);
        QVERIFY(cubin && !cubin->kernels().empty());
        const std::string symbol = cubin->kernels().front().name;
        QTemporaryDir tmp;
        const std::string dir = (fs::path(tmp.path().toStdString()) / tune::kTunedDir).string();

        auto written = tune::addTuned(dir, {"elementwise", symbol, original}, *bytes);
        QVERIFY2(written, written ? "" : written.message().c_str());
        QVERIFY(fs::exists(*written));
        auto written2 = tune::addTuned(dir, {"elementwise", symbol, original}, *bytes); // again: replaced
        QVERIFY(written2);
        auto table = inject::SubstitutionTable::load(dir);
        QVERIFY2(table, table ? "" : table.message().c_str());
        QCOMPARE(table->size(), size_t(1));
        const std::string imageSha = eval::sha256Hex(bytes->data(), bytes->size());
        const inject::Substitution s = table->decide(imageSha, *bytes, symbol, 100);
        QVERIFY2(s.cubin, s.reason.c_str());

        QVERIFY(tune::removeTuned(dir, "elementwise"));
        QVERIFY(!fs::exists(*written));
        auto after = inject::SubstitutionTable::load(dir);
        QVERIFY(after && after->empty());
        QVERIFY(tune::removeTuned(dir, "elementwise")); // nothing left: still fine
    }

    void refusals()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        auto r = tune::addTuned(dir, {"k", "k", "/nonexistent/original.cubin"}, {1, 2, 3});
        QVERIFY(!r);
        QVERIFY2(r.message().starts_with("the captured original: "), r.message().c_str());
        QVERIFY(r.message().find('\n') == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTunedManifest)
#include "test_tuned_manifest.moc"
