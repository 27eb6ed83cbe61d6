// The defaults where the speed is, on real sample kernels with the estimate backend: --space
// auto resolves by the backend that measures (all+control on a GPU, mem under the estimate; a tune keeps
// yield on a GPU) and is recorded as the request; a climb that converges before its budget restarts from a
// perturbed best until the budget is spent, records its restarts, reports no gain from noise (a simulated
// GPU, noisy_evaluator.h), and resumes exactly across them.
#include "noisy_evaluator.h"
#include "search_test_support.h"

#include "core/search/search_state_writer.h"

#include <QtTest>

using namespace sassx;
using namespace sassx::search;

namespace {

// Small enough to converge within a few hundred estimate evaluations.
const QString kSample = QStringLiteral("rmsnorm");

SearchConfig climbConfig(SearchSpace space, int64_t evals, uint64_t seed = 1)
{
    SearchConfig c;
    c.algorithm = Algorithm::Climb;
    c.space = space;
    c.budgetEvals = evals;
    c.seed = seed;
    return c;
}

std::vector<int> restartSteps(const SearchState& s)
{
    std::vector<int> out;
    for (const auto& e : s.history)
        if (e.kind == "restart") out.push_back(e.step);
    return out;
}

QString climbText(const SearchState& s)
{
    return s.climb ? QString::fromStdString(nlohmann::json(*s.climb).dump()) : QStringLiteral("no climb");
}

// What a checkpoint must carry for a climb's restarts to continue exactly.
QString restartRecord(const SearchState& s)
{
    if (!s.climb) return QStringLiteral("no climb");
    const ClimbState& c = *s.climb;
    const nlohmann::json j{
        {"restarts", c.restarts},
        {"restart_seed", c.restartSeed ? nlohmann::json(*c.restartSeed) : nlohmann::json()},
        {"converged_evaluations", c.convergedEvaluations}};
    return QString::fromStdString(j.dump());
}

} // namespace

