// The estimate backend on hand-made kernels (no GPU, no nvdisasm): deterministic figures, every
// figure labelled "estimate", stall counts and load placement move the estimate the right way, and
// bad inputs come back as errors.
#include "core/analysis/kernel_analysis.h"
#include "core/estimate/estimate_evaluator.h"
#include "core/estimate/schedule_model.h"
#include "core/sass/listing.h"

#include <QtTest>

using namespace sassx;
using namespace sassx::eval;

namespace {

Control ctl(int stall, int wbar = 7, int rbar = 7, int wait = 0)
{
    Control c;
    c.stall = uint8_t(stall);
    c.wbar = uint8_t(wbar);
    c.rbar = uint8_t(rbar);
    c.wait = uint8_t(wait);
    c.yield = 1;
    return c;
}

// A loop whose body loads from shared (or global) memory first and consumes the value last, with six
// independent FFMAs in between: the schedule ptxas would emit ("hoisted").
std::shared_ptr<const KernelAnalysis> loopKernel(const std::string& load)
{
    return KernelAnalysis::build(makeListing({{"MOV R2, RZ", ctl(1)},
                                              {load + " R4, [R8]", ctl(1, 0)},
                                              {"FFMA R10, R10, R11, R12", ctl(1)},
                                              {"FFMA R13, R13, R11, R12", ctl(1)},
                                              {"FFMA R14, R14, R11, R12", ctl(1)},
                                              {"FFMA R15, R15, R11, R12", ctl(1)},
                                              {"FFMA R16, R16, R11, R12", ctl(1)},
                                              {"FFMA R17, R17, R11, R12", ctl(1)},
                                              {"FFMA R20, R4, R4, R20", ctl(1, 7, 7, 1)},
                                              {"IADD3 R2, R2, 0x1, RZ", ctl(6)},
                                              {"ISETP.GE.AND P0, PT, R2, 0x10, PT", ctl(13)},
                                              {"@!P0 BRA 0x10", ctl(5)},
                                              {"EXIT", ctl(5)}},
                                             90),
                                 LatencyTable{});
}

// The same body with the load delayed to just before its consumer.
Schedule delayedLoad(const KernelAnalysis& a)
{
    Schedule s = Schedule::identity(a);
    s.order = {InstrId(0), InstrId(2), InstrId(3), InstrId(4),  InstrId(5),  InstrId(6), InstrId(7),
               InstrId(1), InstrId(8), InstrId(9), InstrId(10), InstrId(11), InstrId(12)};
    return s;
}

ModelParams params()
{
    auto p = ModelParams::load(90);
    if (!p) qFatal("%s", p.message().c_str());
    return p.value();
}

LaunchShape shape(uint32_t threads, uint64_t blocks = 1)
{
    LaunchShape l;
    l.blocks = blocks;
    l.threadsPerBlock = threads;
    l.regsPerThread = 32;
    return l;
}

double cycles(const KernelAnalysis& a, const Schedule& s, const LaunchShape& l)
{
    auto e = estimateSchedule(a, s, params(), l);
    if (!e) qFatal("%s", e.message().c_str());
    return e->cycles;
}

} // namespace

class TestEstimate : public QObject
{
    Q_OBJECT
private slots:
    void shapes_data()
    {
        QTest::addColumn<QString>("load");
        QTest::addColumn<uint>("threads");
        QTest::addColumn<qulonglong>("blocks");
        QTest::newRow("LDS, 1 warp") << "LDS" << 32u << 1ull;
        QTest::newRow("LDS, 8 warps") << "LDS" << 256u << 1ull;
        QTest::newRow("LDS, full SM, 3 waves") << "LDS" << 1024u << 396ull;
        QTest::newRow("LDG, 1 warp") << "LDG.E" << 32u << 1ull;
        QTest::newRow("LDG, 16 warps") << "LDG.E" << 512u << 132ull;
    }

    void deterministic_data() { shapes_data(); }
    void deterministic()
    {
        QFETCH(QString, load);
        QFETCH(uint, threads);
        QFETCH(qulonglong, blocks);
        auto a = loopKernel(load.toStdString());
        const Schedule s = Schedule::identity(*a);
        auto e1 = estimateSchedule(*a, s, params(), shape(threads, blocks));
        auto e2 = estimateSchedule(*a, s, params(), shape(threads, blocks));
        QVERIFY(e1 && e2);
        QVERIFY(e1->cycles > 0);
        QCOMPARE(e1->cycles, e2->cycles); // bit-identical, not merely close
        QCOMPARE(e1->microseconds, e2->microseconds);
        QCOMPARE(e1->segments.size(), e2->segments.size());
        QCOMPARE(cycles(*a, delayedLoad(*a), shape(threads, blocks)),
                 cycles(*a, delayedLoad(*a), shape(threads, blocks)));
    }

