// The pure pieces of the evaluator: input generation, output comparison, timing statistics and the
// protocol's encoding. No GPU, no processes.
#include "core/cubin/cubin.h"
#include "core/eval/base64.h"
#include "core/eval/compare.h"
#include "core/eval/eval_result.h"
#include "core/eval/input_gen.h"
#include "core/eval/metrics_backends.h"
#include "core/eval/ncu_metrics.h"
#include "core/eval/protocol.h"
#include "core/eval/subprocess.h"
#include "core/eval/timing_stats.h"
#include "core/eval/utility_kernels.h"

#include <QtTest>

#include <cmath>
#include <cstring>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {
ParamSpec buffer(DType t, InitSpec init, uint64_t count = 1000)
{
    ParamSpec p;
    p.name = "b";
    p.kind = ParamKind::Buffer;
    p.dtype = t;
    p.count = count;
    p.init = init;
    return p;
}

std::vector<uint8_t> floats(std::initializer_list<float> v)
{
    std::vector<uint8_t> out(v.size() * 4);
    std::memcpy(out.data(), std::data(v), out.size());
    return out;
}
} // namespace

class TestEvalData : public QObject
{
    Q_OBJECT
private slots:
    // --- inputs -------------------------------------------------------------------------------
    void inputsAreReproducible()
    {
        const ParamSpec p = buffer(DType::F32, {InitKind::Normal, 0, 0, 1, 0.5, 2});
        QCOMPARE(generateBuffer(p, 42, 0, 1), generateBuffer(p, 42, 0, 1));
        QVERIFY(generateBuffer(p, 42, 0, 1) != generateBuffer(p, 43, 0, 1));
        QVERIFY(generateBuffer(p, 42, 0, 1) != generateBuffer(p, 42, 1, 1));
        QVERIFY(generateBuffer(p, 42, 0, 1) != generateBuffer(p, 42, 0, 2));
        // Pinned bytes: a change of generator would silently change every reference.
        const auto b = generateBuffer(buffer(DType::U32, {InitKind::RandInt, 0, 0, 1000}, 4), 7, 0, 0);
        std::vector<uint32_t> v(4);
        std::memcpy(v.data(), b.data(), 16);
        const uint64_t s = bufferSeed(7, 0, 0);
        SplitMix64 rng(s);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(v[size_t(i)], uint32_t(rng.next() % 1000));
    }

