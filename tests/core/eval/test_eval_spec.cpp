// Launch spec parsing, validation against KPARAM_INFO, and the JSON round trip; aliased buffers and
// recorded-values files, with the refusals of bad ones.
#include "core/eval/launch_spec.h"
#include "core/eval/sha256.h"

#include <QCryptographicHash>
#include <QtTest>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {
json goodSpec()
{
    return json::parse(R"({
      "name": "axpy", "kernel": "eval_add", "cubin": "eval_add.cubin",
      "grid": [4, 1, 1], "block": 256, "dynamic_shared": 0,
      "params": [
        {"name": "x", "kind": "buffer", "dtype": "f32", "count": 1024, "init": {"kind": "uniform", "low": -1, "high": 1}, "role": "input"},
        {"name": "y", "kind": "buffer", "dtype": "bf16", "count": 1024, "init": {"kind": "normal", "mean": 0, "std": 2}, "role": "inout"},
        {"name": "out", "kind": "buffer", "dtype": "f32", "count": 1024, "role": "output"},
        {"name": "a", "kind": "scalar", "dtype": "f32", "value": 2.5},
        {"name": "n", "kind": "scalar", "dtype": "i64", "value": 1024},
        {"name": "scratch", "kind": "null"}
      ],
      "flops": 2048, "bytes": 12288, "tolerance": {"atol": 0.0, "rtol": 0.0}
    })");
}

// An in-place kernel: dX is written into dY's memory; `view` is a second alias 64 bytes in, through dX.
json inPlaceSpec()
{
    return json::parse(R"({
      "kernel": "rmsnorm_bwd", "grid": [4], "block": [128],
      "params": [
        {"name": "dY", "kind": "buffer", "dtype": "f32", "count": 1024, "init": {"kind": "normal", "mean": 0, "std": 1}, "role": "inout"},
        {"name": "x", "kind": "buffer", "dtype": "f32", "count": 1024, "init": {"kind": "uniform", "low": -1, "high": 1}, "role": "input"},
        {"name": "dX", "kind": "buffer", "dtype": "f32", "count": 1024, "alias": {"of": "dY"}},
        {"name": "view", "kind": "buffer", "dtype": "u8", "count": 64, "alias": {"of": "dX", "offset": 64}},
        {"name": "n", "kind": "scalar", "dtype": "i32", "value": 1024}
      ]})");
}

std::vector<uint8_t> someBytes(size_t n, uint32_t seed)
{
    std::vector<uint8_t> out(n);
    uint32_t x = seed;
    for (auto& b : out) {
        x = x * 1664525u + 1013904223u;
        b = uint8_t(x >> 24);
    }
    return out;
}

std::string hexOf(const std::vector<uint8_t>& bytes)
{
    return sha256Hex(bytes.data(), bytes.size());
}

// A zlib stream of `bytes` (qCompress prefixes zlib's output with its 4-byte length).
QByteArray zlibOf(const std::vector<uint8_t>& bytes)
{
    return qCompress(reinterpret_cast<const uchar*>(bytes.data()), qsizetype(bytes.size())).mid(4);
}

void writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

// A loss-like kernel whose labels (i64, -100 among class indices) come from a recorded-values file.
json recordedSpec(const std::string& sha, uint64_t bytes, const std::string& encoding = "zlib")
{
    json j = json::parse(R"({
      "kernel": "cross_entropy", "grid": [8], "block": [256],
      "params": [
        {"name": "logits", "kind": "buffer", "dtype": "bf16", "count": 4096, "init": {"kind": "normal", "mean": 0, "std": 2}, "role": "input"},
        {"name": "labels", "kind": "buffer", "dtype": "i64", "count": 128, "role": "input"},
        {"name": "loss", "kind": "buffer", "dtype": "f32", "count": 128, "role": "output"}
      ]})");
    j["params"][1]["init"] = {{"kind", "recorded"},
                              {"file", "ce.values/labels.bin.z"},
                              {"encoding", encoding},
                              {"bytes", bytes},
                              {"sha256", sha}};
    return j;
}