class TestSearchDefaults : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void autoSpaceResolvesByBackend_data()
    {
        QTest::addColumn<int>("rule");
        QTest::addColumn<bool>("measured");
        QTest::addColumn<QString>("space");
        QTest::newRow("search, estimate") << int(AutoSpace::Search) << false << "mem";
        QTest::newRow("search, GPU") << int(AutoSpace::Search) << true << "all+control";
        QTest::newRow("tune, estimate") << int(AutoSpace::Tune) << false << "mem";
        QTest::newRow("tune, GPU") << int(AutoSpace::Tune) << true << "yield";
    }
    void autoSpaceResolvesByBackend()
    {
        QFETCH(int, rule);
        QFETCH(bool, measured);
        QFETCH(QString, space);
        QCOMPARE(QString::fromStdString(spaceName(autoSpace(AutoSpace(rule), measured))), space);
        SearchConfig c = climbConfig(SearchSpace::Rescheduled, 10);
        c.autoSpace = AutoSpace(rule);
        c.resolveSpace(measured);
        QCOMPARE(QString::fromStdString(spaceName(c.space)), space);
        QCOMPARE(c.spaceRequested(), std::string("auto"));
        // The reason names its evidence: on a GPU a docs/status.md row, under the estimate the model's page.
        QVERIFY2(c.spaceReason().find(measured ? "docs/status.md, \""
                                               : "docs/search.md, \"Without a GPU\"") != std::string::npos,
                 c.spaceReason().c_str());
        QVERIFY(QString::fromStdString(c.describe()).contains(space + QStringLiteral(" (auto)")));
        // The checkpoint and the report keep both the space used and the request.
        const nlohmann::json j = toJson(c);
        QCOMPARE(QString::fromStdString(j.at("space").get<std::string>()), space);
        QCOMPARE(j.at("space_requested").get<std::string>(), std::string("auto"));
        auto back = searchConfigFromJson(j);
        QVERIFY2(back, back ? "" : back.message().c_str());
        QVERIFY(back->autoSpace == c.autoSpace && back->space == c.space);
        QVERIFY(toJson(*back) == j);
    }

    // A named space is what runs, whatever the backend; a configuration of an older run (no request
    // recorded) reads as named.
    void namedSpaceStays()
    {
        SearchConfig c = climbConfig(SearchSpace::All, 10);
        for (bool measured : {false, true}) {
            c.resolveSpace(measured);
            QCOMPARE(c.space, SearchSpace::All);
        }
        QCOMPARE(c.spaceRequested(), std::string("all"));
        QVERIFY(c.spaceReason().empty());
        nlohmann::json old = toJson(c);
        old.erase("space_requested");
        old.erase("auto_space");
        old.erase("climb_restarts");
        auto back = searchConfigFromJson(old);
        QVERIFY(back);
        QVERIFY(back->autoSpace == AutoSpace::Off);
        QVERIFY(back->climbRestarts);
    }

    // Budgets well past the climb's first convergence (the list phase and two fruitless rounds of a sweep
    // and its probes): the climb restarts from a perturbed best instead of stopping, and spends them.
    void climbRestartsUntilItsBudgetIsSpent_data()
    {
        QTest::addColumn<int>("space");
        QTest::addColumn<int>("budget");
        QTest::newRow("all") << int(SearchSpace::All) << 3000;
        QTest::newRow("mem") << int(SearchSpace::Mem) << 1500;
    }
    void climbRestartsUntilItsBudgetIsSpent()
    {
        REQUIRE_SAMPLE(kSample);
        QFETCH(int, space);
        QFETCH(int, budget);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const SearchState s = runOnce(*f, climbConfig(SearchSpace(space), budget));
        QCOMPARE(s.evaluations(), int64_t(budget));
        QVERIFY(s.finished);
        QCOMPARE(s.stopReason, std::optional<StopReason>(StopReason::Budget));
        QVERIFY2(s.restarts() >= 1, qPrintable(climbText(s)));
        QCOMPARE(s.refusedByCheck, 0);
        // Each restart is one evaluation of the best perturbed by 2-4 legal edits, recorded with the
        // evaluation count and time at which the climb had converged, and the seed it drew from.
        const std::vector<int> restarts = restartSteps(s);
        QCOMPARE(int(restarts.size()), s.restarts());
        QCOMPARE(int(s.climb->convergedEvaluations.size()), s.restarts());
        QCOMPARE(int(s.climb->convergedSeconds.size()), s.restarts());
        QVERIFY(s.climb->restartSeed.has_value());
        for (size_t i = 0; i < restarts.size(); ++i) {
            const SearchEvaluation& r = s.history[size_t(restarts[i])];
            QCOMPARE(s.climb->convergedEvaluations[i], int64_t(r.step));
            QVERIFY2(r.edits.size() >= 2 && r.edits.size() <= 8, qPrintable(QString::number(r.edits.size())));
            QVERIFY(f->kernel->check(s.editsOf(r.step)).legal());
            QCOMPARE(r.outcome, Outcome::Accepted);
        }
        // The best only ever rises, each time on a clearly better variant.
        double best = 1.0;
        for (const auto& e : s.history) {
            if (!e.best) continue;
            QVERIFY(e.figures.speedup > best);
            best = e.figures.speedup;
        }
        QCOMPARE(best, s.bestSpeedup);
        const QString said = QString::fromStdString(stopDescription(s));
        QVERIFY2(said.startsWith(QStringLiteral("budget spent after %1 restart").arg(s.restarts())) &&
                     said.contains(QStringLiteral("converged at")),
                 qPrintable(said));
    }

    // Without restarts (or where the best offers no legal edit) a converged climb ends there and says so.
    void climbWithoutRestartsEndsConverged()
    {
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        SearchConfig c = climbConfig(SearchSpace::Mem, 1500);
        c.climbRestarts = false;
        const SearchState s = runOnce(*f, c);
        QVERIFY(s.finished);
        QCOMPARE(s.stopReason, std::optional<StopReason>(StopReason::Converged));
        QVERIFY(s.evaluations() < 1500);
        QCOMPARE(s.restarts(), 0);
        QVERIFY(restartSteps(s).empty());
        QVERIFY(QString::fromStdString(stopDescription(s)).contains(QStringLiteral("restarts are off")));
        // The same run with restarts is the same run up to its convergence.
        const SearchState restarted = runOnce(*f, climbConfig(SearchSpace::Mem, 1500));
        QCOMPARE(trajectory(restarted).mid(0, int(s.evaluations())), trajectory(s));
        QCOMPARE(restartSteps(restarted).front(), int(s.evaluations()));
    }

    // On a simulated noisy GPU with identical candidates, restarts measure perturbed bests against the
    // original like every other candidate: none is ever reported as a gain, however many there are.
    void restartsUnderNoiseReportNothingFromNothing()
    {
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        NoisyEvaluator noisy(f->kernel->analysis(), [](const Schedule&) { return 100.0; });
        SearchEngine engine(f->kernel->checker(), noisy);
        QVERIFY(engine.start(climbConfig(SearchSpace::Mem, 1500, 5)));
        const SearchState s = engine.run();
        QCOMPARE(s.evaluations(), int64_t(1500));
        QCOMPARE(s.stopReason, std::optional<StopReason>(StopReason::Budget));
        QVERIFY2(s.restarts() >= 1, qPrintable(climbText(s)));
        QCOMPARE(s.best, -1);
        QCOMPARE(s.bestSpeedup, 1.0);
        for (int step : restartSteps(s))
            QVERIFY(s.history[size_t(step)].figures.reportable()); // measured against the original
    }

    // A run stopped before, at and after a restart and resumed from its (serialised) checkpoint ends
    // exactly where an uninterrupted run ends: same history, same best, same restarts and seeds.
    void resumesExactlyAcrossARestart_data()
    {
        QTest::addColumn<int>("offset"); // evaluations after the first restart (negative: before it)
        QTest::newRow("before the restart") << -1;
        QTest::newRow("at the restart") << 0;
        QTest::newRow("after the restart") << 5;
    }
    void resumesExactlyAcrossARestart()
    {
        REQUIRE_SAMPLE(kSample);
        QFETCH(int, offset);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const SearchConfig c = climbConfig(SearchSpace::Mem, 1500, 3);
        const SearchState whole = runOnce(*f, c);
        QVERIFY(whole.restarts() >= 2);
        const int stopAfter = restartSteps(whole).front() + 1 + offset;

        std::atomic_bool stop{false};
        SearchControl control;
        control.stop = &stop;
        std::string checkpoint;
        SearchCallbacks cb;
        cb.onEvaluation = [&](const SearchEvaluation& e, const SearchStatus&) {
            if (e.step + 1 >= stopAfter) stop = true;
        };
        SearchStateWriter writer;
        cb.onCheckpoint = [&](const SearchState& s) { checkpoint = writer.checkpointJson(s); };
        const SearchState half = runOnce(*f, c, control, cb);
        QVERIFY(!half.finished);
        QCOMPARE(half.evaluations(), int64_t(stopAfter));
        QCOMPARE(half.restarts(), offset < 0 ? 0 : 1);

        auto saved = searchStateFromJson(nlohmann::json::parse(checkpoint));
        QVERIFY2(saved, saved ? "" : saved.message().c_str());
        SearchEngine resumed(f->kernel->checker(), *f->evaluator);
        QVERIFY(resumed.resume(std::move(*saved)));
        const SearchState end = resumed.run();
        QVERIFY(end.finished);
        QCOMPARE(trajectory(end), trajectory(whole));
        QCOMPARE(end.best, whole.best);
        QCOMPARE(end.bestSpeedup, whole.bestSpeedup);
        QCOMPARE(restartRecord(end), restartRecord(whole));
    }
};

QTEST_GUILESS_MAIN(TestSearchDefaults)
#include "test_search_defaults.moc"
