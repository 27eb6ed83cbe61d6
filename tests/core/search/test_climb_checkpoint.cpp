// Climbing's state (climb_state.h) through the checkpoint: data/climb_checkpoint.json was written by
// the build whose climb kept its state as a JSON object of string keys (rmsnorm, mem space, seed 3, one
// sweep to converge, stopped at 300 of 500 evaluations, in a probe phase after one restart). It must
// read into the struct with every value it had, write back the same keys and values, and resume to
// exactly the end of an uninterrupted run of its configuration.
#include "search_test_support.h"

#include "core/search/climb_state.h"
#include "core/search/search_state.h"

#include <QFile>
#include <QtTest>

using namespace sassx;
using namespace sassx::search;

namespace {

nlohmann::json readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return nullptr;
    return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

std::vector<int> restartSteps(const SearchState& s)
{
    std::vector<int> out;
    for (const auto& e : s.history)
        if (e.kind == "restart") out.push_back(e.step);
    return out;
}

} // namespace

class TestClimbCheckpoint : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void phasesParse_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("phase"); // -1: refused
        QTest::newRow("sweep") << "sweep" << int(ClimbPhase::Sweep);
        QTest::newRow("probe") << "probe" << int(ClimbPhase::Probe);
        QTest::newRow("capitalised") << "Sweep" << -1;
        QTest::newRow("empty") << "" << -1;
    }
    void phasesParse()
    {
        QFETCH(QString, name);
        QFETCH(int, phase);
        const auto parsed = parseClimbPhase(name.toStdString());
        QCOMPARE(parsed.has_value(), phase >= 0);
        if (parsed) QCOMPARE(QString::fromStdString(climbPhaseName(*parsed)), name);
    }

    // A state with every field set survives its JSON; an empty object (a climb that had not begun)
    // reads as the defaults; a wrong type or an unknown phase is refused, not guessed.
    void stateRoundTrips()
    {
        ClimbState s;
        s.phase = ClimbPhase::Probe;
        s.sweepSeed = 18446744073709551557ULL; // above INT64_MAX: kept unsigned
        s.position = 12;
        s.turn = 23;
        s.probesLeft = 160;
        s.accepted = true;
        s.fruitless = 1;
        s.incumbent = 236;
        s.restarts = 2;
        s.restartSeed = 3705767131410935050ULL;
        s.convergedSeconds = {0.5, 1.25};
        s.convergedEvaluations = {219, 460};
        const nlohmann::json j = s;
        QCOMPARE(j.get<ClimbState>(), s);
        QCOMPARE(nlohmann::json::object().get<ClimbState>(), ClimbState{});
        QVERIFY(!nlohmann::json(ClimbState{}).contains("sweep_seed"));

        nlohmann::json bad = j;
        bad["phase"] = "descend";
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::exception, (void)bad.get<ClimbState>());
        bad = j;
        bad["position"] = "twelve";
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::exception, (void)bad.get<ClimbState>());
        // ... and the checkpoint reader turns that into its one-line error.
        SearchState state;
        state.config.budgetEvals = 10;
        state.climb = s;
        nlohmann::json checkpoint = toJson(state);
        checkpoint["climb"]["phase"] = "descend";
        const auto read = searchStateFromJson(checkpoint);
        QVERIFY(!read);
        QVERIFY2(QString::fromStdString(read.message()).contains(QStringLiteral("climb phase")),
                 read.message().c_str());
        QVERIFY(read.message().find('\n') == std::string::npos);
    }

    void olderCheckpointReads()
    {
        const nlohmann::json file = readJson(QStringLiteral(SASSX_TESTDATA_DIR "/climb_checkpoint.json"));
        QVERIFY(file.is_object());
        auto saved = searchStateFromJson(file);
        QVERIFY2(saved, saved ? "" : saved.message().c_str());
        QVERIFY(saved->climb.has_value());
        const ClimbState& c = *saved->climb;
        QCOMPARE(c.phase, ClimbPhase::Probe);
        QCOMPARE(c.position, uint64_t(12));
        QCOMPARE(c.turn, int64_t(23));
        QCOMPARE(c.probesLeft, int64_t(160));
        QCOMPARE(c.incumbent, 236);
        QCOMPARE(c.restarts, 1);
        QCOMPARE(c.sweepSeed, std::optional<uint64_t>(4076515279430864583ULL));
        QCOMPARE(c.restartSeed, std::optional<uint64_t>(3705767131410935050ULL));
        QCOMPARE(c.convergedEvaluations, std::vector<int64_t>{219});
        QCOMPARE(saved->restarts(), 1);
        QCOMPARE(saved->stopReason, std::optional<StopReason>(StopReason::Stopped));
        // Written back, every key the older build wrote keeps its value.
        const nlohmann::json back = toJson(*saved).at("climb");
        for (const auto& [key, value] : file.at("climb").items())
            QVERIFY2(back.contains(key) && back.at(key) == value, key.c_str());
    }

    void olderCheckpointResumesExactly()
    {
        REQUIRE_SAMPLE(QStringLiteral("rmsnorm"));
        auto f = SearchFixture::open(QStringLiteral("rmsnorm"));
        QVERIFY2(f->error.empty(), f->error.c_str());
        auto saved =
            searchStateFromJson(readJson(QStringLiteral(SASSX_TESTDATA_DIR "/climb_checkpoint.json")));
        QVERIFY2(saved, saved ? "" : saved.message().c_str());
        const SearchConfig config = saved->config;
        QCOMPARE(saved->evaluations(), int64_t(300));
        QCOMPARE(config.budgetEvals, int64_t(500));

        const SearchState whole = runOnce(*f, config);
        QCOMPARE(whole.evaluations(), int64_t(500));
        // The older build's first 300 evaluations are this build's.
        QCOMPARE(trajectory(*saved), trajectory(whole).mid(0, 300));

        SearchEngine resumed(f->kernel->checker(), *f->evaluator);
        QVERIFY(resumed.resume(std::move(*saved)));
        const SearchState end = resumed.run();
        QVERIFY(end.finished);
        QCOMPARE(end.stopReason, std::optional<StopReason>(StopReason::Budget));
        QCOMPARE(trajectory(end), trajectory(whole));
        QCOMPARE(end.best, whole.best);
        QCOMPARE(end.bestSpeedup, whole.bestSpeedup);
        QVERIFY(restartSteps(end).size() >= 2); // the resumed part restarted again
        QCOMPARE(restartSteps(end), restartSteps(whole));
        // All of the climb's state but the wall-clock times of its convergences.
        ClimbState endClimb = *end.climb, wholeClimb = *whole.climb;
        QCOMPARE(endClimb.convergedSeconds.size(), wholeClimb.convergedSeconds.size());
        endClimb.convergedSeconds.clear();
        wholeClimb.convergedSeconds.clear();
        QCOMPARE(endClimb, wholeClimb);
    }
};

QTEST_GUILESS_MAIN(TestClimbCheckpoint)
#include "test_climb_checkpoint.moc"
