// The launch spec's thread-block cluster (docs/launch-spec.md): what the driver hook writes for a kernel
// launched with a cluster dimension, on a sample's real spec. Accepted forms, the refusals (one line
// naming "cluster"), the JSON round trip, and a file load whose refusal names the file.
#include "core/eval/launch_spec.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

// The sgemm sample's spec (grid [16, 16, 1]) as shipped.
json sampleSpec()
{
    std::ifstream in(std::string(SASSX_SOURCE_DIR) + "/samples/cuda/sgemm_leakyrelu.launch.json");
    return json::parse(in, nullptr, false);
}

json withPatch(const QString& patch)
{
    json j = sampleSpec();
    const json changes = json::parse(patch.toStdString());
    for (auto& [k, v] : changes.items())
        j[k] = v;
    return j;
}

using Dims = std::array<uint32_t, 3>;

} // namespace

Q_DECLARE_METATYPE(Dims)

class TestSpecCluster : public QObject
{
    Q_OBJECT
private slots:
    void sampleSpecIsThere() { QVERIFY(sampleSpec().is_object()); }

    void accepted_data()
    {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<bool>("hasCluster");
        QTest::addColumn<Dims>("cluster");
        QTest::addColumn<uint32_t>("blocks");
        QTest::newRow("absent") << "{}" << false << Dims{} << 0u;
        QTest::newRow("null") << R"({"cluster": null})" << false << Dims{} << 0u;
        QTest::newRow("as the hook writes it") << R"({"cluster": [2, 1, 1]})" << true << Dims{2, 1, 1} << 2u;
        QTest::newRow("one number") << R"({"cluster": 4})" << true << Dims{4, 1, 1} << 4u;
        QTest::newRow("two numbers") << R"({"cluster": [2, 4]})" << true << Dims{2, 4, 1} << 8u;
        QTest::newRow("a cluster of one") << R"({"cluster": [1, 1, 1]})" << true << Dims{1, 1, 1} << 1u;
        QTest::newRow("8: portable") << R"({"cluster": [1, 8, 1]})" << true << Dims{1, 8, 1} << 8u;
        QTest::newRow("16: non-portable") << R"({"cluster": [4, 4, 1]})" << true << Dims{4, 4, 1} << 16u;
        QTest::newRow("z divides a deep grid")
            << R"({"grid": [16, 16, 4], "cluster": [2, 2, 2]})" << true << Dims{2, 2, 2} << 8u;
        QTest::newRow("grid as one number")
            << R"({"grid": 132, "cluster": [2]})" << true << Dims{2, 1, 1} << 2u;
    }
    void accepted()
    {
        QFETCH(QString, patch);
        QFETCH(bool, hasCluster);
        QFETCH(Dims, cluster);
        QFETCH(uint32_t, blocks);
        auto s = parseLaunchSpec(withPatch(patch));
        QVERIFY2(s, s ? "" : s.message().c_str());
        QCOMPARE(s->cluster.has_value(), hasCluster);
        if (hasCluster) QCOMPARE(*s->cluster, cluster);
        QCOMPARE(s->clusterBlocks(), blocks);
        // The canonical form carries the cluster exactly when the spec has one, and reads back the same.
        const json canonical = toJson(*s);
        QCOMPARE(canonical.contains("cluster"), hasCluster);
        if (hasCluster) QCOMPARE(canonical["cluster"], json(cluster));
        auto again = parseLaunchSpec(canonical);
        QVERIFY2(again, again ? "" : again.message().c_str());
        QCOMPARE(again->cluster, s->cluster);
        QCOMPARE(toJson(*again).dump(), canonical.dump());
    }

    void refused_data()
    {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("expected");
        const QString shape = "launch spec: \"cluster\" must be 1 to 3 positive integers";
        QTest::newRow("zero") << R"({"cluster": [0, 1, 1]})" << shape;
        QTest::newRow("negative") << R"({"cluster": [-2]})" << shape;
        QTest::newRow("empty") << R"({"cluster": []})" << shape;
        QTest::newRow("four numbers") << R"({"cluster": [1, 1, 1, 1]})" << shape;
        QTest::newRow("fraction") << R"({"cluster": [2.5, 1, 1]})" << shape;
        QTest::newRow("text") << R"({"cluster": "2x1x1"})" << shape;
        QTest::newRow("object") << R"({"cluster": {"x": 2}})" << shape;
        QTest::newRow("past 32 bits") << R"({"cluster": [4294967298, 1, 1]})" << shape;
        QTest::newRow("32 blocks")
            << R"({"cluster": [4, 4, 2], "grid": [16, 16, 2]})"
            << "launch spec: \"cluster\" [4, 4, 2] holds 32 blocks, more than 16 (8 portable, 16 on Hopper";
        QTest::newRow("one axis too long") << R"({"cluster": [16, 2]})"
                                           << "\"cluster\" [16, 2, 1] holds 32 blocks, more than 16";
        QTest::newRow("huge factors") << R"({"cluster": [2147483647, 2147483647, 2147483647]})"
                                      << "blocks, more than 16";
        QTest::newRow("x does not divide") << R"({"cluster": [3, 1, 1]})"
                                           << "launch spec: \"cluster\" [3, 1, 1] does not divide \"grid\" "
                                              "[16, 16, 1] (16 blocks in x are not "
                                              "a multiple of 3)";
        QTest::newRow("y does not divide") << R"({"grid": [16, 6, 1], "cluster": [2, 4]})"
                                           << "(6 blocks in y are not a multiple of 4)";
        QTest::newRow("z does not divide") << R"({"cluster": [1, 1, 2]})"
                                           << "(1 blocks in z are not a multiple of 2)";
    }
    void refused()
    {
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        auto s = parseLaunchSpec(withPatch(patch));
        QVERIFY(!s);
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
        QVERIFY2(s.message().find('\n') == std::string::npos, s.message().c_str());
    }

    // loadLaunchSpec's refusals end with the file, as every other field's do.
    void fileRefusalNamesTheFile()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = (std::filesystem::path(tmp.path().toStdString()) / "k.launch.json").string();
        std::ofstream(path) << withPatch(R"({"cluster": [5, 1, 1]})").dump(1);
        auto s = loadLaunchSpec(path);
        QVERIFY(!s);
        QVERIFY2(s.message().find("does not divide") != std::string::npos, s.message().c_str());
        QVERIFY2(s.message().size() > path.size() + 3 &&
                     s.message().compare(s.message().size() - path.size() - 3, std::string::npos,
                                         " [" + path + "]") == 0,
                 s.message().c_str());
        std::ofstream(path) << withPatch(R"({"cluster": [2, 1, 1]})").dump(1);
        auto ok = loadLaunchSpec(path);
        QVERIFY2(ok, ok ? "" : ok.message().c_str());
        QCOMPARE(ok->cluster, std::optional<Dims>(Dims{2, 1, 1}));
    }
};

QTEST_GUILESS_MAIN(TestSpecCluster)
#include "test_spec_cluster.moc"
