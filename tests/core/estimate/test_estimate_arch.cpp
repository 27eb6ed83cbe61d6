// The estimate's per-architecture parameters: chosen through the architecture's model (ArchModel), so
// Blackwell kernels are estimated with their own residency limits and every Blackwell figure is
// labelled a table's, never a measurement; Hopper's parameters are the ones they have always been.
#include "core/estimate/schedule_model.h"

#include "core/analysis/kernel_analysis.h"
#include "core/sass/listing.h"

#include <QtTest>

using namespace sassx;
using namespace sassx::eval;

namespace {

Control ctl(int stall)
{
    Control c;
    c.stall = uint8_t(stall);
    c.yield = 1;
    return c;
}

ModelParams params(int sm)
{
    auto p = ModelParams::load(sm);
    if (!p) qFatal("%s", p.message().c_str());
    return p.value();
}

LaunchShape shape(uint32_t threads, uint64_t blocks)
{
    LaunchShape l;
    l.blocks = blocks;
    l.threadsPerBlock = threads;
    l.regsPerThread = 32;
    return l;
}

} // namespace

class TestEstimateArch : public QObject
{
    Q_OBJECT
private slots:
    void hopperUnchanged()
    {
        const auto p = params(90);
        QCOMPARE(p.arch, std::string("sm_90"));
        QCOMPARE(p.smCount, 132);
        QCOMPARE(p.maxWarpsPerSm, 64);
        QCOMPARE(p.latencyOf("LoadShared", "LDS"), 30);
        QCOMPARE(p.latencyOrigin, FigureOrigin::Measured);
    }

    void blackwellParametersAreTables_data()
    {
        QTest::addColumn<int>("sm");
        QTest::addColumn<QString>("arch");
        QTest::addColumn<int>("smCount");
        QTest::addColumn<int>("warps");
        QTest::addColumn<QString>("label");
        QTest::newRow("sm_100") << 100 << "sm_100" << 148 << 64 << "table: NAK sm100";
        QTest::newRow("sm_120") << 120 << "sm_120" << 170 << 48 << "table: NAK sm120_instr_latencies";
    }
    void blackwellParametersAreTables()
    {
        QFETCH(int, sm);
        QFETCH(QString, arch);
        QFETCH(int, smCount);
        QFETCH(int, warps);
        QFETCH(QString, label);
        const auto p = params(sm);
        QCOMPARE(p.arch, arch.toStdString());
        QCOMPARE(p.smCount, smCount);
        QCOMPARE(p.maxWarpsPerSm, warps);
        QCOMPARE(p.latencyOrigin, FigureOrigin::Table);
        QVERIFY2(p.latencyLabel.starts_with(label.toStdString()), p.latencyLabel.c_str());
        QVERIFY(p.source.find("none measured by sassx") != std::string::npos);
    }

    // Residency follows the architecture: 1024-thread blocks fit twice on an sm_90 or sm_100 SM, once
    // on an sm_120 one (48 warps).
    void residencyPerArchitecture()
    {
        for (auto [sm, blocks] : {std::pair{90, 2}, {100, 2}, {120, 1}}) {
            auto o = computeOccupancy(params(sm), shape(1024, 10000));
            QVERIFY2(o, o ? "" : o.message().c_str());
            QCOMPARE(o->blocksPerSm, blocks);
        }
    }

    // An sm_120 kernel is estimated with sm_120's parameters: the same code, the same figures twice.
    void blackwellKernelEstimates()
    {
        auto a = KernelAnalysis::build(makeListing(
            {{"IADD3 R2, R1, 0x1, RZ", ctl(5)}, {"FFMA R3, R2, R4, R5", ctl(6)}, {"EXIT", ctl(5)}}, 120));
        const auto p = params(120);
        auto e1 = estimateSchedule(*a, Schedule::identity(*a), p, shape(128, 340));
        auto e2 = estimateSchedule(*a, Schedule::identity(*a), p, shape(128, 340));
        QVERIFY2(e1, e1 ? "" : e1.message().c_str());
        QVERIFY(e1->cycles > 0);
        QCOMPARE(e1->cycles, e2->cycles);
        QCOMPARE(e1->occupancy.waves, uint64_t(1));
    }

    // An architecture without an estimate file is refused in one line, naming it.
    void unknownArchitectureRefused()
    {
        auto p = ModelParams::load(75);
        QVERIFY(!p);
        QVERIFY(p.message().find("no estimate model for sm_75") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestEstimateArch)
#include "test_estimate_arch.moc"
