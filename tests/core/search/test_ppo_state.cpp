// PPO's state through the checkpoint (ppo_state.h), without the libtorch plug-in: every field survives
// its JSON, a checkpoint from before several environments reads as one environment's, a wrong value is
// refused rather than guessed, and the reward normaliser follows CleanRL's running statistics.
#include "core/search/ppo_state.h"
#include "core/search/search_state.h"

#include <QtTest>

#include <cmath>

using namespace sassx;
using namespace sassx::search;

namespace {

Edit moveEdit(Position from, Position to)
{
    Edit e;
    e.kind = Edit::Kind::Move;
    e.from = from;
    e.to = to;
    return e;
}

PpoState fullState()
{
    PpoState s;
    s.numEnvs = 2;
    s.envs = {PpoEpisode::from(-1, 1.0), PpoEpisode::from(4, 1.02)};
    s.envs[1].step = 3;
    s.envs[1].edits = {moveEdit(Position(11), Position(14))};
    s.episodes = 7;
    s.updates = 2;
    PpoTransition t;
    t.env = 1;
    t.base = 4;
    t.walked = {moveEdit(Position(11), Position(14))};
    t.episodeStep = 2;
    t.speedup = 1.02;
    t.subsetSeed = 18446744073709551557ULL;
    t.action = 5;
    t.evaluation = 9;
    t.rawReward = 0.5;
    t.reward = 0.25;
    t.end = true;
    s.rollout = {t};
    PpoUpdateRecord r;
    r.stats.updates = 2;
    r.stats.epochs = 4;
    r.stats.entropy = 1.5;
    r.evaluations = 64;
    s.learning = {r};
    s.rewardUnit = 250.0;
    s.rewardUnitIs = "noise floors";
    s.rewardNorm = RewardNormaliser::fresh(2);
    s.agent = "PPO (test)";
    return s;
}

bool sameState(const PpoState& a, const PpoState& b)
{
    return nlohmann::json(a) == nlohmann::json(b) && a.envs == b.envs && a.rollout == b.rollout &&
           a.rewardNorm == b.rewardNorm && a.rewardUnit == b.rewardUnit;
}

} // namespace

class TestPpoState : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrips()
    {
        const PpoState s = fullState();
        const nlohmann::json j = s;
        for (const char* key : {"num_envs", "envs", "episodes", "updates", "rollout", "learning",
                                "reward_unit", "reward_unit_is", "reward_norm", "agent"})
            QVERIFY2(j.contains(key), key);
        const PpoState back = j.get<PpoState>();
        QVERIFY(sameState(back, s));
        QCOMPARE(back.rollout.at(0).subsetSeed, 18446744073709551557ULL);
        QCOMPARE(back.envs.at(1).edits.size(), size_t(1));
        QCOMPARE(back.learning.at(0).evaluations, int64_t(64));
        QCOMPARE(back.learning.at(0).stats.entropy, 1.5);
        // Through a whole checkpoint; a run of another algorithm has none (null).
        SearchState state;
        state.config.budgetEvals = 10;
        QVERIFY(toJson(state).at("agent").is_null());
        state.agent = s;
        auto read = searchStateFromJson(toJson(state));
        QVERIFY2(read, read ? "" : read.message().c_str());
        QVERIFY(read->agent && sameState(*read->agent, s));
    }

    // Before several environments: one episode at the top level, one return, rollout records without
    // an environment, and (before reward units) no reward_unit or reward_norm.
    void singleEnvironmentCheckpointReads()
    {
        nlohmann::json j = fullState();
        j.erase("envs");
        j.erase("num_envs");
        j.erase("reward_unit");
        j.erase("reward_unit_is");
        j["episode_step"] = 3;
        j["episode_base"] = 4;
        j["episode_speedup"] = 1.02;
        j["reward_norm"]["return"] = 0.75;
        j["rollout"][0].erase("env");
        const PpoState s = j.get<PpoState>();
        QCOMPARE(s.numEnvs, 1);
        QCOMPARE(s.envs.size(), size_t(1));
        QCOMPARE(s.envs[0].step, 3);
        QCOMPARE(s.envs[0].base, 4);
        QCOMPARE(s.envs[0].speedup, 1.02);
        QCOMPARE(s.envs[0].startSpeedup, 1.0); // those episodes started from the original
        QCOMPARE(s.rewardNorm->returns, std::vector<double>{0.75});
        QCOMPARE(s.rollout.at(0).env, 0);
        QVERIFY(!s.rewardUnit);
        j.erase("reward_norm");
        QVERIFY(!j.get<PpoState>().rewardNorm);
    }

    void wrongValuesAreRefused_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value"); // JSON
        QTest::newRow("envs not a list") << "/envs"
                                         << R"("two")";
        QTest::newRow("episode step text") << "/envs/0/step"
                                           << R"("3")";
        QTest::newRow("unreadable edits") << "/envs/1/edits"
                                          << R"([{"jump": 3}])";
        QTest::newRow("rollout without action") << "/rollout/0/action"
                                                << "null";
        QTest::newRow("return not a number") << "/reward_norm/return"
                                             << R"("none")";
    }
    void wrongValuesAreRefused()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        nlohmann::json j = fullState();
        j[nlohmann::json::json_pointer(pointer.toStdString())] = nlohmann::json::parse(value.toStdString());
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::exception, (void)j.get<PpoState>());
        // The checkpoint reader says so in one line.
        SearchState state;
        state.config.budgetEvals = 10;
        nlohmann::json checkpoint = toJson(state);
        checkpoint["agent"] = j;
        const auto read = searchStateFromJson(checkpoint);
        QVERIFY(!read);
        QVERIFY(read.message().find('\n') == std::string::npos);
    }

    // CleanRL's NormalizeReward: the discounted return joins a running mean and variance (count ε,
    // mean 0, var 1 at the start), the reward is divided by the running std and clipped to ±10, and an
    // episode's end restarts its environment's return.
    void normaliserFollowsRunningStatistics()
    {
        RewardNormaliser n = RewardNormaliser::fresh(2);
        QCOMPARE(n.count, 1e-4);
        QCOMPARE(n.mean, 0.0);
        QCOMPARE(n.var, 1.0);
        // Statistics of ten returns so far, so that the first reward is not clipped: return 2.
        n.count = 10.0;
        const double gamma = 0.5;
        const double total = 11.0, delta = 2.0;
        const double var = (1.0 * 10.0 + delta * delta * 10.0 / total) / total;
        QCOMPARE(n.normalise(0, gamma, 2.0, false), 2.0 / std::sqrt(var + 1e-8));
        QCOMPARE(n.count, total);
        QCOMPARE(n.mean, delta / total);
        QCOMPARE(n.var, var);
        QCOMPARE(n.returns, (std::vector<double>{2.0, 0.0}));
        // Environment 1 has its own return; environment 0's discounts and then restarts at its end.
        n.normalise(1, gamma, -1.0, false);
        QCOMPARE(n.returns, (std::vector<double>{2.0, -1.0}));
        n.normalise(0, gamma, 1.0, true);
        QCOMPARE(n.returns, (std::vector<double>{0.0, -1.0}));
        QCOMPARE(n.count, total + 2.0);
        // A huge reward against small statistics is clipped.
        RewardNormaliser tiny = RewardNormaliser::fresh(1);
        tiny.var = 1e-12;
        tiny.count = 1e9;
        QCOMPARE(tiny.normalise(0, gamma, 5.0, false), 10.0);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, tiny.normalise(3, gamma, 1.0, false));
    }
};

QTEST_GUILESS_MAIN(TestPpoState)
#include "test_ppo_state.moc"
