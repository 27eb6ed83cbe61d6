// Triton cache write-back on a synthetic entry built from a sample cubin and Triton 3.x-style metadata.
#include "../sass/test_common.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/triton_cache.h"
#include "core/sass/nvdisasm.h"
#include "rewrite_test_util.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace sassx;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// <name>.cubin, <name>.json (fields Triton 3.x writes), .ptx/.ttir and the __grp__ file listing them.
void makeEntry(const fs::path& dir, const Cubin& cubin, const std::string& name)
{
    std::ofstream(dir / (name + ".cubin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(cubin.bytes().data()), std::streamsize(cubin.bytes().size()));
    nlohmann::json meta{{"hash", "0123abcd"},
                        {"target", {{"backend", "cuda"}, {"arch", cubin.smVersion()}, {"warp_size", 32}}},
                        {"num_warps", 4},
                        {"num_ctas", 1},
                        {"num_stages", 3},
                        {"cluster_dims", {1, 1, 1}},
                        {"shared", 0},
                        {"name", name}};
    std::ofstream(dir / (name + ".json")) << meta.dump();
    std::ofstream(dir / (name + ".ptx")) << "// ptx\n";
    std::ofstream(dir / (name + ".ttir")) << "// ttir\n";
    nlohmann::json grp{{"child_paths",
                        {{name + ".cubin", (dir / (name + ".cubin")).string()},
                         {name + ".json", (dir / (name + ".json")).string()}}}};
    std::ofstream(dir / ("__grp__" + name + ".json")) << grp.dump();
}

} // namespace

class TestTritonCache : public QObject
{
    Q_OBJECT
private:
    std::optional<Cubin> m_cubin;
    std::string m_kernel;
    std::vector<uint8_t> m_tuned;

private slots:
    void initTestCase()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed");
        const auto paths = sampleCubins();
        if (paths.isEmpty()) QSKIP("no sample cubins");
        auto c = Cubin::load(paths.back().toStdString()); // a Triton capture when there is one
        QVERIFY(c.ok());
        m_kernel = c->kernels().front().name;
        auto listing = disassembleKernel(*c, m_kernel);
        QVERIFY(listing.ok());
        auto a = KernelAnalysis::build(*listing);
        std::mt19937 rng(3);
        const PatchOptions opts{.keepStaleLineInfo = true};
        auto s = applyEdits(*a, rewrite_test::randomMoves(
                                    *a, unpatchableInstructions(*c, c->kernels().front(), opts), rng, 4));
        QVERIFY(s.ok());
        auto out = writeSchedule(*c, *a, *s, opts);
        QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
        QVERIFY(*out != c->bytes());
        m_tuned = *out;
        m_cubin = std::move(*c);
    }

    void exportKeepsBackupAndRestores()
    {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        makeEntry(dir, *m_cubin, m_kernel);
        const fs::path cubinPath = dir / (m_kernel + ".cubin"),
                       backup = dir / (m_kernel + ".cubin.sassx-orig");
        QVERIFY(exportToTritonCache(dir, m_tuned).ok());
        QVERIFY(readAll(cubinPath) == m_tuned);
        QVERIFY(readAll(backup) == m_cubin->bytes());
        // A second export checks against the backup and never overwrites it.
        QVERIFY(exportToTritonCache(dir, m_tuned, m_kernel).ok());
        QVERIFY(readAll(backup) == m_cubin->bytes());
        // No temp files left behind (the atomic writer's are hidden siblings, core/common/atomic_file.h).
        for (const auto& f : fs::directory_iterator(dir))
            QVERIFY2(!f.path().filename().string().starts_with("."), f.path().c_str());
        QVERIFY(restoreTritonCache(dir).ok());
        QVERIFY(readAll(cubinPath) == m_cubin->bytes());
        QVERIFY(!fs::exists(backup));
        auto again = restoreTritonCache(dir);
        QVERIFY(!again.ok());
        QVERIFY(again.message().find("no backup") != std::string::npos);
    }

    // A cache whose cubin is a symbolic link to a file elsewhere keeps the link: the export and the
    // restore replace the file it names.
    void exportThroughSymlink()
    {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "entry",
                       store = fs::path(tmp.path().toStdString()) / "store";
        fs::create_directories(dir);
        fs::create_directories(store);
        makeEntry(dir, *m_cubin, m_kernel);
        const fs::path link = dir / (m_kernel + ".cubin"), target = store / (m_kernel + ".cubin");
        fs::rename(link, target);
        fs::create_symlink(fs::relative(target, dir), link);
        const auto exported = exportToTritonCache(dir, m_tuned);
        QVERIFY2(exported.ok(), exported.ok() ? "" : exported.message().c_str());
        QVERIFY(fs::is_symlink(link));
        QVERIFY(readAll(target) == m_tuned);
        QVERIFY(readAll(dir / (m_kernel + ".cubin.sassx-orig")) == m_cubin->bytes());
        QVERIFY(restoreTritonCache(dir).ok());
        QVERIFY(fs::is_symlink(link));
        QVERIFY(readAll(target) == m_cubin->bytes());
        for (const fs::path& d : {dir, store})
            for (const auto& f : fs::directory_iterator(d))
                QVERIFY2(!f.path().filename().string().starts_with("."), f.path().c_str());
    }

    void refusesMismatches_data()
    {
        QTest::addColumn<QString>("what");
        QTest::newRow("other kernel name") << "kernel";
        QTest::newRow("another kernel's cubin") << "size";
        QTest::newRow("other arch in metadata") << "arch";
        QTest::newRow("not a cubin") << "garbage";
        QTest::newRow("no entry") << "noentry";
    }

    void refusesMismatches()
    {
        QFETCH(QString, what);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        std::vector<uint8_t> tuned = m_tuned;
        std::string kernel;
        if (what != "noentry") makeEntry(dir, *m_cubin, m_kernel);
        if (what == "kernel") kernel = "not_" + m_kernel;
        if (what == "garbage") tuned.assign(64, 0x42);
        if (what == "arch") {
            auto meta = nlohmann::json::parse(std::ifstream(dir / (m_kernel + ".json")));
            meta["target"]["arch"] = 75;
            std::ofstream(dir / (m_kernel + ".json")) << meta.dump();
        }
        if (what == "size") {
            // Another sample (another kernel, another size) in place of the tuned cubin.
            for (const auto& p : sampleCubins()) {
                auto c = Cubin::load(p.toStdString());
                if (c.ok() && c->kernels().front().codeSize != m_cubin->kernels().front().codeSize) {
                    tuned = c->bytes();
                    kernel = "";
                    break;
                }
            }
        }
        auto st = exportToTritonCache(dir, tuned, kernel);
        QVERIFY(!st.ok());
        qInfo("%s: %s", qPrintable(what), st.message().c_str());
        if (what != "noentry") {
            QVERIFY(readAll(dir / (m_kernel + ".cubin")) == m_cubin->bytes());
            QVERIFY(!fs::exists(dir / (m_kernel + ".cubin.sassx-orig")));
        }
    }

    void compatibilityChecksParameters()
    {
        QVERIFY(checkTunedCompatible(*m_cubin, *Cubin::parse(m_tuned), m_kernel).ok());
        // A different kernel of another sample with the same name does not exist: checking against
        // itself with a wrong name fails with a sentence naming the kernel.
        auto st = checkTunedCompatible(*m_cubin, *m_cubin, "nope");
        QVERIFY(!st.ok() && st.message().find("nope") != std::string::npos);
    }
};

QTEST_MAIN(TestTritonCache)
#include "test_triton_cache.moc"
