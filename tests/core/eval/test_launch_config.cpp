// How the worker launches a spec's kernel (core/eval/launch_config.h), on the samples' real specs: an
// ordinary spec through cuLaunchKernel exactly as before, a spec with a cluster through cuLaunchKernelEx
// with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, the non-portable size attribute above 8 blocks. The
// driver is a table of recording functions, so what reaches each entry point is checked without a GPU.
#include "core/eval/launch_config.h"

#include <QtTest>

#include <fstream>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

using Dims = std::array<uint32_t, 3>;

LaunchSpec sample(const QString& stem, const QString& patch)
{
    std::ifstream in(std::string(SASSX_SOURCE_DIR) + "/samples/cuda/" + stem.toStdString() + ".launch.json");
    json j = json::parse(in, nullptr, false);
    const json changes = json::parse(patch.toStdString());
    for (auto& [k, v] : changes.items())
        j[k] = v;
    auto s = parseLaunchSpec(j);
    if (!s) qFatal("%s", s.message().c_str());
    return *s;
}

// What the fake driver's entry points were called with.
struct Calls
{
    int plain = 0;
    int extended = 0;
    Dims grid{}, block{};
    unsigned shared = 0;
    cu::Stream stream = nullptr;
    void** args = nullptr;
    std::vector<cu::LaunchAttribute> attrs;
};
Calls g_calls;

cu::Driver fakeDriver(bool withEx)
{
    cu::Driver d;
    d.launchKernel = [](cu::Function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, cu::Stream stream, void** args,
                        void** extra) -> cu::Result {
        ++g_calls.plain;
        g_calls.grid = {gx, gy, gz};
        g_calls.block = {bx, by, bz};
        g_calls.shared = shared;
        g_calls.stream = stream;
        g_calls.args = args;
        return extra ? 1 : cu::kSuccess;
    };
    if (withEx)
        d.launchKernelEx = [](const cu::LaunchConfig* c, cu::Function, void** args,
                              void** extra) -> cu::Result {
            ++g_calls.extended;
            g_calls.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
            g_calls.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
            g_calls.shared = c->sharedMemBytes;
            g_calls.stream = c->hStream;
            g_calls.args = args;
            g_calls.attrs.assign(c->attrs, c->attrs + c->numAttrs);
            return extra ? 1 : cu::kSuccess;
        };
    return d;
}

} // namespace

Q_DECLARE_METATYPE(Dims)