    // A buffer larger than a chunk is generated on several threads: its bytes are those of one pass
    // (generateRange over the whole), and those the single-pass generator gave before chunking (pinned:
    // FNV-1a of 9,000,001 elements, seed 42, set 1, parameter 2; an odd count ends in half a normal pair).
    void largeBuffersMatchOnePass_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("a");
        QTest::addColumn<double>("b");
        QTest::addColumn<quint64>("fnv");
        QTest::newRow("bf16 normal") << int(DType::BF16) << int(InitKind::Normal) << 0.5 << 2.0
                                     << quint64(0xbe75c0bd7edc660full);
        QTest::newRow("f32 uniform") << int(DType::F32) << int(InitKind::Uniform) << -2.0 << 3.0
                                     << quint64(0x3e78d6014c5ac22aull);
        QTest::newRow("i8 randint") << int(DType::I8) << int(InitKind::RandInt) << -3.0 << 3.0
                                    << quint64(0x1488ff3148dea67bull);
    }

    void largeBuffersMatchOnePass()
    {
        QFETCH(int, dtype);
        QFETCH(int, kind);
        QFETCH(double, a);
        QFETCH(double, b);
        QFETCH(quint64, fnv);
        InitSpec init;
        init.kind = InitKind(kind);
        if (init.kind == InitKind::Normal) {
            init.mean = a;
            init.std = b;
        } else {
            init.low = a;
            init.high = b;
        }
        const ParamSpec p = buffer(DType(dtype), init, 9000001);
        const std::vector<uint8_t> bytes = generateBuffer(p, 42, 1, 2);
        std::vector<uint8_t> onePass(bytes.size());
        generateRange(p, 42, 1, 2, 0, p.count, onePass.data());
        QVERIFY(bytes == onePass);
        uint64_t h = 1469598103934665603ull;
        for (uint8_t c : bytes)
            h = (h ^ c) * 1099511628211ull;
        QCOMPARE(quint64(h), fnv);
    }

    void inputDistributions()
    {
        const auto u = generateBuffer(buffer(DType::F32, {InitKind::Uniform, 0, -2, 3}, 10000), 1, 0, 0);
        double lo = 1e9, hi = -1e9, sum = 0;
        for (size_t i = 0; i < 10000; ++i) {
            const double v = loadValue(DType::F32, u.data() + 4 * i);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            sum += v;
        }
        QVERIFY(lo >= -2 && hi < 3);
        QVERIFY(std::fabs(sum / 10000 - 0.5) < 0.1);
        const auto n =
            generateBuffer(buffer(DType::F64, {InitKind::Normal, 0, 0, 1, 1.0, 2.0}, 20000), 1, 0, 0);
        double m = 0, m2 = 0;
        for (size_t i = 0; i < 20000; ++i) {
            const double v = loadValue(DType::F64, n.data() + 8 * i);
            m += v;
            m2 += v * v;
        }
        m /= 20000;
        QVERIFY(std::fabs(m - 1.0) < 0.05);
        QVERIFY(std::fabs(std::sqrt(m2 / 20000 - m * m) - 2.0) < 0.05);
        const auto r = generateBuffer(buffer(DType::I8, {InitKind::RandInt, 0, -3, 3}, 5000), 1, 0, 0);
        for (uint8_t byte : r)
            QVERIFY(int8_t(byte) >= -3 && int8_t(byte) < 3);
        const auto iota = generateBuffer(buffer(DType::I32, {InitKind::Iota}, 10), 1, 0, 0);
        QCOMPARE(loadValue(DType::I32, iota.data() + 36), 9.0);
        const auto c = generateBuffer(buffer(DType::U16, {InitKind::Constant, 70000.0}, 3), 1, 0, 0);
        QCOMPARE(loadValue(DType::U16, c.data()), 65535.0); // saturates
    }

    void halfBitPatterns()
    {
        QCOMPARE(floatToHalf(1.0f), uint16_t(0x3c00));
        QCOMPARE(floatToHalf(-2.0f), uint16_t(0xc000));
        QCOMPARE(floatToHalf(65504.0f), uint16_t(0x7bff));
        QCOMPARE(floatToHalf(65520.0f), uint16_t(0x7c00));               // rounds to inf
        QCOMPARE(floatToHalf(5.960464477539063e-08f), uint16_t(0x0001)); // smallest subnormal
        QCOMPARE(floatToHalf(1.0f + 1.0f / 2048), uint16_t(0x3c00));     // tie to even
        QCOMPARE(floatToHalf(1.0f + 3.0f / 2048), uint16_t(0x3c02));
        QVERIFY((floatToHalf(NAN) & 0x7c00) == 0x7c00 && (floatToHalf(NAN) & 0x3ff));
        QCOMPARE(halfToFloat(0x3555), 0.333251953125f);
        QCOMPARE(floatToBf16(1.0f), uint16_t(0x3f80));
        QCOMPARE(floatToBf16(-3.0f), uint16_t(0xc040));
        QCOMPARE(bf16ToFloat(0x4049), 3.140625f);
        QVERIFY(std::isnan(bf16ToFloat(floatToBf16(NAN))));
        for (uint32_t h = 0; h < 0x7c00; ++h)
            QCOMPARE(floatToHalf(halfToFloat(uint16_t(h))), uint16_t(h));
    }

    // --- comparison ---------------------------------------------------------------------------
    void bitwiseAndTolerance()
    {
        const Tolerance exact;
        QVERIFY(compareBuffers(DType::F32, floats({1, 2, 3}), floats({1, 2, 3}), exact).pass);
        auto r = compareBuffers(DType::F32, floats({1, 2, 3}), floats({1, 2.0000002f, 3}), exact);
        QVERIFY(!r.pass);
        QCOMPARE(r.mismatches, uint64_t(1));
        QCOMPARE(r.firstMismatch, uint64_t(1));
        QVERIFY(r.describe("C").find("C: 1 element(s) differ; first at [1]") == 0);
        // -0.0 and +0.0 differ bitwise: a schedule change must not change signs of zeros.
        QVERIFY(!compareBuffers(DType::F32, floats({0.0f}), floats({-0.0f}), exact).pass);
        const Tolerance tol{1e-3, 1e-2};
        QVERIFY(compareBuffers(DType::F32, floats({1, 100}), floats({1.0009f, 100.9f}), tol).pass);
        QVERIFY(!compareBuffers(DType::F32, floats({1, 100}), floats({1.0009f, 101.5f}), tol).pass);
        QVERIFY(!compareBuffers(DType::F32, floats({INFINITY}), floats({1e30f}), tol).pass);
        QVERIFY(compareBuffers(DType::F32, floats({-INFINITY}), floats({-INFINITY}), tol).pass);
    }

    void nanNeverPasses()
    {
        const auto nan = floats({NAN});
        QVERIFY(!compareBuffers(DType::F32, nan, nan, Tolerance{}).pass);         // identical NaN bits
        QVERIFY(!compareBuffers(DType::F32, nan, nan, Tolerance{1e9, 1e9}).pass); // any tolerance
        QVERIFY(!compareBuffers(DType::F32, floats({1}), nan, Tolerance{1e9, 1e9}).pass);
        QCOMPARE(compareBuffers(DType::F32, floats({1, 2}), floats({NAN, NAN}), Tolerance{}).nans,
                 uint64_t(2));
        const std::vector<uint8_t> hnan{0x00, 0x7e};
        QVERIFY(!compareBuffers(DType::F16, hnan, hnan, Tolerance{}).pass);
        QCOMPARE(countNaN(DType::BF16, std::vector<uint8_t>{0xc1, 0x7f, 0x80, 0x3f}), uint64_t(1));
    }

    void poisonCatchesUnwrittenElements()
    {
        // An output the candidate never writes keeps the poison: NaN for floats in set 0, and a
        // different byte in each later set, so integers cannot match the reference every time.
        std::vector<uint8_t> poisoned(8, poisonByte(0));
        QVERIFY(!compareBuffers(DType::F32, floats({1, 2}), poisoned, Tolerance{1, 1}).pass);
        QCOMPARE(countNaN(DType::F32, poisoned), uint64_t(2));
        QVERIFY(poisonByte(0) != poisonByte(1) && poisonByte(1) != poisonByte(2));
        std::vector<uint8_t> ref(8, 0xA5); // the reference happens to equal set 1's poison ...
        std::vector<uint8_t> unwritten0(8, poisonByte(0));
        QVERIFY(!compareBuffers(DType::I32, ref, unwritten0, Tolerance{}).pass); // ... set 0 still catches it
    }

    // --- statistics ---------------------------------------------------------------------------
    void bootstrapOnSyntheticRounds()
    {
        SplitMix64 rng(3);
        std::vector<double> a, b, c;
        for (int i = 0; i < 60; ++i) {
            const double drift = 100.0 * (1.0 + 0.05 * i / 60.0); // clock ramp: both see it
            const double noise = 1.0 + 0.01 * (rng.uniform() - 0.5);
            a.push_back(drift * noise);
            b.push_back(drift * 0.97 * (1.0 + 0.01 * (rng.uniform() - 0.5)));
            c.push_back(drift * (1.0 + 0.01 * (rng.uniform() - 0.5)));
        }
        const RatioInterval faster = ratioInterval(a, b);
        QVERIFY(std::fabs(faster.median - 0.97) < 0.005);
        QVERIFY(faster.low <= faster.median && faster.median <= faster.high);
        QVERIFY(faster.high < 0.98);
        QCOMPARE(faster.rounds, 60);
        const RatioInterval same = ratioInterval(a, c);
        QVERIFY(same.low < 1.0 && same.high > 1.0);
        const double floor = noiseFloor(same);
        QVERIFY(floor > 0 && floor < 0.01);
        QCOMPARE(decide(faster, floor), Verdict::Faster);
        QCOMPARE(decide(same, floor), Verdict::Same);
        QCOMPARE(decide(ratioInterval(b, a), floor), Verdict::Slower);
        // Deterministic: the same rounds give the same interval.
        QCOMPARE(ratioInterval(a, b).low, faster.low);
        // A gain inside the noise floor is "same" even with a tight interval.
        RatioInterval tiny{0.998, 0.997, 0.999, 60};
        QCOMPARE(decide(tiny, 0.004), Verdict::Same);
        QCOMPARE(decide(tiny, 0.001), Verdict::Faster);
    }

    // Rounds on one instance pair share its placement's offset: a bootstrap over 100 rounds of one pair
    // is far narrower than the spread between pairs, the interval over instances is not.
    void intervalOverInstancesCoversThePlacementSpread()
    {
        SplitMix64 rng(11);
        const double offsets[] = {0.996, 1.003, 0.999, 1.004, 0.997}; // per-instance placement effects
        std::vector<RatioInterval> perInstance;
        std::vector<double> a, b;
        for (double offset : offsets) {
            std::vector<double> ia, ib;
            for (int r = 0; r < 20; ++r) {
                ia.push_back(100.0 * (1.0 + 0.002 * (rng.uniform() - 0.5)));
                ib.push_back(98.0 * offset * (1.0 + 0.002 * (rng.uniform() - 0.5)));
            }
            perInstance.push_back(ratioInterval(ia, ib));
            a.insert(a.end(), ia.begin(), ia.end());
            b.insert(b.end(), ib.begin(), ib.end());
        }
        const RatioInterval pooled = ratioInterval(a, b);
        const RatioInterval over = instancesInterval(perInstance, pooled);
        QCOMPARE(over.instances, 5);
        QCOMPARE(over.rounds, 100);
        QVERIFY(over.low <= pooled.low && over.high >= pooled.high);
        QVERIFY(over.high - over.low > 2.0 * (pooled.high - pooled.low));
        // Every single instance's median lies inside: a re-run on any of these placements is covered.
        for (const auto& r : perInstance)
            QVERIFY2(r.median > over.low && r.median < over.high, qPrintable(QString::number(r.median)));
        QVERIFY(std::fabs(over.median - 0.98 * 0.9998) < 0.002);
        // One instance (or none) leaves the pooled interval as it is.
        QCOMPARE(instancesInterval({perInstance[0]}, pooled).high, pooled.high);
        QCOMPARE(instancesInterval({}, pooled).instances, 1);
        // Three instances that agree by chance cannot make the interval narrower than the rounds allow.
        const RatioInterval agree{0.98, 0.979, 0.981, 20};
        const RatioInterval narrow = instancesInterval({agree, agree, agree}, {0.98, 0.975, 0.985, 60});
        QCOMPARE(narrow.low, 0.975);
        QCOMPARE(narrow.high, 0.985);
        QCOMPARE(studentT975(2), 4.303);
        QCOMPARE(studentT975(100), 1.96);
    }

    void adaptivePlanPromotesOnlyPossibleWinners()
    {
        AdaptivePlan plan;
        plan.incumbentRatio = 0.98;
        QVERIFY(plan.shouldConfirm({0.975, 0.96, 0.99, 10}));
        QVERIFY(!plan.shouldConfirm({1.01, 0.995, 1.02, 10}));
        plan.confirmRounds = 0;
        QVERIFY(!plan.shouldConfirm({0.9, 0.8, 0.95, 10}));
        QCOMPARE(median({3, 1, 2}), 2.0);
        QCOMPARE(median({4, 1, 2, 3}), 2.5);
    }

    void futilityStop_data()
    {
        QTest::addColumn<double>("incumbent");
        QTest::addColumn<double>("low");
        QTest::addColumn<int>("rounds");
        QTest::addColumn<int>("stage");
        QTest::addColumn<bool>("stop");
        // floor 0.2%: "faster" needs a median below 0.998
        QTest::newRow("neutral after 20") << 1.0 << 0.999 << 20 << 10 << true;
        QTest::newRow("could still clear the floor") << 1.0 << 0.997 << 20 << 10 << false;
        QTest::newRow("too early") << 1.0 << 0.999 << 5 << 10 << false;
        QTest::newRow("already at the full count") << 1.0 << 0.999 << 50 << 10 << false;
        QTest::newRow("beats the original, not the incumbent") << 0.97 << 0.975 << 30 << 10 << true;
        QTest::newRow("may beat the incumbent") << 0.97 << 0.965 << 30 << 10 << false;
        QTest::newRow("staging off") << 1.0 << 1.05 << 20 << 0 << false;
    }

    void futilityStop()
    {
        QFETCH(double, incumbent);
        QFETCH(double, low);
        QFETCH(int, rounds);
        QFETCH(int, stage);
        QFETCH(bool, stop);
        AdaptivePlan plan;
        plan.incumbentRatio = incumbent;
        plan.confirmStage = stage;
        const RatioInterval fresh{low + 0.002, low, low + 0.004, rounds};
        QCOMPARE(plan.futile(fresh, 0.002), stop);
        // Whatever the plan stops could not, at that point, be called faster or beat the incumbent.
        if (stop) QVERIFY(decide(fresh, 0.002) != Verdict::Faster || fresh.low >= incumbent);
    }

    // --- protocol -----------------------------------------------------------------------------
    void base64RoundTrip()
    {
        for (size_t n = 0; n < 40; ++n) {
            std::vector<uint8_t> bytes(n);
            for (size_t i = 0; i < n; ++i)
                bytes[i] = uint8_t(i * 37 + n);
            auto back = base64Decode(base64Encode(bytes));
            QVERIFY(back.ok());
            QCOMPARE(back.value(), bytes);
        }
        QCOMPARE(base64Encode(std::vector<uint8_t>{'M', 'a'}), std::string("TWE="));
        QVERIFY(!base64Decode("TWE").ok());
        QVERIFY(!base64Decode("TW!=").ok());
        QVERIFY(!base64Decode("TW=E").ok());
    }

    void requestsRoundTrip()
    {
        auto spec = parseLaunchSpec(json::parse(
            R"({"kernel":"k","grid":[2],"block":[32],"params":[{"name":"o","kind":"buffer","dtype":"f16","count":64,"role":"output"}]})"));
        QVERIFY(spec.ok());
        const std::vector<uint8_t> cubin{0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff};
        protocol::BaselineOptions bo;
        bo.seed = 99;
        bo.inputSets = 5;
        bo.l2Flush = true;
        const std::string line = protocol::encodeLine(protocol::makeLoadBaseline(7, spec.value(), cubin, bo));
        QCOMPARE(line.back(), '\n');
        QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1L);
        auto parsed = protocol::parseLine(line);
        QVERIFY(parsed.ok());
        QCOMPARE(parsed->at("op").get<std::string>(), std::string("load_baseline"));
        QCOMPARE(parsed->at("id").get<int>(), 7);
        QCOMPARE(protocol::cubinFromRequest(parsed.value()).value(), cubin);
        const auto back = protocol::baselineOptionsFromJson(parsed.value());
        QCOMPARE(back.seed, uint64_t(99));
        QCOMPARE(back.inputSets, 5);
        QVERIFY(back.l2Flush);
        QVERIFY(parseLaunchSpec(parsed->at("spec")).ok());

        protocol::EvaluateOptions eo;
        eo.plan.screenRounds = 6;
        eo.plan.confirmRounds = 40;
        eo.plan.incumbentRatio = 0.97;
        eo.plan.instances = 5;
        auto ev = protocol::parseLine(protocol::encodeLine(protocol::makeEvaluate(8, cubin, eo)));
        QVERIFY(ev.ok());
        const auto eo2 = protocol::evaluateOptionsFromJson(ev.value());
        QCOMPARE(eo2.plan.screenRounds, 6);
        QCOMPARE(eo2.plan.confirmRounds, 40);
        QCOMPARE(eo2.plan.incumbentRatio, 0.97);
        QCOMPARE(eo2.plan.instances, 5);
        QVERIFY(!protocol::parseLine("{\"op\": ").ok());
        QVERIFY(!protocol::parseLine("[1,2]").ok());
        QVERIFY(!protocol::cubinFromRequest(json{{"op", "evaluate"}}).ok());
    }

    void responsesBecomeResults()
    {
        TimingFigures t;
        t.ratio = {0.95, 0.94, 0.96, 50};
        t.baselineMedianUs = 200;
        t.candidateMedianUs = 190;
        t.noiseFloor = 0.003;
        t.verdict = Verdict::Faster;
        t.confirmed = true;
        t.launchMode = LaunchMode::Events;
        json resp = protocol::makeResponse(json{{"id", 3}, {"op", "evaluate"}}, "ok");
        resp["correct"] = true;
        resp["timing"] = toJson(t);
        resp["source"] = {{"device", "NVIDIA H100"}, {"kind", "measured"}};
        auto line = protocol::parseLine(protocol::encodeLine(resp));
        QVERIFY(line.ok());
        EvalResult r = evalResultFromResponse(line.value());
        QVERIFY(r.ok());
        QVERIFY(r.timing.has_value());
        QCOMPARE(r.timing->ratio.low, 0.94);
        QCOMPARE(r.timing->verdict, Verdict::Faster);
        QCOMPARE(r.source.label(), std::string("measured, NVIDIA H100"));
        QCOMPARE(toJson(r)["timing"]["ratio_ci95"][1].get<double>(), 0.96);

        EvalResult wrong = evalResultFromResponse(json{
            {"status", "ok"}, {"correct", false}, {"failure_kind", "wrong_output"}, {"error", "C differs"}});
        QVERIFY(!wrong.ok());
        QCOMPARE(wrong.failureKind, std::string("wrong_output"));
        EvalResult fault = evalResultFromResponse(json{{"status", "fault"}, {"error", "illegal address"}});
        QCOMPARE(fault.failureKind, std::string("fault"));
        QCOMPARE(evalResultFromResponse(json::array()).failureKind, std::string("protocol"));
    }

    void parsesNcuCsv()
    {
        const std::string csv = "==PROF== Connected to process 1\n"
                                "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel "
                                "Name\",\"Context\",\"Stream\",\"Block Size\","
                                "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric "
                                "Unit\",\"Metric Value\"\n"
                                "\"0\",\"1\",\"w\",\"h\",\"k\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 8, "
                                "1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
                                "\"dram__bytes_read.sum\",\"byte\",\"3,145,728\"\n"
                                "\"0\",\"1\",\"w\",\"h\",\"k\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 8, "
                                "1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
                                "\"gpu__time_duration.sum\",\"nsecond\",\"12864\"\n"
                                "\"0\",\"1\",\"w\",\"h\",\"k\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 8, "
                                "1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
                                "\"lts__t_sector_hit_rate.pct\",\"%\",\"n/a\"\n"
                                "\"1\",\"1\",\"w\",\"h\",\"k\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 8, "
                                "1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
                                "\"gpu__time_duration.sum\",\"nsecond\",\"99999\"\n"
                                "==PROF== Disconnected from process 1\n";
        auto m = parseNcuCsv(csv, {"H100", sassx::eval::FigureKind::Ncu});
        QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());
        QCOMPARE(m->size(), size_t(2));
        QCOMPARE(m->at(0).value, 3145728.0);
        QCOMPARE(m->at(0).unit, std::string("byte"));
        QCOMPARE(m->at(1).value, 12864.0);
        QVERIFY(m->at(1).source.kind == sassx::eval::FigureKind::Ncu);
        QVERIFY(!parseNcuCsv("==PROF== nothing\n", {}).ok());
        QVERIFY(defaultMetrics().size() >= 10);
    }

    void parsesCuptiRunnerOutput_data()
    {
        QTest::addColumn<QString>("out");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("errorPart");
        QTest::newRow("ok after library chatter")
            << "CUPTI says hello\n{\"status\":\"ok\",\"chip\":\"GH100\",\"passes\":3,\"metrics\":["
               "{\"name\":\"dram__bytes_read.sum\",\"value\":3145728,\"unit\":\"bytes\"},"
               "{\"name\":\"lts__t_sector_hit_rate.pct\",\"value\":87.5,\"unit\":\"percent\"}]}\n"
            << true << 2 << "";
        QTest::newRow("runner failed")
            << "{\"status\":\"failed\",\"error\":\"CUPTI does not know these metrics on GH100: foo__bar\"}\n"
            << false << 0 << "foo__bar";
        QTest::newRow("nothing printed") << "" << false << 0 << "printed no result";
        QTest::newRow("not json") << "Segmentation fault\n" << false << 0 << "printed no result";
        QTest::newRow("value not a number")
            << "{\"status\":\"ok\",\"metrics\":[{\"name\":\"x\",\"value\":\"n/a\"}]}" << false << 0
            << "malformed";
        QTest::newRow("empty list") << "{\"status\":\"ok\",\"metrics\":[]}" << false << 0 << "no metrics";
    }

    void parsesCuptiRunnerOutput()
    {
        QFETCH(QString, out);
        QFETCH(bool, ok);
        QFETCH(int, count);
        QFETCH(QString, errorPart);
        auto r = parseCuptiOneshot(out.toStdString(), {"H100", sassx::eval::FigureKind::Cupti});
        QCOMPARE(r.ok(), ok);
        if (!ok) {
            QVERIFY2(r.message().find(errorPart.toStdString()) != std::string::npos, r.message().c_str());
            return;
        }
        QCOMPARE(int(r->values.size()), count);
        QVERIFY(r->backend == MetricsBackend::Cupti);
        QCOMPARE(r->passes, 3);
        QCOMPARE(r->values[0].unit, std::string("byte")); // CUPTI's "bytes" read like ncu's "byte"
        QCOMPARE(r->values[1].unit, std::string("%"));
        QCOMPARE(r->values[1].value, 87.5);
        QVERIFY(r->values[1].source.kind == sassx::eval::FigureKind::Cupti);
    }

    void unknownMetricsBackendIsRefused()
    {
        // The worker protocol's "backend" is read with the one parser; an unknown name is one line.
        auto m = parseEnumOrError(kMetricsBackendNames, "nsight", "the metrics backend");
        QVERIFY(!m.ok());
        QVERIFY2(m.message() == "the metrics backend must be auto, cupti or ncu (not 'nsight')",
                 m.message().c_str());
    }

    void utilityKernelsAssemble()
    {
        // The worker hands this PTX to the driver's JIT; here ptxas (same front end) must accept it
        // and produce both entry points with the parameters the worker passes.
#ifndef SASSX_PTXAS
        QSKIP("no ptxas at build time");
#else
        QTemporaryDir dir;
        const QString ptx = dir.filePath("u.ptx"), out = dir.filePath("u.cubin");
        QFile f(ptx);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(utilityKernelsPtx());
        f.close();
        Subprocess::Options o;
        o.argv = {SASSX_PTXAS, "-arch=sm_90", ptx.toStdString(), "-o", out.toStdString()};
        auto r = runProcess(o, std::chrono::milliseconds(60000));
        QVERIFY(r.ok());
        QVERIFY2(r->ok(), (r->exit.text() + ": " + r->err).c_str());
        auto cubin = sassx::Cubin::load(out.toStdString());
        QVERIFY2(cubin.ok(), cubin.ok() ? "" : cubin.message().c_str());
        const auto* flush = cubin->findKernel("sassx_l2_flush");
        const auto* differ = cubin->findKernel("sassx_words_differ");
        QVERIFY(flush && differ);
        QCOMPARE(flush->params.size(), size_t(3));
        QCOMPARE(differ->params.size(), size_t(4));
#endif
    }
};

QTEST_GUILESS_MAIN(TestEvalData)
#include "test_eval_data.moc"