    void moreStallIsSlower_data() { shapes_data(); }
    void moreStallIsSlower()
    {
        QFETCH(QString, load);
        QFETCH(uint, threads);
        QFETCH(qulonglong, blocks);
        auto a = loopKernel(load.toStdString());
        const Schedule s = Schedule::identity(*a);
        Schedule slow = s;
        for (Control& c : slow.control)
            c.stall = uint8_t(std::min(15, c.stall + 2));
        QVERIFY2(cycles(*a, slow, shape(threads, blocks)) > cycles(*a, s, shape(threads, blocks)),
                 "raising every stall count must make the estimate slower");
    }

    void hoistedLoadNotSlower_data() { shapes_data(); }
    void hoistedLoadNotSlower()
    {
        QFETCH(QString, load);
        QFETCH(uint, threads);
        QFETCH(qulonglong, blocks);
        auto a = loopKernel(load.toStdString());
        const double hoisted = cycles(*a, Schedule::identity(*a), shape(threads, blocks));
        const double delayed = cycles(*a, delayedLoad(*a), shape(threads, blocks));
        QVERIFY2(hoisted <= delayed,
                 qPrintable(QString("hoisted %1 > delayed %2").arg(hoisted).arg(delayed)));
        if (threads == 32) // one warp hides nothing: the delay shows in full
            QVERIFY(hoisted < delayed);
    }

    void occupancy()
    {
        const ModelParams p = params();
        LaunchShape l = shape(256, 10000);
        l.regsPerThread = 128; // 128 × 32 × 8 warps = 32K registers: 2 blocks per SM
        auto o = computeOccupancy(p, l);
        QVERIFY(o);
        QCOMPARE(o->blocksPerSm, 2);
        QCOMPARE(o->limiter, std::string("registers"));
        QCOMPARE(o->warpsPerSmsp, 4);
        QCOMPARE(o->waves, uint64_t((10000 + 263) / 264));
        l.regsPerThread = 32;
        l.sharedPerBlock = 100 * 1024; // 2 blocks of 101 KiB fit in 228 KiB
        o = computeOccupancy(p, l);
        QVERIFY(o);
        QCOMPARE(o->blocksPerSm, 2);
        QCOMPARE(o->limiter, std::string("shared memory"));
    }

    void figuresAreEstimates()
    {
        EstimateEvaluator ev;
        QVERIFY(ev.sourceKind() == FigureKind::Estimate);
        const EvalResult none =
            ev.evaluate(Candidate::fromSchedule(std::make_shared<const Schedule>(), nullptr, {}));
        QVERIFY(!none.ok()); // no baseline yet
        QVERIFY(!none.failureKind.empty());
        // Through the evaluator on a cubin needs nvdisasm; the labels are checked on the result type.
        auto a = loopKernel("LDS");
        auto e = estimateSchedule(*a, Schedule::identity(*a), params(), shape(32));
        QVERIFY(e);
        QVERIFY(std::string(kUnverified).starts_with("unverified"));
    }

    void badInputs()
    {
        auto a = loopKernel("LDS");
        Schedule s = Schedule::identity(*a);
        s.order.raw().pop_back();
        auto e = estimateSchedule(*a, s, params(), shape(32));
        QVERIFY(!e);
        QVERIFY(e.message().find("instructions") != std::string::npos);
        s = Schedule::identity(*a);
        s.order[Position(3)] = InstrId(999);
        QVERIFY(!estimateSchedule(*a, s, params(), shape(32)));
        QVERIFY(!estimateSchedule(*a, Schedule::identity(*a), params(), shape(0))); // no threads
        LaunchShape huge = shape(1024);
        huge.regsPerThread = 255; // 1024 threads × 255 registers cannot be resident
        auto h = estimateSchedule(*a, Schedule::identity(*a), params(), huge);
        QVERIFY(!h);
        QVERIFY(h.message().find("registers") != std::string::npos);
        QVERIFY(!ModelParams::fromJson("not json"));
        QVERIFY(!ModelParams::fromJson(R"({"clock_mhz": 0})"));
        QVERIFY(!ModelParams::fromJson(R"({"latency": {"LoadShared": "thirty"}, "sm_count": -1})"));

        EstimateEvaluator ev;
        LaunchSpec spec;
        spec.kernel = "k";
        const std::vector<uint8_t> garbage(64, 0xAB);
        Status st = ev.setBaseline(spec, garbage);
        QVERIFY(!st);
        QVERIFY(st.message().find("parse") != std::string::npos);
        QVERIFY(!ev.evaluate(Candidate::fromBytes(garbage)).ok());
        QVERIFY(!ev.metrics({}));
    }
};

QTEST_GUILESS_MAIN(TestEstimate)
#include "test_estimate.moc"