std::vector<uint8_t> labels()
{
    std::vector<int64_t> v(128);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = i % 7 == 3 ? -100 : int64_t(i * 37 % 31996);
    std::vector<uint8_t> out(v.size() * 8);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

std::vector<KernelParam> bank(std::vector<uint32_t> sizes)
{
    std::vector<KernelParam> out;
    uint32_t off = 0;
    for (uint32_t i = 0; i < sizes.size(); ++i) {
        out.push_back({i, off, sizes[i]});
        off += sizes[i];
    }
    return out;
}
} // namespace

class TestEvalSpec : public QObject
{
    Q_OBJECT
private slots:
    void parsesDocumentedExample()
    {
        auto s = parseLaunchSpec(goodSpec(), "/specs");
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        QCOMPARE(s->params.size(), size_t(6));
        QCOMPARE(s->block[0], 256u);
        QCOMPARE(s->block[1], 1u);
        QCOMPARE(s->params[1].dtype, DType::BF16);
        QCOMPARE(s->params[1].role, ParamRole::InOut);
        QVERIFY(s->params[2].compared());
        QVERIFY(!s->params[0].compared());
        QCOMPARE(s->cubinPath(), std::string("/specs/eval_add.cubin"));
        QVERIFY(s->tolerance.bitwise());
    }

    void roundTrip()
    {
        auto s = parseLaunchSpec(goodSpec(), "/specs");
        QVERIFY(s.ok());
        auto again = parseLaunchSpec(toJson(s.value()));
        QVERIFY(again.ok());
        QCOMPARE(toJson(again.value()).dump(), toJson(s.value()).dump());
        QCOMPARE(again->cubinPath(), std::string("/specs/eval_add.cubin"));
    }

    void errorsNameTheProblem_data()
    {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no kernel") << R"({"kernel": null})"
                                   << "missing \"kernel\"";
        QTest::newRow("bad grid") << R"({"grid": [0, 1]})"
                                  << "\"grid\"";
        QTest::newRow("big block") << R"({"block": [1024, 2, 1]})"
                                   << "more than 1024";
        QTest::newRow("bad dtype")
            << R"({"params": [{"name": "x", "kind": "buffer", "dtype": "f8", "count": 4, "init": {"kind": "zeros"}}]})"
            << "params[0] (x): unknown dtype \"f8\"";
        QTest::newRow("no count")
            << R"({"params": [{"name": "x", "kind": "buffer", "dtype": "f32", "init": {"kind": "zeros"}}]})"
            << "params[0] (x): buffer needs a positive integer \"count\"";
        QTest::newRow("bad role")
            << R"({"params": [{"name": "x", "kind": "buffer", "dtype": "f32", "count": 4, "role": "scratch", "init": {"kind": "zeros"}}]})"
            << "unknown role \"scratch\"";
        QTest::newRow("input no init")
            << R"({"params": [{"name": "x", "kind": "buffer", "dtype": "f32", "count": 4}]})"
            << "needs an \"init\"";
        QTest::newRow("bad init")
            << R"({"params": [{"name": "x", "kind": "buffer", "dtype": "f32", "count": 4, "init": {"kind": "gaussian"}}]})"
            << "unknown init kind \"gaussian\"";
        QTest::newRow("uniform order")
            << R"({"params": [{"name": "x", "kind": "buffer", "dtype": "f32", "count": 4, "init": {"kind": "uniform", "low": 2, "high": 1}}]})"
            << "low <= high";
        QTest::newRow("scalar value") << R"({"params": [{"name": "n", "kind": "scalar", "dtype": "i32"}]})"
                                      << "params[0] (n): scalar needs a numeric \"value\"";
        QTest::newRow("bad kind") << R"({"params": [{"name": "t", "kind": "tensor"}]})"
                                  << "unknown kind \"tensor\"";
        QTest::newRow("negative tol") << R"({"tolerance": {"atol": -1}})"
                                      << "atol/rtol";
    }
    void errorsNameTheProblem()
    {
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        json j = goodSpec();
        json p = json::parse(patch.toStdString());
        for (auto& [k, v] : p.items()) {
            if (v.is_null())
                j.erase(k);
            else
                j[k] = v;
        }
        auto s = parseLaunchSpec(j);
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
    }

