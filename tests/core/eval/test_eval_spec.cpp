// Launch spec parsing, validation against KPARAM_INFO, and the JSON round trip.
#include "core/eval/launch_spec.h"

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
};

QTEST_GUILESS_MAIN(TestEvalSpec)
#include "test_eval_spec.moc"
