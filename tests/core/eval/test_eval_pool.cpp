// WorkerPool against a fake worker that crashes, hangs, answers garbage or reports faults: each bad
// request is marked failed with its reason, the worker comes back (baseline replayed), and the
// requests after it are answered normally.
#include "core/common/subprocess.h"
#include "core/eval/eval_result.h"
#include "core/eval/gpu_evaluator.h"
#include "core/eval/worker_pool.h"

#include <QtTest>

#include <cstdlib>
#include <set>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {
WorkerPoolOptions options(std::vector<int> gpus = {0})
{
    WorkerPoolOptions o;
    o.workerPath = SASSX_FAKE_WORKER;
    o.gpus = gpus;
    o.requestTimeout = 3000ms;
    o.startTimeout = 5000ms;
    return o;
}

PoolJob job(const std::string& fake, int tag, std::chrono::milliseconds timeout = 0ms)
{
    return {json{{"op", "evaluate"}, {"fake", fake}, {"tag", tag}}, timeout};
}
} // namespace

class TestEvalPool : public QObject
{
    Q_OBJECT
private slots:
    void init() { ::unsetenv("FAKE_WORKER_START"); }

    void answersInOrder()
    {
        WorkerPool pool(options({0, 1}));
        QVERIFY(pool.start().ok());
        QCOMPARE(pool.liveWorkers(), 2);
        std::vector<PoolJob> jobs;
        for (int i = 0; i < 10; ++i)
            jobs.push_back(job("slow:20", i));
        auto replies = pool.run(jobs);
        QCOMPARE(replies.size(), size_t(10));
        std::set<int> workers;
        for (int i = 0; i < 10; ++i) {
            QCOMPARE(replies[size_t(i)].response.value("echo", -1), i);
            workers.insert(replies[size_t(i)].worker);
        }
        QCOMPARE(workers.size(), size_t(2));                     // spread over both
        QCOMPARE(pool.deviceName(1), std::string("fake GPU 1")); // each sees only its GPU
        QCOMPARE(pool.restarts(), 0);
    }

    void badRequestsFailAndWorkContinues()
    {
        WorkerPool pool(options());
        QVERIFY(pool.start().ok());
        auto base = pool.loadBaseline(json{{"op", "load_baseline"}, {"noise_rounds", 30}});
        QVERIFY(base.ok());
        QCOMPARE(base->value("noise_floor", 0.0), 0.004);
        const auto t0 = std::chrono::steady_clock::now();
        auto replies =
            pool.run({job("ok", 0), job("crash", 1), job("ok", 2), job("hang", 3, 400ms), job("ok", 4),
                      job("garbage", 5), job("ok", 6), job("fault", 7), job("ok", 8)});
        const auto elapsed = std::chrono::steady_clock::now() - t0;
        QVERIFY(elapsed < 5s); // the hang cost its 400 ms deadline, not the pool's 3 s default
        const char* expected[] = {nullptr,    "worker_crash", nullptr, "timeout", nullptr,
                                  "protocol", nullptr,        "fault", nullptr};
        for (int i = 0; i < 9; ++i) {
            EvalResult r = evalResultFromResponse(replies[size_t(i)].response);
            if (!expected[i]) {
                QVERIFY2(r.ok(), replies[size_t(i)].response.dump().c_str());
                QCOMPARE(replies[size_t(i)].response.value("echo", -1), i);
                // Every restarted worker got the baseline again, replayed without re-measuring noise.
                QCOMPARE(replies[size_t(i)].response.value("loads", 0), 1);
            } else {
                QCOMPARE(r.failureKind, std::string(expected[i]));
                QVERIFY(!r.failure.empty());
            }
        }
        EvalResult crash = evalResultFromResponse(replies[1].response);
        QVERIFY2(crash.failure.find("simulated crash") != std::string::npos, crash.failure.c_str());
        QVERIFY(evalResultFromResponse(replies[3].response).failure.find("worker killed") !=
                std::string::npos);
        QCOMPARE(pool.restarts(), 4);
        QCOMPARE(pool.events().size(), size_t(4));
        QCOMPARE(pool.liveWorkers(), 1);
    }

    void replayCarriesTheNoiseFloor()
    {
        WorkerPool pool(options());
        QVERIFY(pool.start().ok());
        QVERIFY(pool.loadBaseline(json{{"op", "load_baseline"}, {"noise_rounds", 30}}).ok());
        pool.run({job("crash", 0)});
        // The restarted worker answered its replayed load_baseline; the next job runs on it.
        auto r = pool.runOne(job("ok", 1));
        QVERIFY(evalResultFromResponse(r.response).ok());
        QCOMPARE(pool.restarts(), 1);
    }

    // A final figure's fresh processes: renew() replaces every idle worker by a new process that
    // replays the baseline (inheriting the noise floor) before the next job; not counted as a restart.
    void renewStartsFreshProcesses()
    {
        WorkerPool pool(options({0, 1}));
        QVERIFY(pool.start().ok());
        QVERIFY(pool.loadBaseline(json{{"op", "load_baseline"}, {"noise_rounds", 30}}).ok());
        std::set<int> before, after;
        for (const auto& r : pool.run({job("slow:50", 0), job("slow:50", 1)}))
            before.insert(r.response.value("pid", 0));
        QCOMPARE(before.size(), size_t(2));
        pool.renew();
        for (const auto& r : pool.run({job("slow:50", 2), job("slow:50", 3)})) {
            QVERIFY(evalResultFromResponse(r.response).ok());
            QCOMPARE(r.response.value("loads", 0), 1); // the baseline, replayed in the new process
            after.insert(r.response.value("pid", 0));
        }
        QCOMPARE(after.size(), size_t(2));
        for (int pid : after)
            QVERIFY(!before.count(pid));
        QCOMPARE(pool.restarts(), 0);
        QCOMPARE(pool.liveWorkers(), 2);
        QVERIFY(std::any_of(pool.events().begin(), pool.events().end(),
                            [](const std::string& e) { return e.find("renewed") != std::string::npos; }));
    }