    void validatesAgainstKparamInfo()
    {
        auto s = parseLaunchSpec(goodSpec());
        QVERIFY(s.ok());
        QVERIFY(validateParams(s.value(), bank({8, 8, 8, 4, 8, 8})).ok());

        auto count = validateParams(s.value(), bank({8, 8, 8, 4, 8}));
        QVERIFY(!count.ok());
        QVERIFY2(count.message().find("takes 5 parameters") != std::string::npos, count.message().c_str());
        QVERIFY(count.message().find("lists 6") != std::string::npos);

        auto size = validateParams(s.value(), bank({8, 8, 8, 4, 4, 8}));
        QVERIFY(!size.ok());
        QVERIFY2(size.message().find("parameter 4 (n) is 4 bytes") != std::string::npos,
                 size.message().c_str());
        QVERIFY(size.message().find("i64 scalar (8 bytes)") != std::string::npos);

        auto ptr = validateParams(s.value(), bank({4, 8, 8, 4, 8, 8}));
        QVERIFY(!ptr.ok());
        QVERIFY2(ptr.message().find("a pointer") != std::string::npos, ptr.message().c_str());
    }

    void loadsFromFileWithRelativeCubin()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("k.launch.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(goodSpec().dump()));
        f.close();
        auto s = loadLaunchSpec(path.toStdString());
        QVERIFY(s.ok());
        QCOMPARE(QString::fromStdString(s->cubinPath()), dir.filePath("eval_add.cubin"));
        auto missing = loadLaunchSpec(dir.filePath("nope.json").toStdString());
        QVERIFY(!missing.ok());
        QVERIFY(missing.message().find("cannot open") != std::string::npos);
    }
    // --- aliases --------------------------------------------------------------------------------
    void aliasesShareTheirRootsAllocation()
    {
        auto s = parseLaunchSpec(inPlaceSpec());
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        const auto& p = s->params;
        QVERIFY(!p[0].isAlias());
        QVERIFY(p[2].isAlias());
        QCOMPARE(p[2].aliasRoot, 0);
        QCOMPARE(p[2].rootOffset, uint64_t(0));
        QCOMPARE(p[3].aliasRoot, 0); // through dX
        QCOMPARE(p[3].rootOffset, uint64_t(64));
        // The allocation plan: one allocation for dY/dX/view, compared once through dY.
        QCOMPARE(allocatedParams(s.value()), (std::vector<int>{0, 1}));
        QCOMPARE(comparedParams(s.value()), (std::vector<int>{0}));
        QVERIFY(!p[2].initialised() && !p[2].compared());
        QVERIFY(validateParams(s.value(), bank({8, 8, 8, 8, 4})).ok()); // an alias is a pointer

        auto again = parseLaunchSpec(toJson(s.value()));
        QVERIFY(again.ok());
        QCOMPARE(toJson(again.value()).dump(), toJson(s.value()).dump());
        QCOMPARE(again->params[3].aliasOf, std::string("dX"));
        QCOMPARE(again->params[3].rootOffset, uint64_t(64));
    }

    void oldSpecsHaveNoAliases()
    {
        auto s = parseLaunchSpec(goodSpec());
        QVERIFY(s.ok());
        QCOMPARE(allocatedParams(s.value()), (std::vector<int>{0, 1, 2}));
        QCOMPARE(comparedParams(s.value()), (std::vector<int>{1, 2}));
        QVERIFY(toJson(s.value()).dump().find("alias") == std::string::npos);
    }

