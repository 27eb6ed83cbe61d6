// By-value `bytes` parameters and `memory` entries (docs/launch-spec.md, "By-value bytes and memory"):
// a kernel captured at the driver, whose struct parameter holds device pointers into allocations that
// are no parameter themselves. Parsing and every refusal, the resolved pointers, the bytes the worker
// passes at launch from given device addresses, and the line the CLI prints about the program's outputs.
#include "core/eval/kernel_args.h"
#include "core/eval/launch_spec.h"
#include "core/eval/sha256.h"

#include <QtTest>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

// The documented example: a 24-byte struct with two pointers (into mem0, and into the alias q of mem0),
// a byte view q of mem0 passed as a pointer, and a 4-byte scalar n passed as bytes.
json driverSpec(const std::string& sha = std::string(64, 'a'))
{
    json j = json::parse(R"({
      "kernel": "flash_fwd", "grid": [4], "block": [128],
      "params": [
        {"name": "params", "kind": "bytes", "size": 24, "hex": "000000000000000040000000000000000700000000000000",
         "pointers": [{"at": 0, "to": "mem0", "offset": 0}, {"at": 8, "to": "q", "offset": 64}]},
        {"name": "q", "kind": "buffer", "dtype": "u8", "count": 4096, "alias": {"of": "mem0", "offset": 4096}},
        {"name": "n", "kind": "bytes", "size": 4, "hex": "00100000"}
      ],
      "memory": [
        {"name": "mem0", "dtype": "u8", "count": 65536, "role": "inout",
         "init": {"kind": "recorded", "file": "k.values/mem0.bin.z", "encoding": "zlib", "bytes": 65536}}
      ]})");
    j["memory"][0]["init"]["sha256"] = sha;
    j["memory"][0]["reference"] = {{"sha256", std::string(64, 'b')}};
    return j;
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

QString hexOf(const std::vector<uint8_t>& bytes)
{
    return QString::fromLatin1(
        QByteArray(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size())).toHex());
}

std::vector<uint8_t> memoryBytes()
{
    std::vector<uint8_t> out(65536);
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = uint8_t(i * 131 + (i >> 9));
    return out;
}

void writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

} // namespace

class TestSpecBytes : public QObject
{
    Q_OBJECT
private slots:
    void parsesTheDocumentedExample()
    {
        auto s = parseLaunchSpec(driverSpec());
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        QCOMPARE(s->params.size(), size_t(3));
        QCOMPARE(s->memory.size(), size_t(1));
        QCOMPARE(s->slotCount(), size_t(4));
        const ParamSpec& params = s->params[0];
        QCOMPARE(params.kind, ParamKind::Bytes);
        QCOMPARE(params.bankSize(), 24u);
        QCOMPARE(hexOf(params.raw), QStringLiteral("000000000000000040000000000000000700000000000000"));
        // Both pointers resolve to mem0 (slot 3): q's through its alias, 4096 + 64 bytes in.
        QCOMPARE(params.pointers.size(), size_t(2));
        QCOMPARE(params.pointers[0].root, 3);
        QCOMPARE(params.pointers[0].rootOffset, uint64_t(0));
        QCOMPARE(params.pointers[1].at, 8u);
        QCOMPARE(params.pointers[1].root, 3);
        QCOMPARE(params.pointers[1].rootOffset, uint64_t(4160));
        QCOMPARE(s->params[1].aliasRoot, 3);
        QCOMPARE(s->params[1].rootOffset, uint64_t(4096));
        QCOMPARE(s->params[2].bankSize(), 4u);
        // One allocation, compared whole through mem0; its program reference kept.
        QCOMPARE(allocatedParams(s.value()), (std::vector<int>{3}));
        QCOMPARE(comparedParams(s.value()), (std::vector<int>{3}));
        QCOMPARE(s->memory[0].referenceSha256, std::string(64, 'b'));
        QVERIFY(s->memory[0].initialised());
        QVERIFY(validateParams(s.value(), bank({24, 8, 4})).ok());
    }

    void roundTripsThroughTheProtocol()
    {
        json j = driverSpec();
        j["params"][0]["hex"] = "000000000000000040000000000000000700000000000ABC"; // upper case is read
        auto s = parseLaunchSpec(j);
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        const json once = toJson(s.value());
        QCOMPARE(QString::fromStdString(once["params"][0]["hex"].get<std::string>()),
                 QStringLiteral("000000000000000040000000000000000700000000000abc"));
        auto again = parseLaunchSpec(once);
        QVERIFY2(again.ok(), again.ok() ? "" : again.message().c_str());
        QCOMPARE(toJson(again.value()).dump(), once.dump());
        QCOMPARE(again->params[0].pointers[1].rootOffset, uint64_t(4160));
        QCOMPARE(again->memory[0].referenceSha256, std::string(64, 'b'));
    }

