// The tuned kernels a program runs in place of its own, decided on real cubins: a match, a kernel the
// table does not name (the original, silently), and the mismatches that run the original and say why
// once: a truncated or replaced tuned cubin, another architecture, another GPU, another kernel.
#include "core/common/read_file.h"
#include "core/cubin/cubin.h"
#include "core/eval/sha256.h"
#include "core/inject/substitution_table.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace sassx;
using namespace sassx::inject;
namespace fs = std::filesystem;

namespace {

const fs::path kSamples = fs::path(SASSX_SOURCE_DIR) / "samples" / "blackwell";

std::vector<uint8_t> bytesOf(const fs::path& p)
{
    auto b = readRegularFile(p.string());
    return b ? *b : std::vector<uint8_t>{};
}

std::string sha(const std::vector<uint8_t>& b)
{
    return eval::sha256Hex(b.data(), b.size());
}

std::string firstKernel(const std::vector<uint8_t>& b)
{
    auto c = Cubin::parse(b);
    return c && !c->kernels().empty() ? c->kernels().front().name : std::string();
}

void write(const fs::path& p, const std::vector<uint8_t>& b)
{
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void writeManifest(const fs::path& dir, const std::string& imageSha, const std::string& kernel,
                   const std::string& file, const std::string& cubinSha)
{
    std::ofstream(dir / kTunedManifest)
        << R"({"format": "sassx-tuned", "version": 1, "kernels": [{"image_sha256": ")" << imageSha
        << R"(", "kernel": ")" << kernel << R"(", "name": "elementwise",
                                        "cubin": ")"
        << file << R"(", "cubin_sha256": ")" << cubinSha << "\"}]}";
}

} // namespace

class TestSubstitutionTable : public QObject
{
    Q_OBJECT

    std::vector<uint8_t> m_original, m_otherArch, m_otherKernel;
    std::string m_kernel;

private slots:
    void initTestCase()
    {
        m_original = bytesOf(kSamples / "bw_elementwise.sm_100a.cubin");
        m_otherArch = bytesOf(kSamples / "bw_elementwise.sm_120.cubin");
        m_otherKernel = bytesOf(kSamples / "bw_attention.sm_100a.cubin");
        QVERIFY(!m_original.empty() && !m_otherArch.empty() && !m_otherKernel.empty());
        m_kernel = firstKernel(m_original);
        QVERIFY(!m_kernel.empty());
    }

    void match()
    {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        write(dir / "tuned.cubin", m_original); // a reschedule keeps size and layout; the same bytes do too
        writeManifest(dir, sha(m_original), m_kernel, "tuned.cubin", sha(m_original));
        auto t = SubstitutionTable::load(dir.string());
        QVERIFY2(t, t ? "" : t.message().c_str());
        QVERIFY(t->holdsImage(sha(m_original)));
        const Substitution s = t->decide(sha(m_original), m_original, m_kernel, 100);
        QVERIFY2(s.cubin, s.reason.c_str());
        QCOMPARE(*s.cubin, m_original);
        QCOMPARE(s.cubinSha256, sha(m_original));
        QVERIFY(t->takeMessages().empty());
        // another kernel or another image: not tuned, the original runs and nothing is said
        QVERIFY(!t->decide(sha(m_original), m_original, "other_kernel", 100).cubin);
        QVERIFY(!t->decide(sha(m_otherKernel), m_otherKernel, m_kernel, 100).cubin);
        QVERIFY(t->takeMessages().empty());
    }

    void mismatch_data()
    {
        QTest::addColumn<QString>("tunedFrom"); // which bytes the tuned file holds
        QTest::addColumn<bool>("manifestShaOfFile");
        QTest::addColumn<int>("deviceSm");
        QTest::addColumn<QString>("says");
        QTest::newRow("truncated tuned cubin") << "truncated" << false << 100 << "SHA-256 differs: truncated";
        QTest::newRow("truncated, manifest agrees") << "truncated" << true << 100 << "does not parse";
        QTest::newRow("another architecture")
            << "other-arch" << true << 120 << "the tuned cubin is for sm_120";
        QTest::newRow("a tuned directory for another GPU") << "original" << true << 90 << "this GPU is sm_90";
        QTest::newRow("kernel missing from the tuned cubin")
            << "other-kernel" << true << 100 << "holds no kernel";
        QTest::newRow("missing file") << "none" << false << 100 << "cannot read the tuned cubin";
    }

    void mismatch()
    {
        QFETCH(QString, tunedFrom);
        QFETCH(bool, manifestShaOfFile);
        QFETCH(int, deviceSm);
        QFETCH(QString, says);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        std::vector<uint8_t> tuned = tunedFrom == "other-arch"     ? m_otherArch
                                     : tunedFrom == "other-kernel" ? m_otherKernel
                                                                   : m_original;
        if (tunedFrom == "truncated") tuned.resize(tuned.size() / 2);
        if (tunedFrom != "none") write(dir / "tuned.cubin", tuned);
        writeManifest(dir, sha(m_original), m_kernel, "tuned.cubin",
                      manifestShaOfFile ? sha(tuned) : sha(m_original));
        auto t = SubstitutionTable::load(dir.string());
        QVERIFY2(t, t ? "" : t.message().c_str());
        const Substitution s = t->decide(sha(m_original), m_original, m_kernel, deviceSm);
        QVERIFY(!s.cubin);
        QVERIFY2(s.reason.find(says.toStdString()) != std::string::npos, s.reason.c_str());
        // said once, however often the kernel is looked up again
        QVERIFY(!t->decide(sha(m_original), m_original, m_kernel, deviceSm).cubin);
        const auto messages = t->takeMessages();
        QCOMPARE(messages.size(), size_t(1));
        QVERIFY2(messages[0].starts_with("sassx: elementwise runs its original: "), messages[0].c_str());
        QVERIFY(messages[0].find('\n') == std::string::npos);
        QVERIFY(t->takeMessages().empty());
    }

    void badManifests_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("not json") << "{\"format\""
                                  << "is not JSON";
        QTest::newRow("other format") << R"({"format": "sassx-capture", "version": 1})"
                                      << "is not a sassx-tuned manifest";
        QTest::newRow("no list") << R"({"format": "sassx-tuned", "version": 1})"
                                 << "has no kernels list";
        QTest::newRow("entry without hash")
            << R"({"format": "sassx-tuned", "version": 1, "kernels": [{"kernel": "k"}]})"
            << "kernels[0] needs image_sha256";
    }

    void badManifests()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        auto t = SubstitutionTable::fromManifest(text.toStdString(), "/tuned");
        QVERIFY(!t);
        QVERIFY2(t.message().find(says.toStdString()) != std::string::npos, t.message().c_str());
        QVERIFY(t.message().starts_with("--tuned /tuned: manifest.json"));
        QVERIFY(!SubstitutionTable::load("/nonexistent-sassx-dir"));
    }
};

QTEST_GUILESS_MAIN(TestSubstitutionTable)
#include "test_substitution_table.moc"
