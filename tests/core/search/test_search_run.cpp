// A whole search as `sassx-cli search` and the GUI run it (core/session/search_run.h) with the estimate
// backend on a sample: outputs, the report's figures and labels, and resuming from the directory.
#include "search_test_support.h"

#include "core/cubin/cubin.h"
#include "core/eval/launch_spec.h"
#include "core/session/search_run.h"
#include "core/session/workspace.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace sassx;
using namespace sassx::search;

namespace {

const QString kSample = QStringLiteral("flash_attn_fwd");

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::unique_ptr<SearchRun> openRun()
{
    WorkspaceOptions o;
    o.evaluator.backend = sassx::eval::Backend::Estimate;
    auto run =
        openSearchRun(QStringLiteral(SASSX_SAMPLES_DIR "/%1.launch.json").arg(kSample).toStdString(), o);
    if (!run) qFatal("openSearchRun: %s", run.message().c_str());
    return std::move(*run);
}

// A measuring evaluator whose search-time figures are lucky (3% faster, confirmed) and whose final
// figure (a full measurement spread over processes, as SearchEvaluator asks for the best) is what
// `finalRatio` says: the search's winner's curse, planted. Labelled "measured" so that every GPU-only
// branch of the run (incumbent re-measures, the final check) runs.
class LuckyEvaluator : public eval::Evaluator
{
public:
    explicit LuckyEvaluator(eval::RatioInterval finalRatio) : m_final(finalRatio) {}
    Status setBaseline(const eval::LaunchSpec&, const std::vector<uint8_t>& cubin) override
    {
        m_original = cubin;
        m_baseline.source = {"Fake GPU", sassx::eval::FigureKind::Measured};
        m_baseline.medianUs = 100.0;
        m_baseline.noiseFloor = 0.004;
        return Ok{};
    }
    const eval::BaselineInfo& baseline() const override { return m_baseline; }
    eval::EvalResult evaluate(const eval::Candidate& candidate, const eval::EvalOptions& o = {}) override
    {
        eval::EvalResult r;
        r.correct = true;
        r.source = m_baseline.source;
        if (o.checkOnly) return r;
        const bool final = o.plan.processes >= 2;
        finals += final;
        eval::TimingFigures t;
        t.noiseFloor = m_baseline.noiseFloor;
        t.confirmed = true;
        auto bytes = candidate.bytes();
        const bool original = candidate.isOriginal() || (bytes && **bytes == m_original);
        t.ratio = original ? eval::RatioInterval{1.0, 0.997, 1.003, 50}
                  : final  ? m_final
                           : eval::RatioInterval{0.97, 0.968, 0.972, 50};
        t.baselineMedianUs = 100.0;
        t.candidateMedianUs = 100.0 * t.ratio.median;
        t.verdict = eval::decide(t.ratio, t.noiseFloor);
        r.timing = t;
        return r;
    }
    Result<std::vector<eval::MetricValue>> metrics(const eval::Candidate&,
                                                   const std::vector<std::string>& = {}) override
    {
        return makeError("no metrics in this test");
    }
    sassx::eval::FigureKind sourceKind() const override { return sassx::eval::FigureKind::Measured; }
    int finals = 0;

private:
    eval::RatioInterval m_final;
    std::vector<uint8_t> m_original;
    eval::BaselineInfo m_baseline;
};

std::unique_ptr<SearchRun> openLuckyRun(std::shared_ptr<LuckyEvaluator> lucky)
{
    auto spec =
        eval::loadLaunchSpec(QStringLiteral(SASSX_SAMPLES_DIR "/%1.launch.json").arg(kSample).toStdString());
    if (!spec) qFatal("%s", spec.message().c_str());
    auto ws = Workspace::open(spec->cubinPath(), WorkspaceOptions{});
    if (!ws) qFatal("%s", ws.message().c_str());
    auto kernel = (*ws)->kernel(spec->kernel);
    if (!kernel) qFatal("%s", kernel.message().c_str());
    EvaluatorChoice choice{lucky, sassx::eval::Backend::Gpu, "a planted evaluator (test)"};
    auto run = std::make_unique<SearchRun>(*kernel, *spec, choice, EvaluatorOptions{});
    if (Status s = run->prepare(); !s) qFatal("%s", s.message().c_str());
    return run;
}

} // namespace