    // The bank size a `bytes` parameter passes is its size, checked against KPARAM_INFO like any other.
    void sizeMustMatchTheCubin()
    {
        auto s = parseLaunchSpec(driverSpec());
        QVERIFY(s.ok());
        auto st = validateParams(s.value(), bank({16, 8, 4}));
        QVERIFY(!st.ok());
        QCOMPARE(
            QString::fromStdString(st.message()),
            QStringLiteral("kernel flash_fwd parameter 0 (params) is 16 bytes in KPARAM_INFO, but the launch "
                           "spec passes its bytes by value (24 bytes)"));
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("entry"); // params/N or memory/N: the entry the patch merges into
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("expected");
        const QString bad = QStringLiteral("params[0] (params): ");
        QTest::newRow("bad hex") << "params/0"
                                 << R"({"hex": "zz0000000000000040000000000000000700000000000000"})"
                                 << bad + "\"hex\" has a character that is not a hex digit at 0";
        QTest::newRow("hex too short")
            << "params/0"
            << R"({"hex": "0000"})" << bad + "\"hex\" holds 4 digits; size 24 needs 48";
        QTest::newRow("hex odd length") << "params/2"
                                        << R"({"hex": "0010000"})"
                                        << "params[2] (n): \"hex\" holds 7 digits; size 4 needs 8";
        QTest::newRow("no hex") << "params/2"
                                << R"({"hex": null})"
                                << "params[2] (n): bytes needs \"hex\": its 4 bytes as hex digits";
        QTest::newRow("size 0")
            << "params/2"
            << R"({"size": 0, "hex": ""})"
            << "params[2] (n): bytes needs an integer \"size\" from 1 to 32764 (the driver's "
               "parameter limit)";
        QTest::newRow("size past the limit")
            << "params/2"
            << R"({"size": 32765})"
            << "params[2] (n): bytes needs an integer \"size\" from 1 to 32764";
        QTest::newRow("no size") << "params/2"
                                 << R"({"size": null})"
                                 << "params[2] (n): bytes needs an integer \"size\"";
        QTest::newRow("misaligned at") << "params/0"
                                       << R"({"pointers": [{"at": 4, "to": "mem0"}]})"
                                       << bad + "pointers[0]: \"at\" 4 is not 8-byte aligned";
        QTest::newRow("at past the end")
            << "params/0"
            << R"({"pointers": [{"at": 24, "to": "mem0"}]})"
            << bad + "pointers[0]: 8 bytes at 24 reach past the parameter's 24 bytes";
        QTest::newRow("at in a short param") << "params/2"
                                             << R"({"pointers": [{"at": 0, "to": "mem0"}]})"
                                             << "params[2] (n): pointers[0]: 8 bytes at 0 reach past the "
                                                "parameter's 4 bytes";
        QTest::newRow("negative at") << "params/0"
                                     << R"({"pointers": [{"at": -8, "to": "mem0"}]})"
                                     << bad + "pointers[0]: \"at\" must be a non-negative integer";
        QTest::newRow("two at one place")
            << "params/0"
            << R"({"pointers": [{"at": 8, "to": "mem0"}, {"at": 8, "to": "q"}]})"
            << bad + "pointers[1]: a second pointer at byte 8";
        QTest::newRow("unknown target")
            << "params/0"
            << R"({"pointers": [{"at": 0, "to": "mem0"}, {"at": 16, "to": "mem9"}]})"
            << bad + "pointers[1]: its target mem9 is not a parameter or memory entry";
        QTest::newRow("scalar target") << "params/0"
                                       << R"({"pointers": [{"at": 0, "to": "n"}]})"
                                       << bad + "pointers[0]: its target n is not a buffer or memory entry";
        QTest::newRow("itself") << "params/0"
                                << R"({"pointers": [{"at": 0, "to": "params"}]})"
                                << bad + "pointers[0]: its target params is not a buffer or memory entry";
        QTest::newRow("no target")
            << "params/0"
            << R"({"pointers": [{"at": 0, "to": ""}]})"
            << bad + "pointers[0]: \"to\" must name a memory entry or a buffer parameter";
        QTest::newRow("offset past memory")
            << "params/0"
            << R"({"pointers": [{"at": 0, "to": "mem0", "offset": 65536}]})"
            << bad + "pointers[0]: offset 65536 is outside mem0's 65536 bytes";
        QTest::newRow("offset past an alias") << "params/0"
                                              << R"({"pointers": [{"at": 0, "to": "q", "offset": 4096}]})"
                                              << bad + "pointers[0]: offset 4096 is outside q's 4096 bytes";
        QTest::newRow("negative offset") << "params/0"
                                         << R"({"pointers": [{"at": 0, "to": "mem0", "offset": -1}]})"
                                         << bad + "pointers[0]: \"offset\" must be a non-negative integer";
        QTest::newRow("pointers not a list")
            << "params/0"
            << R"({"pointers": {"at": 0}})" << bad + "\"pointers\" must be an array";
        QTest::newRow("memory as an alias")
            << "memory/0"
            << R"({"alias": {"of": "q"}})"
            << "memory[0] (mem0): a memory entry owns its allocation: it may be an "
               "alias target, not an alias";
        QTest::newRow("memory without a name") << "memory/0"
                                               << R"({"name": null})"
                                               << "memory[0] (unnamed): needs a \"name\"";
        QTest::newRow("memory of another kind") << "memory/0"
                                                << R"({"kind": "scalar"})"
                                                << "memory[0] (mem0): a memory entry is a buffer";
        QTest::newRow("memory dtype") << "memory/0"
                                      << R"({"dtype": "f8"})"
                                      << "memory[0] (mem0): unknown dtype \"f8\"";
        QTest::newRow("memory count") << "memory/0"
                                      << R"({"count": 0})"
                                      << "memory[0] (mem0): buffer needs a positive integer \"count\"";
        QTest::newRow("memory role") << "memory/0"
                                     << R"({"role": "scratch"})"
                                     << "memory[0] (mem0): unknown role \"scratch\"";
        QTest::newRow("memory input without init")
            << "memory/0"
            << R"({"init": null, "role": "input"})"
            << "memory[0] (mem0): an input/inout buffer needs an \"init\"";
        QTest::newRow("memory recorded size")
            << "memory/0"
            << R"({"init": {"bytes": 4096}})"
            << "memory[0] (mem0): recorded values hold 4096 bytes, the buffer 65536";
        QTest::newRow("name taken")
            << "memory/0"
            << R"({"name": "n"})"
            << "memory[0] (n): the name is taken by params[2] (names are unique across "
               "params and memory)";
        QTest::newRow("bad reference")
            << "memory/0"
            << R"({"reference": {"sha256": "ABC"}})"
            << "memory[0] (mem0): \"reference\" must be {\"sha256\": 64 lower-case hex "
               "digits}";
        QTest::newRow("reference on an alias")
            << "params/1"
            << R"({"reference": {"sha256": "0000000000000000000000000000000000000000000000000000000000000000"}})"
            << "params[1] (q): an alias of mem0 has no \"reference\": its root's covers the memory";
        QTest::newRow("alias past memory")
            << "params/1"
            << R"({"alias": {"offset": 65000}})"
            << "params[1] (q): bad alias: 4096 bytes at offset 65000 of mem0 reach past "
               "its 65536 bytes";
    }
    void refusals()
    {
        QFETCH(QString, entry);
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        json j = driverSpec();
        const QStringList where = entry.split(QLatin1Char('/'));
        j[where[0].toStdString()][where[1].toUInt()].merge_patch(json::parse(patch.toStdString()));
        auto s = parseLaunchSpec(j);
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find(expected.toStdString()) != std::string::npos, s.message().c_str());
        QVERIFY(s.message().find('\n') == std::string::npos);
    }

    void memoryMustBeAList()
    {
        json j = driverSpec();
        j["memory"] = {{"name", "mem0"}};
        auto s = parseLaunchSpec(j);
        QVERIFY(!s.ok());
        QCOMPARE(QString::fromStdString(s.message()),
                 QStringLiteral("launch spec: \"memory\" must be an array"));
    }

    // loadLaunchSpec checks a memory entry's recorded values as a buffer's, and names the entry.
    void loadsRecordedMemory()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("k.values"));
        const auto bytes = memoryBytes();
        const QByteArray raw(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size()));
        writeFile(dir.filePath("k.values/mem0.bin.z"), qCompress(raw).mid(4));
        writeFile(dir.filePath("k.launch.json"),
                  QByteArray::fromStdString(driverSpec(sha256Hex(bytes.data(), bytes.size())).dump()));
        auto s = loadLaunchSpec(dir.filePath("k.launch.json").toStdString());
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        auto values = readRecordedValues(s->memory[0]);
        QVERIFY(values.ok());
        QCOMPARE(values.value(), bytes);

        QByteArray altered = raw;
        altered[100] = char(altered[100] ^ 1);
        writeFile(dir.filePath("k.values/mem0.bin.z"), qCompress(altered).mid(4));
        auto refused = loadLaunchSpec(dir.filePath("k.launch.json").toStdString());
        QVERIFY(!refused.ok());
        QVERIFY2(refused.message().find("mem0: recorded values") != std::string::npos,
                 refused.message().c_str());
        QVERIFY2(refused.message().find("SHA-256 mismatch") != std::string::npos, refused.message().c_str());
    }

    // The bytes each parameter receives, from the allocations' device addresses (slot 3, mem0, at a
    // typical driver address; the others own nothing). Little-endian whatever the host.
    void kernelArguments_data()
    {
        QTest::addColumn<int>("param");
        QTest::addColumn<QString>("expected");
        // params: mem0 at 0..7, q + 64 = mem0 + 4160 at 8..15 (over the recorded 0x40), 7 kept at 16.
        QTest::newRow("struct") << 0
                                << "0010a0e47f7f0000"
                                   "4020a0e47f7f0000"
                                   "0700000000000000";
        QTest::newRow("alias") << 1 << "0020a0e47f7f0000";
        QTest::newRow("scalar bytes") << 2 << "00100000";
    }
    void kernelArguments()
    {
        QFETCH(int, param);
        QFETCH(QString, expected);
        auto s = parseLaunchSpec(driverSpec());
        QVERIFY(s.ok());
        const std::vector<uint64_t> addresses{0, 0, 0, 0x7f7fe4a01000ull};
        QCOMPARE(hexOf(kernelArgBytes(s.value(), size_t(param), addresses)), expected);
    }

    // patchedBytes alone: a struct with no pointers is passed as written; one whose pointer target is a
    // buffer parameter takes that parameter's address.
    void patchedBytesFromAddresses()
    {
        json j = driverSpec();
        j["params"][1] = json::parse(R"({"name": "q", "kind": "buffer", "dtype": "f32", "count": 16,
                                         "init": {"kind": "zeros"}})");
        j["params"][0]["pointers"] = json::parse(R"([{"at": 16, "to": "q", "offset": 8}])");
        auto s = parseLaunchSpec(j);
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        QCOMPARE(s->params[0].pointers[0].root, 1);
        const std::vector<uint64_t> addresses{0, 0x1122334455667700ull, 0, 0x10000};
        QCOMPARE(hexOf(patchedBytes(s->params[0], addresses)), QStringLiteral("0000000000000000"
                                                                              "4000000000000000"
                                                                              "0877665544332211"));
        QCOMPARE(hexOf(kernelArgBytes(s.value(), 1, addresses)), QStringLiteral("0077665544332211"));
        ParamSpec plain = s->params[0];
        plain.pointers.clear();
        QCOMPARE(patchedBytes(plain, addresses), plain.raw);
    }

    void programReferenceLines_data()
    {
        QTest::addColumn<QString>("answer");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no digests") << R"({"status": "ok"})"
                                    << "";
        QTest::newRow("reproduced") << R"({"reference": {"matched": ["mem0", "out"], "differs": []}})"
                                    << "the replay reproduces the program's outputs (mem0, out)";
        QTest::newRow("differs")
            << R"({"reference": {"matched": ["mem0"], "differs": ["mem3"]}})"
            << "the replay differs from the program's for mem3: the kernel may read memory the "
               "capture did not record";
        QTest::newRow("malformed") << R"({"reference": [1, 2]})"
                                   << "";
    }
    void programReferenceLines()
    {
        QFETCH(QString, answer);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(programReferenceLine(json::parse(answer.toStdString()))), expected);
    }

    // A spec without bytes or memory serialises exactly as before: no "memory", no "reference".
    void oldSpecsUnchanged()
    {
        json j = driverSpec();
        j.erase("memory");
        j["params"] = json::parse(R"([{"name": "x", "kind": "buffer", "dtype": "f32", "count": 4,
                                       "init": {"kind": "zeros"}, "role": "inout"}])");
        auto s = parseLaunchSpec(j);
        QVERIFY(s.ok());
        const std::string dumped = toJson(s.value()).dump();
        QVERIFY(dumped.find("memory") == std::string::npos);
        QVERIFY(dumped.find("reference") == std::string::npos);
        QCOMPARE(allocatedParams(s.value()), (std::vector<int>{0}));
    }
};

QTEST_GUILESS_MAIN(TestSpecBytes)
#include "test_spec_bytes.moc"
