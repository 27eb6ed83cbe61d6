// The GPU evaluator end to end: real sassx-worker processes, real cubins. Skips (with the reason)
// where there is no CUDA driver or GPU, or the test kernels were not compiled (no nvcc).
#include "core/cubin/cubin.h"
#include "core/eval/cuda_driver.h"
#include "core/eval/cupti_profiler.h"
#include "core/eval/gpu_evaluator.h"
#include "core/eval/ncu_metrics.h"
#include "core/eval/sha256.h"

#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {
// Build-tree paths, overridable so that binaries built elsewhere can run on a GPU machine.
std::string kernelsDir()
{
    const char* e = std::getenv("SASSX_EVAL_KERNELS_DIR");
    return e && *e ? e : SASSX_EVAL_KERNELS_DIR;
}

std::string workerPath()
{
    const char* e = std::getenv("SASSX_WORKER");
    return e && *e ? e : SASSX_WORKER_PATH;
}

std::vector<uint8_t> cubin(const char* stem)
{
    std::ifstream in(kernelsDir() + "/" + stem + ".cubin", std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// A test kernel as what an evaluator takes.
Candidate candidate(const char* stem)
{
    return Candidate::fromBytes(cubin(stem));
}

LaunchSpec addSpec(int n)
{
    json j{{"name", "eval_add"},
           {"kernel", "eval_add"},
           {"grid", {(n + 255) / 256}},
           {"block", {256}},
           {"params",
            {{{"name", "x"},
              {"kind", "buffer"},
              {"dtype", "f32"},
              {"count", n},
              {"init", {{"kind", "uniform"}, {"low", -1}, {"high", 1}}}},
             {{"name", "y"},
              {"kind", "buffer"},
              {"dtype", "f32"},
              {"count", n},
              {"init", {{"kind", "normal"}, {"mean", 0}, {"std", 1}}}},
             {{"name", "out"}, {"kind", "buffer"}, {"dtype", "f32"}, {"count", n}, {"role", "output"}},
             {{"name", "a"}, {"kind", "scalar"}, {"dtype", "f32"}, {"value", 1.5}},
             {{"name", "n"}, {"kind", "scalar"}, {"dtype", "i32"}, {"value", n}}}}};
    return parseLaunchSpec(j).value();
}
} // namespace

class TestEvalGpu : public QObject
{
    Q_OBJECT
    std::unique_ptr<GpuEvaluator> m_eval;

    std::unique_ptr<GpuEvaluator> make(bool precheck, std::chrono::milliseconds timeout = 20s)
    {
        GpuEvaluatorOptions o;
        o.pool.workerPath = workerPath();
        o.pool.requestTimeout = timeout;
        o.precheck = precheck;
        o.baseline.noiseRounds = 20;
        auto e = GpuEvaluator::create(o);
        if (!e) qFatal("%s", e.message().c_str());
        return std::move(e.value());
    }

private slots:
    void initTestCase()
    {
        auto drv = cu::loadDriver();
        if (!drv) QSKIP(("no CUDA driver: " + drv.message()).c_str());
        int count = 0;
        if (drv.value()->deviceGetCount(&count) != 0 || count == 0)
            QSKIP("CUDA driver present but no GPU visible");
        if (cubin("eval_add").empty()) QSKIP("test kernels not compiled (no nvcc at build time)");
        m_eval = make(false);
        Status s = m_eval->setBaseline(addSpec(1 << 20), cubin("eval_add"));
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        QVERIFY(m_eval->baseline().medianUs > 0);
        QVERIFY(m_eval->baseline().source.kind == sassx::eval::FigureKind::Measured);
        qInfo("baseline %.2f us, noise floor %.3f%%, %s x%d on %s", m_eval->baseline().medianUs,
              m_eval->baseline().noiseFloor * 100, launchModeName(m_eval->baseline().launchMode).c_str(),
              m_eval->baseline().launchesPerSample, m_eval->baseline().source.device.c_str());
    }

    // With two workers (here both on GPU 0), one candidate's fresh rounds are split between them and
    // combined: every round runs, and the interval is over the two parts.
    void oneCandidateSpreadsOverThePool()
    {
        GpuEvaluatorOptions o;
        o.pool.workerPath = workerPath();
        o.pool.gpus = {0, 0};
        o.baseline.noiseRounds = 20;
        auto made = GpuEvaluator::create(o);
        QVERIFY2(made, made ? "" : made.message().c_str());
        auto& two = *made.value();
        QCOMPARE(two.parallelism(), 2);
        Status s = two.setBaseline(addSpec(1 << 20), cubin("eval_add"));
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        EvalOptions e;
        e.plan.incumbentRatio = 10; // force confirmation rounds
        e.plan.confirmStage = 0;
        e.plan.confirmRounds = 40;
        EvalResult r = two.evaluate(candidate("eval_add"), e);
        QVERIFY2(r.ok(), r.failure.c_str());
        QVERIFY(r.timing && r.timing->confirmed);
        QCOMPARE(r.timing->ratio.rounds, 40);
        QCOMPARE(r.timing->ratio.instances, 2);
        QVERIFY(r.timing->ratio.low <= 1.0 + 0.02 && r.timing->ratio.high >= 1.0 - 0.02);
    }

    void baselineAgainstItself()
    {
        EvalOptions o;
        o.plan.incumbentRatio = 10; // force confirmation rounds
        o.plan.confirmStage = 0;    // all 50 at once
        EvalResult r = m_eval->evaluate(candidate("eval_add"), o);
        QVERIFY2(r.ok(), r.failure.c_str());
        QVERIFY(r.timing.has_value());
        QVERIFY(r.timing->confirmed);
        QCOMPARE(r.timing->ratio.rounds, 50);
        QVERIFY(!r.timing->stoppedEarly);
        // Staged: an identical candidate can never clear the noise floor, so it usually stops after 10
        // fresh rounds; either way the rounds are a multiple of the stage and the verdict is not faster.
        o.plan.confirmStage = 10;
        EvalResult staged = m_eval->evaluate(candidate("eval_add"), o);
        QVERIFY(staged.ok() && staged.timing && staged.timing->confirmed);
        QVERIFY(staged.timing->ratio.rounds >= 10 && staged.timing->ratio.rounds <= 50);
        QCOMPARE(staged.timing->ratio.rounds % 10, 0);
        QCOMPARE(staged.timing->stoppedEarly, staged.timing->ratio.rounds < 50);
        QVERIFY(staged.timing->verdict != Verdict::Faster);
        QVERIFY(r.timing->ratio.low <= 1.0 + 0.02 && r.timing->ratio.high >= 1.0 - 0.02);
        QVERIFY(r.timing->verdict != Verdict::Faster);
        QVERIFY(!r.source.device.empty());
        // A final figure spread over 4 fresh instance pairs: every round runs, the interval is over
        // instances and still contains 1 for the baseline against itself (within 2%).
        o.plan.confirmStage = 0;
        o.plan.confirmRounds = 40;
        o.plan.instances = 4;
        EvalResult spread = m_eval->evaluate(candidate("eval_add"), o);
        QVERIFY2(spread.ok(), spread.failure.c_str());
        QVERIFY(spread.timing && spread.timing->confirmed && !spread.timing->stoppedEarly);
        QCOMPARE(spread.timing->ratio.rounds, 40);
        QCOMPARE(spread.timing->ratio.instances, 4);
        QVERIFY(spread.timing->ratio.low <= spread.timing->ratio.median &&
                spread.timing->ratio.median <= spread.timing->ratio.high);
        QVERIFY(spread.timing->ratio.low <= 1.0 + 0.02 && spread.timing->ratio.high >= 1.0 - 0.02);
        QVERIFY(spread.timing->verdict != Verdict::Faster);
        // A final figure in 3 fresh worker processes: the interval is over processes.
        o.plan.instances = 1;
        o.plan.processes = 3;
        o.plan.confirmRounds = 30;
        EvalResult processes = m_eval->evaluate(candidate("eval_add"), o);
        QVERIFY2(processes.ok(), processes.failure.c_str());
        QCOMPARE(processes.timing->ratio.rounds, 30);
        QCOMPARE(processes.timing->ratio.instances, 3);
        QVERIFY(processes.timing->ratio.low <= 1.0 + 0.02 && processes.timing->ratio.high >= 1.0 - 0.02);
        const auto& events = m_eval->pool().events();
        QCOMPARE(std::count_if(events.begin(), events.end(),
                               [](const std::string& e) { return e.find("renewed") != std::string::npos; }),
                 2L);
    }

    void wrongOutputsAreCaught()
    {
        EvalResult wrong = m_eval->evaluate(candidate("eval_add_wrong"));
        QCOMPARE(wrong.failureKind, std::string("wrong_output"));
        QVERIFY2(wrong.failure.find("[524288]") != std::string::npos, wrong.failure.c_str());
        EvalResult partial = m_eval->evaluate(candidate("eval_add_partial"));
        QCOMPARE(partial.failureKind, std::string("wrong_output"));
        QVERIFY2(partial.failure.find("NaN") != std::string::npos, partial.failure.c_str());
    }

    void brokenCandidatesFailAndWorkContinues()
    {
        auto faulted = m_eval->evaluate(candidate("eval_add_oob"));
        QCOMPARE(faulted.failureKind, std::string("fault"));
        QVERIFY2(faulted.failure.find("ILLEGAL_ADDRESS") != std::string::npos, faulted.failure.c_str());
        QVERIFY(m_eval->evaluate(candidate("eval_add"), {}).ok()); // restarted worker, baseline replayed
        QCOMPARE(m_eval->evaluate(candidate("eval_add_renamed")).failureKind,
                 std::string("kernel_not_found"));
        QCOMPARE(m_eval->evaluate(candidate("eval_add_params")).failureKind, std::string("param_mismatch"));
        std::vector<uint8_t> garbage(4096, 0x42);
        QCOMPARE(m_eval->evaluate(Candidate::fromBytes(garbage)).failureKind, std::string("load_failed"));
        QVERIFY(m_eval->evaluate(candidate("eval_add")).ok());
    }

    void hangsHitTheDeadline()
    {
        auto e = make(true, 3s);
        QVERIFY(e->setBaseline(addSpec(1 << 16), cubin("eval_add")).ok());
        const auto t0 = std::chrono::steady_clock::now();
        EvalResult r = e->evaluate(candidate("eval_add_hang"));
        QCOMPARE(r.failureKind, std::string("timeout"));
        QVERIFY(std::chrono::steady_clock::now() - t0 < 30s);
        QVERIFY(e->evaluate(candidate("eval_add")).ok());
        QCOMPARE(e->pool().restarts(), 1);
    }

    void precheckUsesKparamInfo()
    {
        auto e = make(true);
        QVERIFY(e->setBaseline(addSpec(4096), cubin("eval_add")).ok());
        EvalResult r = e->evaluate(candidate("eval_add_params"));
        QCOMPARE(r.failureKind, std::string("param_mismatch"));
        QVERIFY2(r.failure.find("KPARAM_INFO") != std::string::npos, r.failure.c_str());
        Status bad = e->setBaseline(addSpec(4096), cubin("eval_add_params"));
        QVERIFY(!bad.ok());
    }

    void dynamicSharedAbove48KiB()
    {
        const int n = 132 * 256;
        json j{{"kernel", "eval_smem"},
               {"grid", {132}},
               {"block", {256}},
               {"dynamic_shared", 100 * 1024},
               {"params",
                {{{"name", "x"},
                  {"kind", "buffer"},
                  {"dtype", "f32"},
                  {"count", n},
                  {"init", {{"kind", "iota"}}}},
                 {{"name", "out"}, {"kind", "buffer"}, {"dtype", "f32"}, {"count", n}, {"role", "output"}},
                 {{"name", "n"}, {"kind", "scalar"}, {"dtype", "i32"}, {"value", n}}}}};
        auto e = make(true);
        Status s = e->setBaseline(parseLaunchSpec(j).value(), cubin("eval_smem"));
        QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
        QVERIFY(e->evaluate(candidate("eval_smem")).ok());
    }

    // eval_add as a capture at the driver describes it: every parameter by-value bytes, the pointers
    // reaching x and y at two offsets of one recorded allocation and out in another. The original
    // reproduces the program's output digest (out = fma(a, x, y), as nvcc contracts it); a wrong digest
    // is reported as differing and fails nothing.
    void driverCapturedLaunch()
    {
        const int n = 4096;
        std::vector<float> xy(2 * n), out(n);
        for (int i = 0; i < n; ++i) {
            xy[size_t(i)] = float(i % 97) / 97.0f - 0.5f;
            xy[size_t(n + i)] = float(i % 13) - 6.0f;
            out[size_t(i)] = std::fma(1.5f, xy[size_t(i)], xy[size_t(n + i)]);
        }
        QTemporaryDir dir;
        QFile file(dir.filePath("xy.bin"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(reinterpret_cast<const char*>(xy.data()), qsizetype(xy.size() * 4));
        file.close();
        auto pointer = [](const char* name, const char* to, int offset) {
            return json{{"name", name},
                        {"kind", "bytes"},
                        {"size", 8},
                        {"hex", "0000000000000000"},
                        {"pointers", {{{"at", 0}, {"to", to}, {"offset", offset}}}}};
        };
        json j{{"kernel", "eval_add"},
               {"grid", {n / 256}},
               {"block", {256}},
               {"params",
                {pointer("x", "xy", 0),
                 pointer("y", "xy", 4 * n),
                 pointer("out", "result", 0),
                 {{"name", "a"}, {"kind", "bytes"}, {"size", 4}, {"hex", "0000c03f"}},
                 {{"name", "n"}, {"kind", "bytes"}, {"size", 4}, {"hex", "00100000"}}}},
               {"memory",
                {{{"name", "xy"},
                  {"dtype", "f32"},
                  {"count", 2 * n},
                  {"role", "input"},
                  {"init",
                   {{"kind", "recorded"},
                    {"file", "xy.bin"},
                    {"encoding", "raw"},
                    {"bytes", 8 * n},
                    {"sha256", sha256Hex(reinterpret_cast<const uint8_t*>(xy.data()), xy.size() * 4)}}}},
                 {{"name", "result"}, {"dtype", "f32"}, {"count", n}, {"role", "output"}}}}};
        for (bool right : {true, false}) {
            j["memory"][1]["reference"] = {
                {"sha256", right ? sha256Hex(reinterpret_cast<const uint8_t*>(out.data()), out.size() * 4)
                                 : std::string(64, '0')}};
            auto spec = parseLaunchSpec(j, dir.path().toStdString());
            QVERIFY2(spec.ok(), spec.ok() ? "" : spec.message().c_str());
            auto e = make(true);
            Status s = e->setBaseline(spec.value(), cubin("eval_add"));
            QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
            const json& reference = e->baseline().raw.at("reference");
            QCOMPARE(reference.at(right ? "matched" : "differs"), json::array({"result"}));
            QVERIFY(reference.at(right ? "differs" : "matched").empty());
            QVERIFY(e->evaluate(candidate("eval_add")).ok());
            QCOMPARE(e->evaluate(candidate("eval_add_wrong")).failureKind, std::string("wrong_output"));
        }
    }

    void metricsThroughNcu()
    {
        if (findNcu().empty()) QSKIP("ncu not installed");
        GpuEvaluatorOptions o;
        o.pool.workerPath = workerPath();
        o.metricsBackend = sassx::eval::MetricsBackend::Ncu;
        auto made = GpuEvaluator::create(o);
        QVERIFY(made.ok());
        QVERIFY(made.value()->setBaseline(addSpec(1 << 20), cubin("eval_add")).ok());
        auto m = made.value()->metrics({});
        QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());
        bool sawDuration = false;
        for (const MetricValue& v : m.value()) {
            QVERIFY(v.source.kind == sassx::eval::FigureKind::Ncu);
            if (v.name == "gpu__time_duration.sum") sawDuration = v.value > 0;
        }
        QVERIFY(sawDuration);
    }

    void metricsThroughCupti()
    {
        if (auto lib = loadCupti(); !lib) QSKIP(("no usable CUPTI: " + lib.message()).c_str());
        GpuEvaluatorOptions o;
        o.pool.workerPath = workerPath();
        o.metricsBackend = sassx::eval::MetricsBackend::Cupti;
        auto made = GpuEvaluator::create(o);
        QVERIFY(made.ok());
        auto& e = *made.value();
        const int n = 1 << 22;
        QVERIFY(e.setBaseline(addSpec(n), cubin("eval_add")).ok());
        auto m = e.metrics({});
        QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());
        double readBytes = -1, duration = -1;
        for (const MetricValue& v : m.value()) {
            QVERIFY(v.source.kind == sassx::eval::FigureKind::Cupti);
            if (v.name == "dram__bytes_read.sum") readBytes = v.value;
            if (v.name == "gpu__time_duration.sum") duration = v.value;
        }
        // eval_add reads x and y (2 x 16 MiB) from a flushed L2: DRAM must deliver at least that.
        QVERIFY2(readBytes >= 2.0 * 4 * n * 0.95, std::to_string(readBytes).c_str());
        QVERIFY(duration > 0);
        // An unknown metric is named in the error, and the worker survives it.
        auto bad = e.metrics({}, {"sassx__no_such_metric.sum"});
        QVERIFY(!bad.ok());
        QVERIFY2(bad.message().find("sassx__no_such_metric.sum") != std::string::npos, bad.message().c_str());
        QVERIFY(e.evaluate(candidate("eval_add")).ok());
    }

    // Stall samples of one launch: on the kernel's own instructions (offsets inside its code, 16-byte
    // aligned), every reason named; a faulting candidate is reported and the worker goes on.
    void stallSamples()
    {
        if (auto lib = loadCupti(); !lib) QSKIP(("no usable CUPTI: " + lib.message()).c_str());
        GpuEvaluatorOptions o;
        o.pool.workerPath = workerPath();
        auto made = GpuEvaluator::create(o);
        QVERIFY(made.ok());
        auto& e = *made.value();
        QVERIFY(e.setBaseline(addSpec(1 << 24), cubin("eval_add")).ok());
        auto p = e.stalls({});
        QVERIFY2(p.ok(), p.ok() ? "" : p.message().c_str());
        QVERIFY(p->source.kind == sassx::eval::FigureKind::CuptiPcSampling);
        QVERIFY(p->kernelSamples > 0);
        QVERIFY(p->periodExponent >= 5 && p->periodExponent <= 31);
        QVERIFY(!p->reasons.empty());
        auto parsed = Cubin::parse(cubin("eval_add"));
        QVERIFY(parsed.ok());
        const Kernel* k = parsed->findKernel("eval_add");
        QVERIFY(k);
        for (const auto& [offset, samples] : p->pcs) {
            QCOMPARE(offset % 16, uint64_t(0));
            QVERIFY(offset < k->codeSize);
            QVERIFY(!samples.empty());
        }
        auto bad = e.stalls(candidate("eval_add_oob"));
        QVERIFY(!bad.ok());
        QVERIFY2(bad.message().find("fault") != std::string::npos ||
                     bad.message().find("illegal") != std::string::npos,
                 bad.message().c_str());
        QVERIFY(e.evaluate(candidate("eval_add")).ok());
    }
};

QTEST_GUILESS_MAIN(TestEvalGpu)
#include "test_eval_gpu.moc"
