// The PPO search (docs/ppo.md) with the libtorch plug-in and the estimate backend (deterministic): every
// action it takes is legal (the full check on every step's schedule), a seeded run is reproducible and
// resumes exactly from a checkpoint taken mid-rollout, a saved policy reloads and gives the same actions
// for the same state, and the agent improves the estimate within a budget. Skips when the plug-in was
// not built (no libtorch).
#include "noisy_evaluator.h"
#include "search_test_support.h"

#include "core/search/agent_loader.h"
#include "core/search/schedule_features.h"
#include "core/session/policy_advisor.h"
#include "core/session/search_policy.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

#include <fstream>

using namespace sassx;
using namespace sassx::search;

namespace {

// The PPO state as the checkpoint writes it (ppo_state.h; null when the strategy never began).
nlohmann::json agentJson(const SearchState& s)
{
    return s.agent ? nlohmann::json(*s.agent) : nlohmann::json();
}

const QString kSample = QStringLiteral("sgemm_leakyrelu");

#define REQUIRE_PLUGIN()                                                                                     \
    if (auto path = ppoPluginPath(); !path) QSKIP(path.message().c_str())

SearchConfig ppoConfig(SearchSpace space, int64_t evals, uint64_t seed = 1, int envs = 1)
{
    SearchConfig c;
    c.algorithm = Algorithm::Ppo;
    c.space = space;
    c.budgetEvals = evals;
    c.seed = seed;
    c.ppo.stepsPerUpdate = 32;
    c.ppo.episodeLength = 8;
    c.ppo.numEnvs = envs;
    // Every step measured, episodes from ptxas' schedule: the tests below follow their bases, and set
    // these where they test them.
    c.ppo.listSeed = false;
    c.ppo.startFromBest = 0.0;
    c.ppo.editsPerEvaluation = 1;
    c.ppo.improvingOnly = false;
    c.ppo.maxActions = 1024;
    return c;
}

// The engine's evaluator, with a record of every call's batch size, and a parallelism and kind of its
// own (a pool of GPUs as the automatic num_envs sees it).
class CountingEvaluator : public CandidateEvaluator
{
public:
    CountingEvaluator(CandidateEvaluator& inner, int parallel = 1, std::optional<eval::FigureKind> kind = {})
        : m_inner(inner), m_parallel(parallel), m_kind(kind)
    {
    }
    std::vector<eval::EvalResult> evaluate(const std::vector<Schedule>& schedules,
                                           const EvalRequest& request) override
    {
        batches.push_back(int(schedules.size()));
        return m_inner.evaluate(schedules, request);
    }
    int parallelism() const override { return m_parallel; }
    double noiseFloor() const override { return m_inner.noiseFloor(); }
    eval::FigureKind sourceKind() const override { return m_kind.value_or(m_inner.sourceKind()); }
    std::vector<int> batches;

private:
    CandidateEvaluator& m_inner;
    int m_parallel;
    std::optional<eval::FigureKind> m_kind;
};

std::unique_ptr<ScheduleAgent> agentFor(const SearchConfig& c)
{
    auto a = makePpoAgent(c.ppo, FeatureExtractor::kActionDim, FeatureExtractor::kStateDim, c.seed);
    if (!a) qFatal("agent: %s", a.message().c_str());
    return std::move(*a);
}

QStringList editTrajectory(const SearchState& s)
{
    QStringList out;
    for (const auto& e : s.history) {
        QString row = QStringLiteral("b%1").arg(e.base);
        for (const Edit& ed : e.edits)
            row += QStringLiteral(" ") + QString::fromStdString(ed.describe());
        out << row + QStringLiteral(" %1").arg(e.figures.speedup, 0, 'f', 9);
    }
    return out;
}

} // namespace

