// The race (core/eval/race.h) on simulated rounds: a clear loser and a neutral candidate are dropped in
// the screen, a clear winner is confirmed on fresh rounds only, a candidate just short of the bar is not
// confirmed, and a failing measurement ends the race with its message.
#include "core/eval/race.h"

#include <QtTest>

#include <random>

using namespace sassx::eval;

namespace {

struct Simulated
{
    double ratio = 1.0; // true candidate / reference
    double sigma = 0.004;
    std::mt19937_64 rng{11};
    int calls = 0, freshCalls = 0, rounds = 0;
    RaceMeasure measure()
    {
        return [this](int n, bool fresh, std::vector<double>& a, std::vector<double>& b) {
            ++calls;
            freshCalls += fresh ? 1 : 0;
            rounds += n;
            std::normal_distribution<double> noise(0.0, sigma);
            for (int i = 0; i < n; ++i) {
                a.push_back(100.0 * (1.0 + noise(rng)));
                b.push_back(100.0 * ratio * (1.0 + noise(rng)));
            }
            return std::optional<std::string>();
        };
    }
};

RacePlan plan(double marginPercent)
{
    RacePlan p;
    p.bar = 1.0 / (1.0 + marginPercent / 100.0);
    return p;
}

} // namespace

class TestRace : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void decides_data()
    {
        QTest::addColumn<double>("speedup"); // true speed-up of the candidate
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<double>("meanRounds"); // rounds it may cost on average over the seeds
        QTest::newRow("clear loser") << 0.95 << "dropped" << 4.0;
        // Half stop after the first stage; rarely one looks past the bar and is refused by fresh rounds.
        QTest::newRow("neutral") << 1.0 << "!won" << 10.0;
        QTest::newRow("small gain under the bar") << 1.001 << "!won" << 16.0;
        QTest::newRow("clear winner") << 1.03 << "won" << 4.0 + 24.0;
    }
    void decides()
    {
        QFETCH(double, speedup);
        QFETCH(QString, outcome);
        QFETCH(double, meanRounds);
        // Over many seeds, not one lucky draw.
        int agree = 0, rounds = 0;
        for (uint64_t seed = 1; seed <= 40; ++seed) {
            Simulated sim;
            sim.rng.seed(seed);
            sim.ratio = 1.0 / speedup;
            const RaceRun run = runRace(plan(0.3), sim.measure());
            QVERIFY(!run.error);
            // Never more than the whole screen and the whole confirmation.
            QVERIFY2(sim.rounds <= 16 + 24, qPrintable(QStringLiteral("%1 rounds").arg(sim.rounds)));
            rounds += sim.rounds;
            const QString got = QString::fromStdString(raceOutcomeName(run.result.outcome));
            if (outcome.startsWith('!') ? got != outcome.mid(1) : got == outcome) ++agree;
            if (run.result.outcome == RaceOutcome::Won) {
                // Judged on fresh rounds alone, each stage on fresh instances.
                QVERIFY(run.result.confirmed);
                QCOMPARE(run.result.ratio.rounds, run.result.confirmationRounds);
                QVERIFY(run.result.ratio.high < plan(0.3).bar);
                QVERIFY(sim.freshCalls >= 3);
            }
        }
        QVERIFY2(rounds <= meanRounds * 40, qPrintable(QStringLiteral("%1 rounds in all").arg(rounds)));
        // A neutral candidate may survive a screen by luck but must never win.
        if (outcome == QStringLiteral("won") || outcome.startsWith('!'))
            QCOMPARE(agree, 40);
        else
            QVERIFY2(agree >= 38, qPrintable(QStringLiteral("%1 of 40").arg(agree)));
    }

    void neutralNeverWins()
    {
        int won = 0;
        for (uint64_t seed = 1; seed <= 500; ++seed) {
            Simulated sim;
            sim.rng.seed(seed);
            won += runRace(plan(0.3), sim.measure()).result.outcome == RaceOutcome::Won ? 1 : 0;
        }
        QCOMPARE(won, 0);
    }

    void failureEndsTheRace()
    {
        int calls = 0;
        const RaceRun run = runRace(plan(0.3), [&](int, bool, std::vector<double>&, std::vector<double>&) {
            ++calls;
            return std::optional<std::string>("illegal address");
        });
        QCOMPARE(calls, 1);
        QVERIFY(run.error);
        QCOMPARE(QString::fromStdString(*run.error), QStringLiteral("illegal address"));
    }

    void planRoundTripsThroughJson()
    {
        RacePlan p = plan(0.5);
        p.firstRounds = 6;
        p.confirmRounds = 30;
        const RacePlan q = racePlanFromJson(toJson(p));
        QCOMPARE(q.bar, p.bar);
        QCOMPARE(q.firstRounds, 6);
        QCOMPARE(q.confirmRounds, 30);
        QVERIFY(!racePlanFromJson(nlohmann::json::object()).enabled());
    }
};

QTEST_GUILESS_MAIN(TestRace)
#include "test_race.moc"
