// The launch spec of a kernel captured at the driver, from a classified parameter buffer and the
// hook's snapshots: pointers become aliases of memory entries, structs keep their bytes and name their
// pointers, roles follow what the launch wrote.
#include "core/cubin/cubin.h"
#include "core/eval/launch_spec.h"
#include "core/inject/driver_spec.h"

#include <QTemporaryDir>

#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace sassx;
using namespace sassx::inject;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::optional<AllocationRange> query(uint64_t a)
{
    static const std::vector<AllocationRange> all{{0x1000000, 0x1000}, {0x2000000, 0x100}, {0x3000000, 0x40}};
    for (const AllocationRange& r : all)
        if (a >= r.base && a < r.base + r.size) return r;
    return std::nullopt;
}

} // namespace

class TestDriverSpec : public QObject
{
    Q_OBJECT

private slots:
    void specFromLaunch()
    {
        // (const half* x, struct {half* out; int64 n; float* lse;} p, int n)
        std::vector<uint8_t> buf(36, 0);
        const uint64_t x = 0x1000080, out = 0x2000000, n = 256, lse = 0x3000000;
        std::memcpy(buf.data(), &x, 8);
        std::memcpy(buf.data() + 8, &out, 8);
        std::memcpy(buf.data() + 16, &n, 8);
        std::memcpy(buf.data() + 24, &lse, 8);
        buf[32] = 0x10;
        auto c = classifyParams(buf, {{0, 0, 8}, {1, 8, 24}, {2, 32, 4}}, query);
        QVERIFY(c);
        QCOMPARE(c->allocations.size(), size_t(3));
        const std::string a(64, 'a'), b(64, 'b');
        const std::vector<AllocationSnapshot> snaps{
            {"k.values/mem0.bin.z", a, a, false}, // read only
            {"", a, b, true},                     // zeros before, written: an output
            {"k.values/mem2.bin.z", a, b, false}, // held data, written: inout
        };
        const json s = driverLaunchSpec({"flash_fwd", "_Z9flash_fwd", "flash_fwd.cubin", b, "library",
                                         "/site-packages/torch/lib/libtorch_cuda.so"},
                                        {{4, 2, 1}, {128, 1, 1}, 4096, {0, 0, 0}}, *c, snaps);
        QCOMPARE(s["kernel"], json("_Z9flash_fwd"));
        QCOMPARE(s["grid"], json({4, 2, 1}));
        QCOMPARE(s["dynamic_shared"], json(4096));
        QVERIFY(!s.contains("cluster"));
        const json& p = s["params"];
        QCOMPARE(p.size(), size_t(3));
        QCOMPARE(p[0]["kind"], json("buffer"));
        QCOMPARE(p[0]["alias"], json({{"of", "mem0"}, {"offset", 0x80}}));
        QCOMPARE(p[0]["count"], json(0x1000 - 0x80));
        QCOMPARE(p[1]["kind"], json("bytes"));
        QCOMPARE(p[1]["size"], json(24));
        QCOMPARE(p[1]["hex"].get<std::string>().size(), size_t(48));
        QCOMPARE(p[1]["pointers"], json::parse(R"([{"at": 0, "to": "mem1", "offset": 0},
                                                    {"at": 16, "to": "mem2", "offset": 0}])"));
        QCOMPARE(p[2]["hex"], json("10000000"));
        const json& m = s["memory"];
        QCOMPARE(m[0]["role"], json("input"));
        QCOMPARE(m[0]["init"]["kind"], json("recorded"));
        QCOMPARE(m[0]["init"]["bytes"], json(0x1000));
        QCOMPARE(m[1]["role"], json("output"));
        QCOMPARE(m[1]["init"], json({{"kind", "zeros"}}));
        QCOMPARE(m[1]["reference"]["sha256"], json(b));
        QCOMPARE(m[2]["role"], json("inout"));
        QCOMPARE(s["driver"]["origin"], json("library"));
    }

    // What the hook writes for a real kernel loads as a launch spec: its layout checked against the
    // cubin's, the pointers resolved to memory entries.
    void loadsAsALaunchSpec()
    {
        const fs::path original =
            fs::path(SASSX_SOURCE_DIR) / "samples/blackwell/bw_elementwise.sm_100a.cubin";
        auto cubin = Cubin::load(original.string());
        QVERIFY(cubin && !cubin->kernels().empty());
        const Kernel& k = cubin->kernels().front();
        QVERIFY(!k.params.empty());
        std::vector<uint8_t> buf;
        int pointers = 0;
        for (const KernelParam& p : k.params) {
            buf.resize(std::max<size_t>(buf.size(), p.offset + p.size), 0);
            if (p.size == 8) {
                const uint64_t address = 0x1000000 + 0x100 * pointers++;
                std::memcpy(buf.data() + p.offset, &address, 8);
            }
        }
        auto c = classifyParams(buf, k.params, query);
        QVERIFY(c);
        std::vector<AllocationSnapshot> snaps(c->allocations.size(),
                                              {"", std::string(64, '0'), std::string(64, '1'), true});
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        fs::copy_file(original, dir / "k.cubin");
        const json spec = driverLaunchSpec({"k", k.name, "k.cubin", std::string(64, 'e'), "jit", ""},
                                           {{1, 1, 1}, {128, 1, 1}, 0, {0, 0, 0}}, *c, snaps);
        std::ofstream(dir / "k.launch.json") << spec.dump(1);
        auto loaded = eval::loadLaunchSpec((dir / "k.launch.json").string());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        QCOMPARE(loaded->params.size(), k.params.size());
        QCOMPARE(int(c->allocations.size()), pointers > 0 ? 1 : 0);
    }

    void clusterLaunch()
    {
        auto c = classifyParams(std::span<const uint8_t>{}, {}, query);
        QVERIFY(c);
        const json s = driverLaunchSpec({"k", "k", "k.cubin", "", "jit", ""},
                                        {{2, 1, 1}, {64, 1, 1}, 0, {2, 1, 1}}, *c, {});
        QCOMPARE(s["cluster"], json({2, 1, 1}));
        QVERIFY(s["params"].empty() && s["memory"].empty());
    }
};

QTEST_GUILESS_MAIN(TestDriverSpec)
#include "test_driver_spec.moc"