class TestPpoSearch : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void needsItsAgent()
    {
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        const Status s = engine.start(ppoConfig(SearchSpace::All, 10));
        QVERIFY(!s);
        QVERIFY2(QString::fromStdString(s.message()).contains("agent"), s.message().c_str());
    }

    void everyStepIsLegal_data()
    {
        QTest::addColumn<int>("space");
        QTest::addColumn<int>("envs");
        QTest::newRow("mem") << int(SearchSpace::Mem) << 1;
        QTest::newRow("all+control") << int(SearchSpace::AllControl) << 1;
        QTest::newRow("rescheduled") << int(SearchSpace::Rescheduled) << 1;
        QTest::newRow("all+control, 4 environments") << int(SearchSpace::AllControl) << 4;
    }
    void everyStepIsLegal()
    {
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        QFETCH(int, space);
        QFETCH(int, envs);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const SearchConfig c = ppoConfig(SearchSpace(space), 70, 1, envs);
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.start(c));
        const SearchState& s = engine.run();
        QCOMPARE(s.evaluations(), int64_t(70));
        QCOMPARE(s.refusedByCheck, 0);
        QVERIFY(agentJson(s).value("updates", 0) >= 2);
        // 70 evaluations in episodes of 8 edits: 8 episodes, or two for each of 4 environments.
        QVERIFY(agentJson(s).value("episodes", 0) >= (envs == 1 ? 8 : 2 * envs));
        QCOMPARE(agentJson(s).at("num_envs").get<int>(), envs);
        // The run's account of the strategy's own time (time_split.strategy_phases): every phase timed,
        // none overlapping the evaluator or one another.
        const SearchTimeSplit& t = engine.timeSplit();
        double phases = 0;
        for (const char* phase : {"observe", "act", "apply", "learn", "update"}) {
            QVERIFY2(t.strategySeconds.count(phase) && t.strategySeconds.at(phase) > 0, phase);
            phases += t.strategySeconds.at(phase);
        }
        QVERIFY2(phases <= t.runSeconds - t.evaluateSeconds - t.checkpointSeconds + 1e-6,
                 qPrintable(QStringLiteral("%1 s in phases, %2 s outside the evaluator")
                                .arg(phases)
                                .arg(t.runSeconds - t.evaluateSeconds - t.checkpointSeconds)));
        for (int i = 0; i < int(s.history.size()); ++i) {
            const SearchEvaluation& e = s.history[size_t(i)];
            QCOMPARE(QString::fromStdString(e.kind), QStringLiteral("ppo"));
            QVERIFY(e.figures.ok);
            // Episodes walk from ptxas' schedule: a base is the original or the environment's step before
            // (in lock-step, every environment's move measured: `envs` evaluations back).
            QVERIFY2(e.base == -1 || e.base == i - envs,
                     qPrintable(QStringLiteral("step %1 base %2").arg(i).arg(e.base)));
            auto schedule = f->kernel->schedule(s.editsOf(i));
            QVERIFY2(schedule, schedule ? "" : schedule.message().c_str());
            QVERIFY2(f->kernel->checker().check(*schedule).legal(),
                     qPrintable(QStringLiteral("step %1").arg(i)));
            if (SearchSpace(space) == SearchSpace::Mem)
                for (const Edit& ed : e.edits)
                    QCOMPARE(ed.kind, Edit::Kind::Move);
        }
    }

    void reproducibleAndResumesExactly_data()
    {
        // Both reward modes, normalised: the running statistics of the return travel in the checkpoint.
        // Several environments: each one's episode and return travel in the checkpoint, its transitions
        // carry its index, and episodes that start from the best draw with the search's engine.
        QTest::addColumn<int>("reward");
        QTest::addColumn<int>("envs");
        QTest::addColumn<double>("fromBest");
        QTest::addColumn<int>("editsPerEvaluation");
        QTest::addColumn<bool>("improvingOnly");
        QTest::newRow("step rewards") << int(RewardMode::Step) << 1 << 0.0 << 1 << false;
        QTest::newRow("episode rewards") << int(RewardMode::Episode) << 1 << 0.0 << 1 << false;
        QTest::newRow("4 environments, episode rewards")
            << int(RewardMode::Episode) << 4 << 0.0 << 1 << false;
        QTest::newRow("3 environments, step rewards, from the best")
            << int(RewardMode::Step) << 3 << 0.5 << 1 << false;
        // Walks between evaluations: the unmeasured edits travel in the checkpoint.
        QTest::newRow("2 environments, 2 edits per evaluation, from the best")
            << int(RewardMode::Episode) << 2 << 0.5 << 2 << false;
        // Steps that lose are undone: where each environment stands travels in the checkpoint.
        QTest::newRow("3 environments, 2 edits per evaluation, improving only")
            << int(RewardMode::Episode) << 3 << 0.5 << 2 << true;
    }
    void reproducibleAndResumesExactly()
    {
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        QFETCH(int, reward);
        QFETCH(int, envs);
        QFETCH(double, fromBest);
        QFETCH(int, editsPerEvaluation);
        QFETCH(bool, improvingOnly);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        SearchConfig c = ppoConfig(SearchSpace::AllControl, 90, 5, envs);
        c.ppo.improvingOnly = improvingOnly;
        c.ppo.reward = RewardMode(reward);
        c.ppo.normalizeReward = true;
        c.ppo.startFromBest = fromBest;
        c.ppo.editsPerEvaluation = editsPerEvaluation;
        auto straight = [&] {
            SearchEngine engine(f->kernel->checker(), *f->evaluator);
            engine.setAgent(agentFor(c));
            if (!engine.start(c)) qFatal("start");
            return engine.run();
        };
        const SearchState one = straight();
        QCOMPARE(editTrajectory(straight()), editTrajectory(one));
        // Each evaluation measures the walk since the environment's last one: edits_per_evaluation edits.
        for (const SearchEvaluation& e : one.history)
            QVERIFY(int(e.edits.size()) >= editsPerEvaluation);

        // Stopped 45 evaluations in (with several environments, at the end of that lock-step): 13 to 15
        // transitions into the second rollout.
        std::atomic_bool stop{false};
        SearchControl control;
        control.stop = &stop;
        SearchCallbacks cb;
        cb.onEvaluation = [&](const SearchEvaluation&, const SearchStatus& st) {
            if (st.evaluations >= 45) stop = true;
        };
        SearchState half;
        {
            SearchEngine engine(f->kernel->checker(), *f->evaluator);
            engine.setAgent(agentFor(c));
            QVERIFY(engine.start(c));
            half = engine.run(cb, control);
        }
        QVERIFY(half.evaluations() >= 45 && half.evaluations() < 45 + envs);
        const nlohmann::json halfAgent = agentJson(half);
        QVERIFY(!halfAgent.at("rollout").empty());
        QCOMPARE(agentJson(half).at("envs").size(), size_t(envs));
        QCOMPARE(agentJson(half).at("reward_norm").at("return").size(), size_t(envs));
        std::set<int> envsSeen;
        for (const auto& t : halfAgent.at("rollout"))
            envsSeen.insert(t.at("env").get<int>());
        QCOMPARE(int(envsSeen.size()), envs);
        // The estimate has no noise floor: rewards keep reward_scale's units.
        QCOMPARE(agentJson(half).at("reward_unit").get<double>(), c.ppo.rewardScale);
        // Every step's reward joined the normaliser's statistics (the count starts at 1e-4): one per
        // evaluation, and with walks between evaluations the unmeasured steps too.
        const double rewards = std::round(agentJson(half).at("reward_norm").at("count").get<double>());
        const double measured = double(half.evaluations() * editsPerEvaluation);
        QVERIFY(rewards >= measured && rewards < measured + envs * editsPerEvaluation);
        for (const auto& t : halfAgent.at("rollout")) {
            const double raw = t.at("raw_reward").get<double>(), given = t.at("reward").get<double>();
            // Episode rewards come only at an episode's end; a normalised reward keeps its sign.
            if (RewardMode(reward) == RewardMode::Episode && !t.at("end").get<bool>()) QCOMPARE(raw, 0.0);
            QVERIFY(std::abs(given) <= 10.0 && (raw > 0) == (given > 0) && (raw < 0) == (given < 0));
        }
        // Through JSON, as a checkpoint goes; the policy travels beside it.
        auto back = searchStateFromJson(toJson(half));
        QVERIFY(back);
        back->agentBytes = half.agentBytes;
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        SearchConfig other = ppoConfig(SearchSpace::AllControl, 90, 77, 1);
        other.ppo = c.ppo;
        engine.setAgent(agentFor(other)); // weights come from the file
        QVERIFY(engine.resume(std::move(*back)));
        const SearchState resumed = engine.run();
        // The update at 64 ran on the replayed rollout; the steps after it follow the updated policy,
        // so an equal trajectory to the end means an equal update.
        QCOMPARE(editTrajectory(resumed), editTrajectory(one));
        QCOMPARE(agentJson(resumed).at("updates"), agentJson(one).at("updates"));
        QCOMPARE(agentJson(resumed).at("reward_norm").dump(), agentJson(one).at("reward_norm").dump());
    }

    void checkpointOfOneEnvironmentResumesAsItRan()
    {
        // A checkpoint written before several environments existed (one episode at the top level of the
        // agent's state, one return, rollout records without an environment, settings without num_envs
        // or start_from_best) resumes as the run it came from continues.
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const SearchConfig c = ppoConfig(SearchSpace::All, 80, 4, 1);
        auto run = [&](const SearchCallbacks& cb = {}, const SearchControl& control = {}) {
            SearchEngine engine(f->kernel->checker(), *f->evaluator);
            engine.setAgent(agentFor(c));
            if (!engine.start(c)) qFatal("start");
            return engine.run(cb, control);
        };
        const SearchState one = run();
        std::atomic_bool stop{false};
        SearchControl control;
        control.stop = &stop;
        SearchCallbacks cb;
        cb.onEvaluation = [&](const SearchEvaluation&, const SearchStatus& st) {
            if (st.evaluations >= 37) stop = true;
        };
        const SearchState half = run(cb, control);
        QCOMPARE(half.evaluations(), int64_t(37));
        nlohmann::json j = toJson(half);
        nlohmann::json& a = j.at("agent");
        const nlohmann::json env = a.at("envs").at(0);
        QVERIFY(env.at("step").get<int>() > 0); // mid-episode
        a["episode_step"] = env.at("step");
        a["episode_base"] = env.at("base");
        a["episode_speedup"] = env.at("speedup");
        a.erase("envs");
        a.erase("num_envs");
        a["reward_norm"]["return"] = a.at("reward_norm").at("return").at(0);
        for (auto& t : a.at("rollout"))
            t.erase("env");
        j.at("config").at("ppo").erase("num_envs");
        j.at("config").at("ppo").erase("start_from_best");
        auto back = searchStateFromJson(j);
        QVERIFY2(back, back ? "" : back.message().c_str());
        QCOMPARE(back->config.ppo.numEnvs, 1);
        back->agentBytes = half.agentBytes;
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.resume(std::move(*back)));
        const SearchState resumed = engine.run();
        QCOMPARE(editTrajectory(resumed), editTrajectory(one));
        QCOMPARE(agentJson(resumed).at("reward_norm").dump(), agentJson(one).at("reward_norm").dump());

        // A checkpoint whose environments disagree with its count is refused in one line.
        nlohmann::json broken = toJson(half);
        broken["agent"]["num_envs"] = 3;
        auto bad = searchStateFromJson(broken);
        QVERIFY(bad);
        bad->agentBytes = half.agentBytes;
        SearchEngine refused(f->kernel->checker(), *f->evaluator);
        refused.setAgent(agentFor(c));
        const Status st = refused.resume(std::move(*bad));
        QVERIFY(!st);
        QVERIFY2(st.message().find("num_envs") != std::string::npos &&
                     st.message().find('\n') == std::string::npos,
                 st.message().c_str());
    }

    void aLockStepIsOneBatch()
    {
        // Every environment's candidate of a lock-step reaches the evaluator in one call (a pool measures
        // them on its GPUs at once); the last lock-step moves only as many environments as evaluations
        // are left, so the budget is met exactly.
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const SearchConfig c = ppoConfig(SearchSpace::All, 42, 2, 4);
        CountingEvaluator counting(*f->evaluator);
        SearchEngine engine(f->kernel->checker(), counting);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.start(c));
        const SearchState& s = engine.run();
        QCOMPARE(s.evaluations(), int64_t(42));
        std::vector<int> expected(10, 4);
        expected.push_back(2);
        QCOMPARE(counting.batches, expected);
        // steps_per_update counts transitions of all environments: 32 = 8 lock-steps of 4.
        QCOMPARE(agentJson(s).at("learning").size(), size_t(1));
        QCOMPARE(agentJson(s).at("learning").at(0).at("evaluations").get<int64_t>(), int64_t(32));

        // num_envs 0: one environment per GPU of the pool, 8 on the estimate.
        SearchConfig autoEnvs = c;
        autoEnvs.ppo.numEnvs = 0;
        autoEnvs.budgetEvals = 6;
        CountingEvaluator pool(*f->evaluator, 3, eval::FigureKind::Measured);
        SearchEngine onPool(f->kernel->checker(), pool);
        onPool.setAgent(agentFor(autoEnvs));
        QVERIFY(onPool.start(autoEnvs));
        QCOMPARE(agentJson(onPool.run()).at("num_envs").get<int>(), 3);
        QCOMPARE(pool.batches, (std::vector<int>{3, 3}));
        SearchEngine onEstimate(f->kernel->checker(), *f->evaluator);
        onEstimate.setAgent(agentFor(autoEnvs));
        QVERIFY(onEstimate.start(autoEnvs));
        QCOMPARE(agentJson(onEstimate.run()).at("num_envs").get<int>(), 8);
    }

    void episodesStartFromTheBest()
    {
        // start_from_best 1: after the first episode every episode starts from the best schedule found
        // before it (the original while there is none), and its first evaluation is based on it.
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        SearchConfig c = ppoConfig(SearchSpace::All, 60, 1, 1);
        c.ppo.episodeLength = 4;
        c.ppo.startFromBest = 1.0;
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.start(c));
        const SearchState& s = engine.run();
        QCOMPARE(s.evaluations(), int64_t(60));
        int best = -1, fromBest = 0;
        for (int i = 0; i < int(s.history.size()); ++i) {
            const SearchEvaluation& e = s.history[size_t(i)];
            if (i % 4 == 0) {
                QCOMPARE(e.base, best);
                fromBest += best >= 0;
            } else {
                QCOMPARE(e.base, i - 1);
            }
            if (e.best) best = i;
        }
        QVERIFY(fromBest >= 5);
    }

    void improvingOnlyUndoesTheStepsThatLose_data()
    {
        QTest::addColumn<bool>("measured");
        QTest::newRow("estimate") << false;
        // A simulated GPU (noisy_evaluator.h): a step must clear the noise floor to be kept.
        QTest::newRow("measured") << true;
    }
    void improvingOnlyUndoesTheStepsThatLose()
    {
        // improving_only: an evaluated step is kept (and the next one based on it) exactly when it is
        // faster than the schedule the episode stood on (measured: by more than the noise floor);
        // otherwise the episode stays there.
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        QFETCH(bool, measured);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        // Planted times: each displaced instruction makes the kernel 2% faster or slower (by its index),
        // so steps win and lose by more than the floor.
        const Schedule original = Schedule::identity(f->kernel->analysis());
        NoisyEvaluator noisy(f->kernel->analysis(), [&](const Schedule& x) {
            double t = 100.0;
            for (Position p : x.positions())
                if (x.order[p] != original.order[p]) t *= x.order[p].value() % 2 ? 0.98 : 1.02;
            return t;
        });
        CandidateEvaluator& evaluator = measured ? static_cast<CandidateEvaluator&>(noisy) : *f->evaluator;
        const double margin = measured ? noisy.noiseFloor() : 5e-5;
        SearchConfig c = ppoConfig(SearchSpace::All, 120, 3, 1);
        c.ppo.episodeLength = 6;
        c.ppo.improvingOnly = true;
        SearchEngine engine(f->kernel->checker(), evaluator);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.start(c));
        const SearchState& s = engine.run();
        QCOMPARE(s.evaluations(), int64_t(120));
        int kept = 0, undone = 0;
        int stand = -1; // the evaluation the episode stands on (-1: ptxas' schedule)
        double standSpeedup = 1.0;
        for (int i = 0; i < int(s.history.size()); ++i) {
            const SearchEvaluation& e = s.history[size_t(i)];
            if (i % 6 == 0) stand = -1, standSpeedup = 1.0; // every step measured: 6 per episode
            QCOMPARE(e.base, stand);
            const bool faster = e.figures.speedup > standSpeedup * (1.0 + margin);
            QCOMPARE(e.outcome == Outcome::Accepted, faster);
            if (faster) {
                stand = i;
                standSpeedup = e.figures.speedup;
                ++kept;
            } else {
                ++undone;
            }
        }
        QVERIFY2(kept > 0 && undone > 0,
                 qPrintable(QStringLiteral("%1 kept, %2 undone").arg(kept).arg(undone)));
    }

    void estimateBatchIsEstimatedAsOneByOne()
    {
        // The estimate backend estimates a batch on several threads; each figure equals the one a
        // candidate gets alone, against the original and paired against a reference.
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const EditProposer p(f->kernel->checker(), SearchSpace::All);
        std::mt19937_64 rng(11);
        std::vector<Schedule> schedules;
        for (int k = 0; k < 13; ++k) {
            Schedule s = Schedule::identity(f->kernel->analysis());
            p.propose(s, rng, 1 + k % 6);
            schedules.push_back(s);
        }
        EvalRequest plain;
        EvalRequest paired;
        paired.reference = &schedules[3];
        for (const EvalRequest& r : {plain, paired}) {
            const auto batch = f->evaluator->evaluate(schedules, r);
            QCOMPARE(batch.size(), schedules.size());
            std::set<double> distinct;
            for (size_t k = 0; k < schedules.size(); ++k) {
                const auto alone = f->evaluator->evaluate({schedules[k]}, r);
                QVERIFY(batch[k].timing && alone[0].timing);
                QCOMPARE(batch[k].timing->ratio.median, alone[0].timing->ratio.median);
                QCOMPARE(batch[k].timing->paired, alone[0].timing->paired);
                distinct.insert(batch[k].timing->ratio.median);
            }
            QVERIFY(distinct.size() > 3); // different schedules, different figures: not one answer copied
        }
    }

    void episodesStartFromTheListSchedule()
    {
        // list_seed: the list-schedule heuristics are evaluated first, as for the other searches, and
        // every episode starts from the best of them (sgemm_leakyrelu has one on the estimate).
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        SearchConfig c = ppoConfig(SearchSpace::All, 40, 1, 2);
        c.ppo.listSeed = true;
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.start(c));
        const SearchState& s = engine.run();
        QCOMPARE(s.evaluations(), int64_t(40));
        QVERIFY(s.start >= 0);
        QVERIFY(QString::fromStdString(s.history[size_t(s.start)].kind).startsWith("list:"));
        int fromStart = 0, ppo = 0;
        for (int i = 0; i < int(s.history.size()); ++i) {
            const SearchEvaluation& e = s.history[size_t(i)];
            if (QString::fromStdString(e.kind).startsWith("list:")) {
                QCOMPARE(ppo, 0); // the list phase comes first
                continue;
            }
            ++ppo;
            QVERIFY(e.base == s.start || (e.base > s.start && s.history[size_t(e.base)].kind == "ppo"));
            fromStart += e.base == s.start;
        }
        QVERIFY(ppo > 20);
        QVERIFY(fromStart >= 4); // both environments' first episodes and their second
    }

    void improvesTheEstimate()
    {
        // Within a budget of 300 estimates the run finds a schedule the model rates clearly faster. (So
        // does random search: whether the policy itself gets better is the write-up's question,
        // bench/results/ppo-estimate-*.md.)
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const SearchConfig c = ppoConfig(SearchSpace::All, 300);
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.start(c));
        const SearchState s = engine.run();
        QVERIFY2(s.best >= 0 && s.bestSpeedup > 1.0, qPrintable(QString::number(s.bestSpeedup)));
        QVERIFY(agentJson(s).at("learning").size() >= 9);
        // The policy moved away from uniform: the entropy of its last update is below the first's.
        const nlohmann::json l = agentJson(s).at("learning");
        QVERIFY(l.back().at("entropy").get<double>() < l.front().at("entropy").get<double>());
    }

    void savedPolicyGivesTheSameActions()
    {
        REQUIRE_PLUGIN();
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const SearchConfig c = ppoConfig(SearchSpace::All, 40, 3);
        SearchEngine engine(f->kernel->checker(), *f->evaluator);
        engine.setAgent(agentFor(c));
        QVERIFY(engine.start(c));
        const SearchState s = engine.run();
        QVERIFY(agentJson(s).value("updates", 0) >= 1);

        const auto& a = f->kernel->analysis();
        const EditProposer p(f->kernel->checker(), SearchSpace::All);
        const Schedule start = Schedule::identity(a);
        const Observation obs = FeatureExtractor(a).observe(start, p.legalActions(start), 0.0, 1.0);
        QTemporaryDir dir;
        const std::string path = (dir.path() + QStringLiteral("/policy.pt")).toStdString();
        std::ofstream(path, std::ios::binary) << s.agentBytes;
        auto warm =
            makePpoAgentFromFile(path, c.ppo, FeatureExtractor::kActionDim, FeatureExtractor::kStateDim, 99);
        QVERIFY2(warm, warm ? "" : warm.message().c_str());
        auto again =
            makePpoAgentFromFile(path, c.ppo, FeatureExtractor::kActionDim, FeatureExtractor::kStateDim, 1);
        QVERIFY(again);
        const auto p1 = (*warm)->probabilities(obs), p2 = (*again)->probabilities(obs);
        QCOMPARE(p1.size(), size_t(obs.count()));
        QVERIFY(p1 == p2);
        // A trained policy is no longer uniform, and a fresh one with another seed differs from it.
        const auto fresh = agentFor(ppoConfig(SearchSpace::All, 1, 99))->probabilities(obs);
        QVERIFY(fresh != p1);
        for (int k = 0; k < 20; ++k) {
            std::mt19937_64 r1{uint64_t(k)}, r2{uint64_t(k)};
            QCOMPARE((*warm)->act(obs, r1), (*again)->act(obs, r2));
        }

        // The GUI's suggestions: the policy's preferred legal edits of one instruction, shares that sum
        // to at most 1, most likely first; none for an instruction nothing may move.
        // One-off calls (they load the policy each time) for every third instruction, all of its edits:
        // each call loads the policy and scores the whole schedule, so every instruction would make this
        // function the suite's slowest on two cores.
        std::map<Position, std::vector<PolicySuggestion>> once;
        for (Position pos(0); pos < start.order.endIndex(); pos += 3) {
            auto sug = policySuggestions(*f->kernel, c, path, start, pos, 1000);
            QVERIFY2(sug, sug ? "" : sug.message().c_str());
            if (f->kernel->checker().isWall(start.order[pos])) QVERIFY(sug->empty());
            if (sug->empty()) continue;
            double total = 0;
            for (size_t k = 0; k < sug->size(); ++k) {
                const PolicySuggestion& x = (*sug)[k];
                QCOMPARE(x.edit.kind == Edit::Kind::Move ? x.edit.from : x.edit.at, pos);
                if (k) QVERIFY(x.share <= (*sug)[k - 1].share);
                total += x.share;
                if (k >= 3) continue; // the GUI shows the top 3: those are applied and checked
                Schedule t = start;
                QVERIFY(!p.applyAction(t, x.edit).empty());
                QVERIFY(f->kernel->checker().check(t).legal());
            }
            QVERIFY(std::abs(total - 1.0) < 1e-9);
            once[pos] = std::move(*sug);
        }
        QVERIFY(once.size() > 10);

        // The GUI's advisor keeps the policy and the schedule's scores between questions, answers as the
        // one-off calls did, and loads the file again once a run that goes on rewrites it.
        PolicyAdvisor advisor;
        auto sameAs = [](const std::vector<PolicySuggestion>& x, const std::vector<PolicySuggestion>& y) {
            if (x.size() != y.size()) return false;
            for (size_t k = 0; k < x.size(); ++k)
                if (!(x[k].edit == y[k].edit) || x[k].share != y[k].share) return false;
            return true;
        };
        Position widest = once.begin()->first; // several edits: their shares tell two policies apart
        for (const auto& [pos, sug] : once) {
            auto kept = advisor.suggestions(*f->kernel, c, path, start, pos, 1000);
            QVERIFY2(kept && sameAs(*kept, sug), qPrintable(QString::number(pos.value())));
            auto top = advisor.suggestions(*f->kernel, c, path, start, pos, 3);
            QVERIFY(top &&
                    sameAs(*top, {sug.begin(), sug.begin() + std::min<ptrdiff_t>(3, ptrdiff_t(sug.size()))}));
            if (sug.size() > once[widest].size()) widest = pos;
        }
        QVERIFY(once[widest].size() >= 2);
        std::ofstream(path, std::ios::binary | std::ios::trunc)
            << agentFor(ppoConfig(SearchSpace::All, 1, 99))->save();
        auto after = advisor.suggestions(*f->kernel, c, path, start, widest, 1000);
        QVERIFY(after);
        QVERIFY2(!sameAs(*after, once[widest]), "the advisor kept a policy whose file was rewritten");
        auto reloaded = policySuggestions(*f->kernel, c, path, start, widest, 1000);
        QVERIFY(reloaded && sameAs(*after, *reloaded));

        // What does not fit is refused in one line.
        PpoSettings wide = c.ppo;
        wide.hidden = 32;
        auto mismatch =
            makePpoAgentFromFile(path, wide, FeatureExtractor::kActionDim, FeatureExtractor::kStateDim, 1);
        QVERIFY(!mismatch);
        QVERIFY2(QString::fromStdString(mismatch.message()).contains("32"), mismatch.message().c_str());
        std::ofstream(path, std::ios::binary) << "not a policy";
        auto garbage =
            makePpoAgentFromFile(path, c.ppo, FeatureExtractor::kActionDim, FeatureExtractor::kStateDim, 1);
        QVERIFY(!garbage);
        QVERIFY(garbage.message().find('\n') == std::string::npos);
        QVERIFY(!makePpoAgentFromFile(path + ".missing", c.ppo, FeatureExtractor::kActionDim,
                                      FeatureExtractor::kStateDim, 1));
    }
};

QTEST_GUILESS_MAIN(TestPpoSearch)
#include "test_ppo_search.moc"