class TestSearchRun : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The final check: a best the search found on lucky figures is re-measured in fresh processes
    // before it is reported; when that figure is inside the noise, the run says nothing beat the
    // original (and writes the original), and when it holds, the run reports it with that interval.
    void finalCheckRefusesALuckyBest_data()
    {
        QTest::addColumn<double>("finalMedian");
        QTest::addColumn<double>("finalHalfWidth");
        QTest::addColumn<bool>("improved");
        QTest::newRow("lucky: 0.1% inside the noise") << 0.999 << 0.004 << false;
        QTest::newRow("lucky: faster, interval reaches 1") << 0.995 << 0.006 << false;
        QTest::newRow("holds: 3% with a tight interval") << 0.97 << 0.002 << true;
    }
    void finalCheckRefusesALuckyBest()
    {
        REQUIRE_SAMPLE(kSample);
        QFETCH(double, finalMedian);
        QFETCH(double, finalHalfWidth);
        QFETCH(bool, improved);
        QTemporaryDir dir;
        auto lucky = std::make_shared<LuckyEvaluator>(eval::RatioInterval{
            finalMedian, finalMedian - finalHalfWidth, finalMedian + finalHalfWidth, 100, 5});
        auto run = openLuckyRun(lucky);
        SearchRunOptions o;
        o.config.algorithm = Algorithm::Random;
        o.config.space = SearchSpace::All;
        o.config.budgetEvals = 20;
        o.outDir = dir.path().toStdString();
        auto report = run->run(o);
        QVERIFY2(report, report ? "" : report.message().c_str());
        QVERIFY(lucky->finals >= 1); // the best was measured again, spread over processes
        QCOMPARE(report->improved, improved);
        const auto& best = report->json.at("best");
        QVERIFY(best.at("step").get<int>() >= 0); // the search did find a (lucky) best
        QCOMPARE(best.at("final").at("instances").get<int>(), 5);
        QVERIFY(std::abs(best.at("final").at("speedup").get<double>() - 1.0 / finalMedian) < 1e-9);
        if (improved) {
            QVERIFY2(report->summary.rfind("best ", 0) == 0, report->summary.c_str());
        } else {
            QVERIFY2(report->summary.rfind("nothing beat the original", 0) == 0, report->summary.c_str());
            // What is written is the original, not the lucky schedule.
            QCOMPARE(
                readText(report->bestCubinPath),
                readText(QStringLiteral(SASSX_SAMPLES_DIR "/%1.sm_90.cubin").arg(kSample).toStdString()));
        }
    }

    void writesEveryOutput()
    {
        REQUIRE_SAMPLE(kSample);
        QTemporaryDir dir;
        auto run = openRun();
        QVERIFY(run->choice().backend == sassx::eval::Backend::Estimate);
        SearchRunOptions o;
        o.config.algorithm = Algorithm::Anneal;
        o.config.space = SearchSpace::All;
        o.config.budgetEvals = 60;
        o.outDir = dir.path().toStdString();
        int seen = 0;
        SearchCallbacks cb;
        cb.onEvaluation = [&](const SearchEvaluation&, const SearchStatus& s) { seen = int(s.evaluations); };
        auto report = run->run(o, cb);
        QVERIFY2(report, report ? "" : report.message().c_str());
        QCOMPARE(seen, 60);
        QVERIFY(report->improved);
        const auto& j = report->json;
        QCOMPARE(j["evaluations"].get<int>(), 60);
        QCOMPARE(QString::fromStdString(j["evaluator"]["backend"].get<std::string>()),
                 QStringLiteral("estimate"));
        const double final = j["best"]["final"]["speedup"].get<double>();
        QVERIFY(final > 1.0);
        // The final figure is a fresh evaluation of the best; the estimate is deterministic, so it
        // equals the search's own.
        QCOMPARE(final, j["best"]["search_speedup"].get<double>());
        QVERIFY(!j["best"]["edits"].empty());
        QVERIFY(j["verification"]["correct"].is_null()); // the estimate verifies nothing, and says so
        QVERIFY(QString::fromStdString(j["verification"]["note"].get<std::string>()).contains("unverified"));
        QVERIFY(QString::fromStdString(report->summary).contains("not a measurement"));
        QVERIFY(!j["date"].get<std::string>().empty());
        // Where the time went: every evaluation passed through the evaluator, inside the run's wall time.
        const auto& t = j["time_split"];
        QCOMPARE(t["batches"].get<int>(), 60); // the estimate takes one candidate at a time
        QVERIFY(t["run_s"].get<double>() > 0.0);
        QVERIFY(t["evaluator_s"].get<double>() > 0.0);
        QVERIFY(t["evaluator_s"].get<double>() + t["checkpoint_s"].get<double>() <=
                t["run_s"].get<double>() + 1e-3);
        QVERIFY(t["pool_busy_share"].get<double>() > 0.0 && t["pool_busy_share"].get<double>() <= 1.0 + 1e-6);

        // best.cubin is the tuned kernel: it parses, differs from the original, and replaying
        // best.json through the workspace writes the same bytes.
        const std::string bytes = readText(report->bestCubinPath);
        auto cubin = Cubin::parse(std::vector<uint8_t>(bytes.begin(), bytes.end()));
        QVERIFY2(cubin, cubin ? "" : cubin.message().c_str());
        QVERIFY(std::vector<uint8_t>(bytes.begin(), bytes.end()) != run->kernel().cubin().bytes());
        auto variant = Variant::fromJson(nlohmann::json::parse(readText(o.outDir + "/best.json")));
        QVERIFY(variant);
        auto sched = run->kernel().schedule(variant->edits);
        QVERIFY(sched);
        auto rewritten = run->kernel().write(*sched);
        QVERIFY(rewritten);
        QVERIFY(*rewritten == std::vector<uint8_t>(bytes.begin(), bytes.end()));

        const std::string csv = readText(report->historyPath);
        QCOMPARE(int(std::count(csv.begin(), csv.end(), '\n')), 61); // header + one row per evaluation
        QVERIFY(csv.starts_with("step,seconds,kind,base,move,"));
        const std::string html = readText(report->diffPath);
        QVERIFY(html.find("<html") != std::string::npos);
        QVERIFY(QFileInfo::exists(dir.filePath("checkpoint.json")));
    }

    // A stopped run keeps its checkpoint; resuming the directory finishes it with the whole history.
    void resumesTheDirectory()
    {
        REQUIRE_SAMPLE(kSample);
        QTemporaryDir dir;
        SearchRunOptions o;
        o.config.algorithm = Algorithm::Greedy;
        o.config.space = SearchSpace::All;
        o.config.budgetEvals = 40;
        o.outDir = dir.path().toStdString();
        std::atomic_bool stop{false};
        o.control.stop = &stop;
        SearchCallbacks cb;
        cb.onEvaluation = [&](const SearchEvaluation& e, const SearchStatus&) {
            if (e.step >= 14) stop = true;
        };
        auto first = openRun()->run(o, cb);
        QVERIFY2(first, first ? "" : first.message().c_str());
        QVERIFY(!first->json["finished"].get<bool>());
        QCOMPARE(first->json["evaluations"].get<int>(), 15);
        // The summary says the run was stopped, not finished.
        QVERIFY2(first->summary.find("stopped early") != std::string::npos, first->summary.c_str());

        SearchRunOptions again = o;
        again.resume = true;
        again.config.budgetEvals = 0; // the checkpoint's budget
        stop = false;
        auto second = openRun()->run(again);
        QVERIFY2(second, second ? "" : second.message().c_str());
        QVERIFY(second->json["finished"].get<bool>());
        QCOMPARE(second->json["evaluations"].get<int>(), 40);
        QVERIFY2(second->summary.find("stopped early") == std::string::npos, second->summary.c_str());
        auto state = readSearchCheckpoint(o.outDir);
        QVERIFY(state);
        QCOMPARE(state->evaluations(), int64_t(40));
        QCOMPARE(state->history[14].step, 14);
    }

    void resumeWithoutACheckpointFailsInOneLine()
    {
        REQUIRE_SAMPLE(kSample);
        QTemporaryDir dir;
        SearchRunOptions o;
        o.config.budgetEvals = 5;
        o.outDir = dir.path().toStdString();
        o.resume = true;
        auto r = openRun()->run(o);
        QVERIFY(!r);
        QVERIFY2(r.message().find("no checkpoint") != std::string::npos, r.message().c_str());
        QVERIFY(r.message().find('\n') == std::string::npos);
    }

    // A checkpoint that does not parse or refers to evaluations it does not hold is refused.
    void refusesBrokenCheckpoints_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << "{oops"
                                  << "not JSON";
        QTest::newRow("other format") << R"({"format":"x"})"
                                      << "not a sassx search checkpoint";
        QTest::newRow("dangling best")
            << R"({"format":"sassx-search-state","version":1,"config":{"algorithm":"anneal","space":"mem","budget_evals":5},"rng":"1","steps":0,"seconds":0,"incumbent":-1,"incumbent_speedup":1,"best":3,"best_speedup":1,"history":[]})"
            << "refers to evaluations";
    }
    void refusesBrokenCheckpoints()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QTemporaryDir dir;
        std::ofstream(dir.filePath("checkpoint.json").toStdString()) << text.toStdString();
        auto s = readSearchCheckpoint(dir.path().toStdString());
        QVERIFY(!s);
        QVERIFY2(QString::fromStdString(s.message()).contains(error), s.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestSearchRun)
#include "test_search_run.moc"