    void badAliasesAreRefused_data()
    {
        QTest::addColumn<int>("param");
        QTest::addColumn<QString>("alias");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown target") << 2 << R"({"of": "dZ"})"
                                        << "params[2] (dX): bad alias: its target dZ is not a parameter";
        QTest::newRow("scalar target") << 2 << R"({"of": "n"})"
                                       << "params[2] (dX): bad alias: its target n is not a buffer";
        QTest::newRow("itself") << 2 << R"({"of": "dX"})"
                                << "params[2] (dX): bad alias: it names itself";
        QTest::newRow("offset beyond extent")
            << 2 << R"({"of": "dY", "offset": 8192})"
            << "params[2] (dX): bad alias: 4096 bytes at offset 8192 of dY reach past its 4096 bytes";
        QTest::newRow("view too large")
            << 2 << R"({"of": "dY", "offset": 4})"
            << "params[2] (dX): bad alias: 4096 bytes at offset 4 of dY reach past";
        QTest::newRow("chained offset past the end")
            << 3 << R"({"of": "dX", "offset": 4090})"
            << "params[3] (view): bad alias: 64 bytes at offset 4090";
        QTest::newRow("negative offset") << 2 << R"({"of": "dY", "offset": -4})"
                                         << "non-negative";
        QTest::newRow("not an object") << 2 << R"("dY")"
                                       << "params[2] (dX): \"alias\" must be an object";
    }
    void badAliasesAreRefused()
    {
        QFETCH(int, param);
        QFETCH(QString, alias);
        QFETCH(QString, expected);
        json j = inPlaceSpec();
        j["params"][size_t(param)]["alias"] = json::parse(alias.toStdString());
        auto s = parseLaunchSpec(j);
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
        QVERIFY(s.message().find('\n') == std::string::npos);
    }

    void aliasCyclesAndAmbiguityAreRefused()
    {
        json j = inPlaceSpec();
        j["params"][2]["alias"] = {{"of", "view"}};
        auto cycle = parseLaunchSpec(j);
        QVERIFY(!cycle.ok());
        QVERIFY2(cycle.message().find("params[2] (dX): bad alias: a cycle (dX -> view -> dX)") !=
                     std::string::npos,
                 cycle.message().c_str());

        j = inPlaceSpec();
        j["params"][1]["name"] = "dY";
        auto twice = parseLaunchSpec(j);
        QVERIFY(!twice.ok());
        QVERIFY2(twice.message().find("params[1] (dY): the name is taken by params[0]") != std::string::npos,
                 twice.message().c_str());

        j = inPlaceSpec();
        j["params"][2]["init"] = {{"kind", "zeros"}};
        auto init = parseLaunchSpec(j);
        QVERIFY(!init.ok());
        QVERIFY2(init.message().find("params[2] (dX): an alias of dY takes its contents and role from it") !=
                     std::string::npos,
                 init.message().c_str());
    }