    // Parts measured in separate processes combine into one figure: rounds summed, the interval over
    // processes, and any part's failure is the result.
    void processPartsCombine()
    {
        std::vector<EvalResult> parts;
        for (double m : {0.960, 0.958, 0.961, 0.959}) {
            EvalResult r;
            r.correct = true;
            TimingFigures t;
            t.ratio = {m, m - 0.0002, m + 0.0002, 25};
            t.confirmed = true;
            t.noiseFloor = 0.002;
            t.baselineMedianUs = 100;
            t.candidateMedianUs = 100 * m;
            r.timing = t;
            parts.push_back(r);
        }
        const EvalResult all = combineProcessResults(parts);
        QVERIFY(all.ok() && all.timing);
        QCOMPARE(all.timing->ratio.rounds, 100);
        QCOMPARE(all.timing->ratio.instances, 4);
        QVERIFY(all.timing->ratio.low < 0.958 && all.timing->ratio.high > 0.961); // wider than any part
        QCOMPARE(all.timing->verdict, Verdict::Faster);
        parts[2] = failedResult(failure::kWrongOutput, "output C differs");
        QCOMPARE(combineProcessResults(parts).failureKind, std::string(failure::kWrongOutput));
        QCOMPARE(combineProcessResults({}).failureKind, std::string(failure::kError));
    }

    void baselineErrorIsReported()
    {
        WorkerPool pool(options());
        QVERIFY(pool.start().ok());
        auto base = pool.loadBaseline(json{{"op", "load_baseline"}, {"fail", true}});
        QVERIFY(!base.ok());
        QVERIFY2(base.message().find("NaN") != std::string::npos, base.message().c_str());
    }

    void workersThatCannotStart()
    {
        ::setenv("FAKE_WORKER_START", "nogpu", 1);
        WorkerPool nogpu(options());
        Status s = nogpu.start();
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find("libcuda") != std::string::npos, s.message().c_str());

        ::setenv("FAKE_WORKER_START", "crash", 1);
        WorkerPool crashing(options());
        QVERIFY(!crashing.start().ok());
        ::unsetenv("FAKE_WORKER_START");

        WorkerPoolOptions missing = options();
        missing.workerPath = "/nonexistent/sassx-worker";
        WorkerPool none(missing);
        QVERIFY(!none.start().ok());
    }

    void restartsThatFailRetireTheSlot()
    {
        WorkerPool pool(options());
        QVERIFY(pool.start().ok());
        ::setenv("FAKE_WORKER_START", "crash", 1); // every restart dies at once from now on
        auto replies = pool.run({job("crash", 0), job("ok", 1)});
        ::unsetenv("FAKE_WORKER_START");
        QCOMPARE(evalResultFromResponse(replies[0].response).failureKind, std::string("worker_crash"));
        EvalResult second = evalResultFromResponse(replies[1].response);
        QVERIFY(!second.ok());
        QVERIFY2(second.failure.find("no worker left") != std::string::npos, second.failure.c_str());
        QCOMPARE(pool.liveWorkers(), 0);
    }

    // The real worker reads one request per line whatever its size (a candidate and its reference as
    // base64 run to hundreds of KB), skips blank lines, answers a line that is not JSON with a protocol
    // error and goes on. Without a GPU it answers every request with the driver's error; with one, ok:
    // either way each answer echoes its request's id, in order.
    void realWorkerReadsLargeRequestLines()
    {
        Subprocess::Options o;
        o.argv = {SASSX_WORKER_PATH};
        auto proc = Subprocess::spawn(o);
        QVERIFY2(proc, proc ? "" : proc.message().c_str());
        std::string line;
        QVERIFY((*proc)->readLine(line, 20000ms));
        QCOMPARE(json::parse(line).value("event", ""), std::string("ready"));
        const std::string pad(1 << 20, 'A');
        const std::string requests = json{{"op", "hello"}, {"id", 1}, {"pad", pad}}.dump() + "\n\n" +
                                     "not json\n" + json{{"op", "hello"}, {"id", 2}}.dump() + "\n" +
                                     json{{"op", "shutdown"}, {"id", 3}}.dump() + "\n";
        QVERIFY((*proc)->writeAll(requests));
        std::vector<json> answers;
        while (answers.size() < 4 && (*proc)->readLine(line, 20000ms))
            answers.push_back(json::parse(line));
        QCOMPARE(int(answers.size()), 4);
        QCOMPARE(answers[0].value("id", -1), 1);
        QCOMPARE(answers[1].value("failure_kind", ""), std::string(failure::kProtocol));
        QCOMPARE(answers[2].value("id", -1), 2);
        QCOMPARE(answers[3].value("id", -1), 3);
        const std::optional<ProcessExit> exit = (*proc)->wait(10000ms);
        QVERIFY2(exit && exit->ok(), exit ? exit->text().c_str() : "still running");
    }

    void gpuListParsing()
    {
        QCOMPARE(parseGpuList("0,1,3").value(), (std::vector<int>{0, 1, 3}));
        QVERIFY(!parseGpuList("0,x").ok());
        QVERIFY(!parseGpuList("").ok());
        QVERIFY(!parseGpuList("-1").ok());
    }
};

QTEST_GUILESS_MAIN(TestEvalPool)
#include "test_eval_pool.moc"