class TestLaunchConfig : public QObject
{
    Q_OBJECT
private slots:
    void plans_data()
    {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<QString>("patch");
        QTest::addColumn<bool>("extended");
        QTest::addColumn<Dims>("cluster");
        QTest::addColumn<bool>("nonPortable");
        QTest::addColumn<QString>("entryPoint");
        QTest::newRow("sgemm, no cluster") << "sgemm_leakyrelu"
                                           << "{}" << false << Dims{} << false << "cuLaunchKernel";
        QTest::newRow("flash, no cluster") << "flash_attn_fwd"
                                           << "{}" << false << Dims{} << false << "cuLaunchKernel";
        QTest::newRow("rmsnorm, shared memory")
            << "rmsnorm"
            << R"({"dynamic_shared": 65536})" << false << Dims{} << false << "cuLaunchKernel";
        QTest::newRow("sgemm, cluster 2") << "sgemm_leakyrelu"
                                          << R"({"cluster": [2, 1, 1]})" << true << Dims{2, 1, 1} << false
                                          << "cuLaunchKernelEx (cluster [2, 1, 1])";
        QTest::newRow("flash, cluster 1") << "flash_attn_fwd"
                                          << R"({"cluster": [1, 1, 1]})" << true << Dims{1, 1, 1} << false
                                          << "cuLaunchKernelEx (cluster [1, 1, 1])";
        QTest::newRow("flash, 8 blocks: portable") << "flash_attn_fwd"
                                                   << R"({"cluster": [2, 4]})" << true << Dims{2, 4, 1}
                                                   << false << "cuLaunchKernelEx (cluster [2, 4, 1])";
        QTest::newRow("sgemm, 16 blocks: non-portable")
            << "sgemm_leakyrelu"
            << R"({"cluster": [4, 4, 1], "dynamic_shared": 100000})" << true << Dims{4, 4, 1} << true
            << "cuLaunchKernelEx (cluster [4, 4, 1])";
    }
    void plans()
    {
        QFETCH(QString, stem);
        QFETCH(QString, patch);
        QFETCH(bool, extended);
        QFETCH(Dims, cluster);
        QFETCH(bool, nonPortable);
        QFETCH(QString, entryPoint);
        const LaunchSpec spec = sample(stem, patch);
        LaunchPlan plan = launchPlan(spec);
        QCOMPARE(plan.grid, spec.grid);
        QCOMPARE(plan.block, spec.block);
        QCOMPARE(plan.dynamicShared, spec.dynamicShared);
        QCOMPARE(plan.extended(), extended);
        QCOMPARE(plan.nonPortableClusterSize, nonPortable);
        QCOMPARE(QString::fromStdString(launchEntryPoint(plan)), entryPoint);

        auto* stream = reinterpret_cast<cu::Stream>(uintptr_t(0x5000));
        const cu::LaunchConfig c = plan.config(stream);
        QCOMPARE((Dims{c.gridDimX, c.gridDimY, c.gridDimZ}), spec.grid);
        QCOMPARE((Dims{c.blockDimX, c.blockDimY, c.blockDimZ}), spec.block);
        QCOMPARE(c.sharedMemBytes, spec.dynamicShared);
        QCOMPARE(c.hStream, stream);
        QCOMPARE(c.numAttrs, extended ? 1u : 0u);
        QCOMPARE(c.attrs, extended ? plan.attributes.data() : nullptr);
        if (extended) {
            QCOMPARE(c.attrs[0].id, cu::kLaunchAttrClusterDimension);
            const auto& d = c.attrs[0].value.clusterDim;
            QCOMPARE((Dims{d.x, d.y, d.z}), cluster);
        }

        // The one launch: an ordinary spec reaches cuLaunchKernel only, a cluster spec cuLaunchKernelEx
        // only, each with the spec's geometry, the stream and the arguments.
        const cu::Driver d = fakeDriver(true);
        g_calls = {};
        int value = 7;
        void* args[] = {&value};
        QCOMPARE(launchWithPlan(d, plan, nullptr, stream, args), cu::kSuccess);
        QCOMPARE(g_calls.plain, extended ? 0 : 1);
        QCOMPARE(g_calls.extended, extended ? 1 : 0);
        QCOMPARE(g_calls.grid, spec.grid);
        QCOMPARE(g_calls.block, spec.block);
        QCOMPARE(g_calls.shared, spec.dynamicShared);
        QCOMPARE(g_calls.stream, stream);
        QCOMPARE(g_calls.args, static_cast<void**>(args));
        if (extended) {
            QCOMPARE(g_calls.attrs.size(), size_t(1));
            QCOMPARE(g_calls.attrs[0].id, cu::kLaunchAttrClusterDimension);
            const auto& dim = g_calls.attrs[0].value.clusterDim;
            QCOMPARE((Dims{dim.x, dim.y, dim.z}), cluster);
        }
    }

    // A driver older than cuLaunchKernelEx launches ordinary specs as before and refuses a cluster
    // rather than launching the kernel without it.
    void driverWithoutLaunchKernelEx()
    {
        const cu::Driver d = fakeDriver(false);
        LaunchPlan plain = launchPlan(sample("sgemm_leakyrelu", "{}"));
        LaunchPlan clustered = launchPlan(sample("sgemm_leakyrelu", R"({"cluster": [2, 2]})"));
        g_calls = {};
        QCOMPARE(launchWithPlan(d, plain, nullptr, nullptr, nullptr), cu::kSuccess);
        QCOMPARE(launchWithPlan(d, clustered, nullptr, nullptr, nullptr), cu::kErrorNotSupported);
        QCOMPARE(g_calls.plain, 1);
        QCOMPARE(g_calls.extended, 0);
    }

    // The worker keeps its plan beside other state and copies it with the spec: a copied plan's config
    // points at its own attributes, never at the original's.
    void copiedPlanPointsAtItsOwnAttributes()
    {
        LaunchPlan a = launchPlan(sample("sgemm_leakyrelu", R"({"cluster": [2, 1, 1]})"));
        LaunchPlan b = a;
        a = launchPlan(sample("sgemm_leakyrelu", "{}"));
        const cu::LaunchConfig c = b.config(nullptr);
        QCOMPARE(c.attrs, b.attributes.data());
        QCOMPARE(c.attrs[0].value.clusterDim.x, 2u);
        QCOMPARE(a.config(nullptr).attrs, static_cast<cu::LaunchAttribute*>(nullptr));
    }
};

QTEST_GUILESS_MAIN(TestLaunchConfig)
#include "test_launch_config.moc"