    // --- recorded values ------------------------------------------------------------------------
    void sha256KnownAnswers()
    {
        auto hex = [](const std::string& s) {
            return sha256Hex(reinterpret_cast<const uint8_t*>(s.data()), s.size());
        };
        QCOMPARE(hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        // Every tail length around the 55/56/64-byte padding edges, against Qt's SHA-256.
        for (size_t n : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 100003}) {
            const auto b = someBytes(n, uint32_t(n));
            const QByteArray want =
                QCryptographicHash::hash(QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(n)),
                                         QCryptographicHash::Sha256)
                    .toHex();
            QCOMPARE(QString::fromStdString(hexOf(b)), QString::fromLatin1(want));
        }
    }

    void recordedValuesLoadAndRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("ce.values"));
        const auto bytes = labels();
        writeFile(dir.filePath("ce.values/labels.bin.z"), zlibOf(bytes));
        writeFile(dir.filePath("ce.launch.json"),
                  QByteArray::fromStdString(recordedSpec(hexOf(bytes), 1024).dump()));
        auto s = loadLaunchSpec(dir.filePath("ce.launch.json").toStdString());
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        const ParamSpec& p = s->params[1];
        QCOMPARE(p.init.kind, InitKind::Recorded);
        QCOMPARE(QString::fromStdString(p.init.file), dir.filePath("ce.values/labels.bin.z"));
        QVERIFY(p.initialised());
        auto got = readRecordedValues(p);
        QVERIFY(got.ok());
        QCOMPARE(got.value(), bytes);
        int64_t third = 0;
        std::memcpy(&third, got->data() + 3 * 8, 8);
        QCOMPARE(third, int64_t(-100)); // the ignore index survives, as a distribution would not
        // The worker gets the absolute path through toJson and reads the same bytes.
        auto again = parseLaunchSpec(toJson(s.value()));
        QVERIFY(again.ok());
        QCOMPARE(toJson(again.value()).dump(), toJson(s.value()).dump());
        QCOMPARE(readRecordedValues(again->params[1]).value(), bytes);

        // raw encoding: the file is the bytes
        writeFile(dir.filePath("ce.values/labels.bin.z"),
                  QByteArray(reinterpret_cast<const char*>(bytes.data()), 1024));
        writeFile(dir.filePath("ce.launch.json"),
                  QByteArray::fromStdString(recordedSpec(hexOf(bytes), 1024, "raw").dump()));
        auto raw = loadLaunchSpec(dir.filePath("ce.launch.json").toStdString());
        QVERIFY2(raw.ok(), raw.ok() ? "" : raw.message().c_str());
    }

    // A spec as the Python capture writes it (tests/core/eval/data, written with Python's zlib and hashlib):
    // the evaluator reads its values file and plans one allocation for logits and its in-place gradient.
    void loadsACaptureWrittenSpec()
    {
        auto s = loadLaunchSpec(SASSX_TESTDATA_DIR "/ce.launch.json");
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        auto values = readRecordedValues(s->params[1]);
        QVERIFY(values.ok());
        QCOMPARE(values->size(), size_t(2048));
        int64_t v[8];
        std::memcpy(v, values->data(), sizeof v);
        QCOMPARE(v[3], int64_t(-100));
        QCOMPARE(v[4], int64_t(148));
        QCOMPARE(allocatedParams(s.value()), (std::vector<int>{0, 1, 2}));
        QCOMPARE(comparedParams(s.value()), (std::vector<int>{0, 2}));
        QCOMPARE(s->params[3].aliasRoot, 0);
    }

    void badRecordedValuesAreRefused_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing") << "missing"
                                 << "labels: recorded values";
        QTest::newRow("truncated") << "truncated"
                                   << "truncated";
        QTest::newRow("altered") << "altered"
                                 << "SHA-256 mismatch";
        QTest::newRow("garbage") << "garbage"
                                 << "not a valid zlib stream";
        QTest::newRow("longer stream") << "longer"
                                       << "holds more than the 1024 bytes";
        QTest::newRow("trailing data") << "trailing"
                                       << "data after its zlib stream";
        QTest::newRow("empty") << "empty"
                               << "truncated";
    }
    void badRecordedValuesAreRefused()
    {
        QFETCH(QString, damage);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("ce.values"));
        auto bytes = labels();
        const std::string sha = hexOf(bytes);
        QByteArray file = zlibOf(bytes);
        if (damage == "truncated") file.chop(file.size() / 2);
        if (damage == "altered") {
            bytes[17] ^= 1;
            file = zlibOf(bytes);
        }
        if (damage == "garbage") file = QByteArray(64, 'x');
        if (damage == "longer") {
            bytes.push_back(0);
            file = zlibOf(bytes);
        }
        if (damage == "trailing") file += "more";
        if (damage == "empty") file.clear();
        if (damage == "directory")
            QVERIFY(QDir(dir.path()).mkpath("ce.values/labels.bin.z"));
        else if (damage != "missing")
            writeFile(dir.filePath("ce.values/labels.bin.z"), file);
        writeFile(dir.filePath("ce.launch.json"), QByteArray::fromStdString(recordedSpec(sha, 1024).dump()));
        auto s = loadLaunchSpec(dir.filePath("ce.launch.json").toStdString());
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find("labels: recorded values") != std::string::npos, s.message().c_str());
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
        QVERIFY(s.message().find('\n') == std::string::npos);
        // The parse alone (what the worker does before reading) accepts it; reading refuses the same way.
        auto parsed = parseLaunchSpec(recordedSpec(sha, 1024), dir.path().toStdString());
        QVERIFY(parsed.ok());
        auto read = readRecordedValues(parsed->params[1]);
        QVERIFY(!read.ok());
        QVERIFY2(read.message().find(expected.toStdString()) != std::string::npos, read.message().c_str());
    }

    // A hostile spec claiming 64 GiB of values with a small file is refused without allocating them, and
    // a raw file of the wrong size before it is read.
    void hugeClaimsCostNoMemory()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("ce.values"));
        const auto bytes = labels();
        writeFile(dir.filePath("ce.values/labels.bin.z"), zlibOf(bytes));
        json j = recordedSpec(hexOf(bytes), uint64_t(1) << 36);
        j["params"][1]["count"] = uint64_t(1) << 33;
        auto s = parseLaunchSpec(j, dir.path().toStdString());
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        auto read = readRecordedValues(s->params[1]);
        QVERIFY(!read.ok());
        QVERIFY2(read.message().find("truncated (1024 of 68719476736 bytes)") != std::string::npos,
                 read.message().c_str());
        j["params"][1]["init"]["encoding"] = "raw";
        s = parseLaunchSpec(j, dir.path().toStdString());
        QVERIFY(s.ok());
        read = readRecordedValues(s->params[1]);
        QVERIFY(!read.ok());
        QVERIFY2(read.message().find("truncated (") != std::string::npos, read.message().c_str());
    }

    void badRecordedFieldsAreRefused_data()
    {
        QTest::addColumn<QString>("init");
        QTest::addColumn<QString>("expected");
        const std::string sha(64, 'a');
        QTest::newRow("size mismatch")
            << QString::fromStdString(
                   json{{"kind", "recorded"}, {"file", "v.bin"}, {"bytes", 1000}, {"sha256", sha}}.dump())
            << "params[1] (labels): recorded values hold 1000 bytes, the buffer 1024";
        QTest::newRow("no file") << QString::fromStdString(
                                        json{{"kind", "recorded"}, {"bytes", 1024}, {"sha256", sha}}.dump())
                                 << "init recorded needs a \"file\"";
        QTest::newRow("bad hash")
            << QString::fromStdString(
                   json{{"kind", "recorded"}, {"file", "v.bin"}, {"bytes", 1024}, {"sha256", "ABC"}}.dump())
            << "64 lower-case hex digits";
        QTest::newRow("bad encoding") << QString::fromStdString(json{
                                             {"kind", "recorded"},
                                             {"file", "v.bin"},
                                             {"encoding", "lzma"},
                                             {"bytes", 1024},
                                             {"sha256", sha}}.dump())
                                      << "unknown recorded encoding \"lzma\"";
        QTest::newRow("no bytes")
            << QString::fromStdString(json{{"kind", "recorded"}, {"file", "v.bin"}, {"sha256", sha}}.dump())
            << "positive integer \"bytes\"";
    }
    void badRecordedFieldsAreRefused()
    {
        QFETCH(QString, init);
        QFETCH(QString, expected);
        json j = recordedSpec(std::string(64, 'a'), 1024);
        j["params"][1]["init"] = json::parse(init.toStdString());
        auto s = parseLaunchSpec(j);
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestEvalSpec)
#include "test_eval_spec.moc"
