// What the learning agent sees (core/search/schedule_features.h) and its action set
// (EditProposer::legalActions) on a real sample kernel, and the PPO settings file (ppo_config.h). None
// of it needs libtorch.
#include "search_test_support.h"

#include "core/search/ppo_config.h"
#include "core/search/schedule_features.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace sassx;
using namespace sassx::search;

namespace {

const QString kSample = QStringLiteral("sgemm_leakyrelu");
constexpr int kI = FeatureExtractor::kInstructionDim;

} // namespace

class TestScheduleFeatures : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void actionsAreTheLegalEditsOfTheSpace_data()
    {
        QTest::addColumn<int>("space");
        QTest::newRow("mem") << int(SearchSpace::Mem);
        QTest::newRow("all") << int(SearchSpace::All);
        QTest::newRow("yield") << int(SearchSpace::Yield);
        QTest::newRow("all+control") << int(SearchSpace::AllControl);
        QTest::newRow("rescheduled") << int(SearchSpace::Rescheduled);
    }
    void actionsAreTheLegalEditsOfTheSpace()
    {
        REQUIRE_SAMPLE(kSample);
        QFETCH(int, space);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const LegalityChecker& checker = f->kernel->checker();
        const EditProposer p(checker, SearchSpace(space));
        const Schedule s = Schedule::identity(f->kernel->analysis());
        const auto actions = p.legalActions(s);
        QVERIFY(!actions.empty());
        const bool moves = spaceHasMoves(SearchSpace(space)), control = spaceHasControl(SearchSpace(space));
        int applied = 0, refused = 0;
        for (size_t k = 0; k < actions.size(); k += 1 + actions.size() / 60) {
            const Edit& a = actions[k];
            QVERIFY(moves || a.kind == Edit::Kind::Control);
            QVERIFY(control || a.kind == Edit::Kind::Move);
            if (SearchSpace(space) == SearchSpace::Mem)
                QVERIFY(f->kernel->analysis().listing.instructions[s.order[a.from].value()].isMemory());
            Schedule t = s;
            const auto edits = p.applyAction(t, a);
            if (edits.empty()) {
                // Only the rescheduled space lists order-legal moves whose codes may not derive.
                QCOMPARE(SearchSpace(space), SearchSpace::Rescheduled);
                QVERIFY(t.order == s.order);
                ++refused;
                continue;
            }
            ++applied;
            QVERIFY2(checker.check(t).legal(), qPrintable(QString::fromStdString(a.describe())));
        }
        QVERIFY(applied > refused);
        // The non-rescheduled move lists are exactly the checker's legal moves.
        if (moves && SearchSpace(space) != SearchSpace::Rescheduled) {
            size_t n = 0;
            for (const Edit& a : actions)
                n += a.kind == Edit::Kind::Move;
            QCOMPARE(n, checker.legalMoves(s, SearchSpace(space) == SearchSpace::Mem).size());
        }
    }

    // The agent's rows (EditProposer::sampleActions) are drawn from every position's reachable range and
    // tested one at a time; they must be exactly the legal actions when there are few enough, and
    // otherwise a subset of them, in their order, fixed by the seed and uniform over them (a sampler that
    // drew from the untested candidates would over-show control edits, which are all legal).
    void controlEditsAfterAMoveAreDrawnAsFromTheList()
    {
        // After a move, propose draws control edits one instruction at a time instead of listing a whole
        // block's: every edit drawn must be one the checker lists, and kinds must come in the list's
        // proportions (a draw by instruction without the acceptance step would favour instructions with
        // few edits, so yield flips over reuse flips).
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const auto& checker = f->kernel->checker();
        Schedule s = Schedule::identity(f->kernel->analysis());
        std::mt19937_64 rng(11);
        QVERIFY(!EditProposer(checker, SearchSpace::All).propose(s, rng, 4).empty());
        const EditProposer p(checker, SearchSpace::AllControl);
        const auto legal = checker.legalControlEdits(s, ControlSpace::YieldAndReuse);
        QVERIFY(legal.size() > 40);
        auto key = [](const Edit& e) {
            return std::vector<uint32_t>{e.at.value(), e.yield.value_or(99), e.reuse.value_or(99),
                                         e.stall.value_or(99)};
        };
        std::set<std::vector<uint32_t>> listed;
        size_t listedYield = 0;
        for (const Edit& e : legal) {
            listed.insert(key(e));
            listedYield += e.yield.has_value();
        }
        size_t drawn = 0, yields = 0;
        std::set<std::vector<uint32_t>> seen;
        for (int k = 0; k < 6000; ++k) {
            Schedule t = s;
            std::vector<InstrId> edited;
            const auto e = p.proposeControlAfterMove(t, rng, edited);
            if (!e) continue;
            QVERIFY2(listed.count(key(*e)),
                     qPrintable("not listed: " + QString::fromStdString(e->describe())));
            QCOMPARE(edited.size(), size_t(1));
            ++drawn;
            yields += e->yield.has_value();
            seen.insert(key(*e));
        }
        QVERIFY(drawn > 5000);
        QVERIFY(seen.size() > legal.size() / 2);
        const double shown = double(yields) / double(drawn),
                     share = double(listedYield) / double(legal.size());
        QVERIFY2(
            std::abs(shown - share) < 0.04,
            qPrintable(QStringLiteral("yield flips: %1 of the draws, %2 of the list").arg(shown).arg(share)));
    }

    void sampledActionsAreAUniformSubsetOfTheLegalOnes_data() { actionsAreTheLegalEditsOfTheSpace_data(); }
    void sampledActionsAreAUniformSubsetOfTheLegalOnes()
    {
        REQUIRE_SAMPLE(kSample);
        QFETCH(int, space);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const EditProposer p(f->kernel->checker(), SearchSpace(space));
        Schedule s = Schedule::identity(f->kernel->analysis());
        std::mt19937_64 rng(7);
        p.propose(s, rng, 6); // away from ptxas' schedule
        const auto all = p.legalActions(s);
        QVERIFY(all.size() > 40);
        QVERIFY(p.sampleActions(s, all.size(), 3) == all);
        QVERIFY(p.sampleActions(s, all.size() + 100, 3) == all);
        const size_t max = 20;
        std::map<std::vector<uint32_t>, size_t> where; // an action's index in `all`
        auto key = [](const Edit& e) {
            return std::vector<uint32_t>{uint32_t(e.kind),    e.from.value(),       e.to.value(),
                                         e.at.value(),        e.stall.value_or(99), e.yield.value_or(99),
                                         e.reuse.value_or(99)};
        };
        for (size_t k = 0; k < all.size(); ++k)
            where[key(all[k])] = k;
        size_t moves = 0, drawn = 0;
        std::set<std::vector<size_t>> distinct;
        const int seeds = 300;
        for (int seed = 0; seed < seeds; ++seed) {
            const auto sample = p.sampleActions(s, max, uint64_t(seed));
            QCOMPARE(sample.size(), max);
            QVERIFY(p.sampleActions(s, max, uint64_t(seed)) == sample);
            std::vector<size_t> idx;
            for (const Edit& e : sample) {
                auto it = where.find(key(e));
                QVERIFY2(it != where.end(), qPrintable("not legal: " + QString::fromStdString(e.describe())));
                QVERIFY(idx.empty() || it->second > idx.back()); // in legalActions' order
                idx.push_back(it->second);
                moves += e.kind == Edit::Kind::Move;
                ++drawn;
            }
            distinct.insert(idx);
        }
        QVERIFY(distinct.size() > size_t(seeds) * 9 / 10);
        size_t allMoves = 0;
        for (const Edit& e : all)
            allMoves += e.kind == Edit::Kind::Move;
        // The share of moves shown matches the legal set's: 6,000 draws put the share within ~0.7 points
        // (one standard deviation) of it; 4 points is far outside chance.
        const double shown = double(moves) / double(drawn), legal = double(allMoves) / double(all.size());
        QVERIFY2(std::abs(shown - legal) < 0.04,
                 qPrintable(QStringLiteral("moves: %1 of the rows shown, %2 of the legal actions")
                                .arg(shown)
                                .arg(legal)));
    }

    // The proposer keeps each block's legal control edits by the block's content (a move changes one
    // block): whatever it has met before, its answer for a schedule must be the checker's own.
    void controlEditsKeptPerBlockAreTheCheckers_data()
    {
        QTest::addColumn<int>("space");
        QTest::addColumn<int>("control");
        QTest::newRow("all+control") << int(SearchSpace::AllControl) << int(ControlSpace::YieldAndReuse);
        QTest::newRow("rescheduled") << int(SearchSpace::Rescheduled) << int(ControlSpace::All);
    }
    void controlEditsKeptPerBlockAreTheCheckers()
    {
        REQUIRE_SAMPLE(kSample);
        QFETCH(int, space);
        QFETCH(int, control);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const LegalityChecker& checker = f->kernel->checker();
        const EditProposer p(checker, SearchSpace(space));
        const Schedule start = Schedule::identity(f->kernel->analysis());
        // Four walkers from one start, met in turn, as lock-step environments are.
        std::vector<Schedule> walkers(4, start);
        std::mt19937_64 rng(11);
        int compared = 0;
        for (int step = 0; step < 6; ++step)
            for (Schedule& w : walkers) {
                p.propose(w, rng, 2);
                std::vector<Edit> mine;
                for (const Edit& e : p.legalActions(w))
                    if (e.kind == Edit::Kind::Control) mine.push_back(e);
                QVERIFY(mine == checker.legalControlEdits(w, ControlSpace(control)));
                QVERIFY(!mine.empty());
                ++compared;
            }
        QCOMPARE(compared, 24);
    }

    // The agent's rows are judged one position at a time and kept by block content; a block whose yield
    // or reuse bits changed at a few positions inherits the others' edits from its last content. Along
    // an agent's walk (its own actions, some undone, as improving walks do), every row must be legal by
    // the checker's own lists, and with room for all, the rows must be exactly those lists. A stale
    // position (an edit the walk just took, still offered) fails the second comparison.
    void sampledRowsFollowAWalk()
    {
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const LegalityChecker& checker = f->kernel->checker();
        const EditProposer p(checker, SearchSpace::AllControl);
        auto key = [](const Edit& e) {
            return std::vector<uint32_t>{uint32_t(e.kind),    e.from.value(),       e.to.value(),
                                         e.at.value(),        e.stall.value_or(99), e.yield.value_or(99),
                                         e.reuse.value_or(99)};
        };
        Schedule w = Schedule::identity(f->kernel->analysis());
        Schedule before = w;
        std::mt19937_64 rng(5);
        int controlSteps = 0, undone = 0;
        for (int step = 0; step < 24; ++step) {
            std::set<std::vector<uint32_t>> legal;
            for (const auto& [from, to] : checker.legalMoves(w, false))
                legal.insert(key(Edit::move(from, to)));
            for (const Edit& e : checker.legalControlEdits(w, ControlSpace::YieldAndReuse))
                legal.insert(key(e));
            const auto rows = p.sampleActions(w, 40, uint64_t(step));
            QCOMPARE(rows.size(), size_t(40));
            for (const Edit& e : rows)
                QVERIFY2(legal.count(key(e)),
                         qPrintable("not legal: " + QString::fromStdString(e.describe())));
            std::set<std::vector<uint32_t>> all;
            for (const Edit& e : p.sampleActions(w, legal.size() + 10, uint64_t(step)))
                all.insert(key(e));
            QVERIFY2(all == legal, qPrintable(QStringLiteral("step %1: %2 rows, %3 legal actions")
                                                  .arg(step)
                                                  .arg(all.size())
                                                  .arg(legal.size())));
            // Mostly control edits (what the inheritance serves), a move every fourth step, and every
            // fifth step undone.
            std::vector<Edit> pick;
            for (const Edit& e : rows)
                if ((e.kind == Edit::Kind::Control) == (step % 4 != 3)) pick.push_back(e);
            QVERIFY(!pick.empty());
            if (step % 5 == 4) {
                w = before;
                ++undone;
                continue;
            }
            before = w;
            const Edit a = pick[std::uniform_int_distribution<size_t>(0, pick.size() - 1)(rng)];
            QVERIFY(!p.applyAction(w, a).empty());
            controlSteps += a.kind == Edit::Kind::Control;
        }
        QVERIFY(controlSteps >= 10);
        QVERIFY(undone >= 4);
    }

    void rowsDescribeTheEditedInstructions()
    {
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const auto& a = f->kernel->analysis();
        const EditProposer p(f->kernel->checker(), SearchSpace::AllControl);
        const FeatureExtractor x(a);
        Schedule s = Schedule::identity(a);
        const auto actions = p.legalActions(s);
        const Observation o = x.observe(s, actions, 0.25, 1.02);
        QCOMPARE(o.count(), int(actions.size()));
        QCOMPARE(o.actionDim, FeatureExtractor::kActionDim);
        QCOMPARE(int(o.state.size()), FeatureExtractor::kStateDim);
        QCOMPARE(o.state[0], 0.25f);
        QCOMPARE(o.state[1], 0.2f);
        QCOMPARE(o.state[2], 0.0f); // nothing displaced yet
        const auto rows = x.instructionRows(s);
        bool sawMove = false, sawYield = false;
        std::set<std::vector<float>> identities;
        constexpr int kC = FeatureExtractor::kClassCount;
        for (int k = 0; k < o.count(); ++k) {
            const Edit& e = actions[size_t(k)];
            const float* r = o.actions.data() + size_t(k) * size_t(o.actionDim);
            const Position at = e.kind == Edit::Kind::Move ? e.from : e.at;
            for (int d = 0; d < kI; ++d)
                QCOMPARE(r[d], rows[size_t(at.value()) * kI + size_t(d)]);
            const float* tail = r + 2 * kI;
            // The edited instruction's identity: its opcode class, block and position in the kernel.
            const float* id = tail + 7;
            const InstrId i = s.order[at];
            for (int c = 0; c < kC; ++c)
                QCOMPARE(id[c], c == int(a.listing.instructions[i.value()].cls) ? 1.0f : 0.0f);
            QCOMPARE(id[kC], float(a.cfg.blockOf[i.value()]) / float(a.cfg.blocks.size() - 1));
            QCOMPARE(id[kC + 1], float(at.value()) / float(s.order.size() - 1));
            identities.insert(std::vector<float>(id, id + FeatureExtractor::kIdentityDim));
            if (e.kind == Edit::Kind::Move) {
                sawMove = true;
                for (int d = 0; d < kI; ++d)
                    QCOMPARE(r[kI + d], rows[size_t(e.to.value()) * kI + size_t(d)]);
                QCOMPARE(tail[2], 1.0f);
                QCOMPARE(tail[0] > 0, e.to > e.from);
            } else if (e.yield) {
                sawYield = true;
                QCOMPARE(tail[3], 1.0f);
                QCOMPARE(tail[6], float(*e.yield));
                QCOMPARE(r[8], float(s.control[s.order[e.at]].yield)); // the bit before the flip
            }
        }
        QVERIFY(sawMove && sawYield);
        QVERIFY(a.cfg.blocks.size() > 1);
        QVERIFY(identities.size() > 50); // actions on different instructions do not look alike
        // Every instruction is in exactly one class group; a move shows up as displacement.
        for (size_t p2 = 0; p2 < s.order.size(); ++p2) {
            float groups = 0;
            for (int d = 0; d < 7; ++d)
                groups += rows[p2 * kI + size_t(d)];
            QCOMPARE(groups, 1.0f);
        }
        const Edit move = *std::find_if(actions.begin(), actions.end(), [](const Edit& e) {
            return e.kind == Edit::Kind::Move && e.to > e.from + 1;
        });
        p.applyAction(s, move);
        const auto moved = x.instructionRows(s);
        QVERIFY(moved[size_t(move.to.value()) * kI + 17] > 0);
        QVERIFY(x.observe(s, actions, 0.0, 1.0).state[2] > 0);
    }

    void scheduleHashNamesTheSchedule()
    {
        // It seeds the rows shown when there are more legal actions than max_actions: equal schedules
        // give equal seeds (the same rows), one edit gives another.
        REQUIRE_SAMPLE(kSample);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        const auto& a = f->kernel->analysis();
        const EditProposer p(f->kernel->checker(), SearchSpace::AllControl);
        const Schedule s = Schedule::identity(a);
        QCOMPARE(scheduleHash(s), scheduleHash(Schedule::identity(a)));
        const auto actions = p.legalActions(s);
        // Different schedules, different seeds (two moves may give one schedule: an adjacent swap).
        std::map<uint64_t, Schedule> seen{{scheduleHash(s), s}};
        for (size_t k = 0; k < actions.size(); k += 1 + actions.size() / 40) {
            Schedule t = s;
            if (p.applyAction(t, actions[k]).empty()) continue;
            Schedule again = s;
            p.applyAction(again, actions[k]);
            QCOMPARE(scheduleHash(again), scheduleHash(t));
            auto [it, fresh] = seen.emplace(scheduleHash(t), t);
            QVERIFY2(fresh || (it->second.order == t.order && it->second.control == t.control),
                     actions[k].describe().c_str());
        }
        QVERIFY(seen.size() > 20);
    }

    void ppoSettingsRead_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("error"); // empty: accepted
        QTest::newRow("empty") << "{}"
                               << "";
        QTest::newRow("preset key") << R"({"preset": "cuasmrl", "epochs": 8})"
                                    << "";
        QTest::newRow("comment") << R"({"// why": "longer episodes", "episode_length": 32})"
                                 << "";
        QTest::newRow("unknown key") << R"({"learning_rat": 0.1})"
                                     << "unknown PPO setting 'learning_rat'";
        QTest::newRow("text value") << R"({"gamma": "high"})"
                                    << "takes a number";
        QTest::newRow("clip range") << R"({"clip": 1.5})"
                                    << "clip must be in (0, 1)";
        QTest::newRow("minibatches") << R"({"steps_per_update": 8, "minibatches": 9})"
                                     << "minibatches";
        QTest::newRow("episode rewards") << R"({"reward": "episode", "normalize_reward": false})"
                                         << "";
        QTest::newRow("reward mode") << R"({"reward": "final"})"
                                     << "'reward' takes \"step\" or \"episode\"";
        QTest::newRow("reward as number") << R"({"reward": 1})"
                                          << "'reward' takes";
        QTest::newRow("normalise flag") << R"({"normalize_reward": 1})"
                                        << "takes true or false";
        QTest::newRow("environments") << R"({"num_envs": 4, "start_from_best": 0.25})"
                                      << "";
        QTest::newRow("automatic environments") << R"({"num_envs": 0})"
                                                << "";
        QTest::newRow("negative environments") << R"({"num_envs": -1})"
                                               << "num_envs must be in [0, 1024]";
        QTest::newRow("too many environments") << R"({"num_envs": 5000})"
                                               << "num_envs must be in [0, 1024]";
        QTest::newRow("environments as text") << R"({"num_envs": "all"})"
                                              << "'num_envs' takes a number";
        QTest::newRow("start from best range") << R"({"start_from_best": 1.5})"
                                               << "start_from_best must be in [0, 1]";
        QTest::newRow("improving only") << R"({"improving_only": true, "edits_per_evaluation": 2})"
                                        << "";
        QTest::newRow("improving only as number") << R"({"improving_only": 1})"
                                                  << "takes true or false";
        QTest::newRow("not object") << "[1]"
                                    << "JSON object";
    }
    void ppoSettingsRead()
    {
        QFETCH(QString, json);
        QFETCH(QString, error);
        auto s = ppoSettingsFromJson(nlohmann::json::parse(json.toStdString()));
        if (error.isEmpty()) {
            QVERIFY2(s, s ? "" : s.message().c_str());
            auto back = ppoSettingsFromJson(toJson(*s));
            QVERIFY(back);
            QCOMPARE(toJson(*back), toJson(*s));
        } else {
            QVERIFY(!s);
            QVERIFY2(QString::fromStdString(s.message()).contains(error), s.message().c_str());
        }
    }

    void cuasmrlPresetHasThePublishedSettings()
    {
        auto p = ppoPreset("cuasmrl");
        QVERIFY(p);
        QCOMPARE(p->learningRate, 2.5e-4);
        QCOMPARE(p->gamma, 0.99);
        QCOMPARE(p->lambda, 0.95);
        QCOMPARE(p->clip, 0.2);
        QCOMPARE(p->stepsPerUpdate, 64);
        QCOMPARE(p->epochs, 4);
        QCOMPARE(p->targetKl, 0.0);
        QVERIFY(p->reward == RewardMode::Step && !p->normalizeReward);
        // The default moves its policy (test_ppo_learnability): more learning per sample, a KL stop.
        auto d = ppoPreset("sassx");
        QVERIFY(d);
        QCOMPARE(toJson(*d), toJson(PpoSettings{}));
        QCOMPARE(d->learningRate, 1e-3);
        QCOMPARE(d->epochs, 10);
        QCOMPARE(d->targetKl, 0.05);
        // ... and the walks the estimate table chose (docs/ppo.md): half the rollout, 4 edits per
        // measurement, half the episodes from the best, the list schedule as the start; CuAsmRL's none.
        QCOMPARE(d->stepsPerUpdate, p->stepsPerUpdate / 2);
        QCOMPARE(d->editsPerEvaluation, 4);
        QCOMPARE(p->editsPerEvaluation, 1);
        QCOMPARE(d->startFromBest, 0.5);
        QCOMPARE(p->startFromBest, 0.0);
        QVERIFY(d->listSeed && !p->listSeed);
        QCOMPARE(p->maxActions, 1024);
        QVERIFY(!ppoPreset("fast"));
        // A search configuration keeps its settings through a checkpoint.
        SearchConfig c;
        c.algorithm = Algorithm::Ppo;
        c.budgetEvals = 10;
        c.ppo.episodeLength = 7;
        auto back = searchConfigFromJson(toJson(c));
        QVERIFY(back);
        QCOMPARE(back->algorithm, Algorithm::Ppo);
        QCOMPARE(back->ppo.episodeLength, 7);
        // A checkpoint of a run from before the reward settings resumes as it ran: step rewards,
        // unnormalised.
        auto old = toJson(c);
        old["ppo"].erase("reward");
        old["ppo"].erase("normalize_reward");
        auto before = searchConfigFromJson(old);
        QVERIFY(before);
        QVERIFY(before->ppo.reward == RewardMode::Step && !before->ppo.normalizeReward);
        // ... and one from before several environments as one environment, every step measured, episodes
        // from ptxas' schedule.
        for (const char* key :
             {"num_envs", "start_from_best", "list_seed", "edits_per_evaluation", "improving_only"})
            old["ppo"].erase(key);
        auto single = searchConfigFromJson(old);
        QVERIFY(single);
        QCOMPARE(single->ppo.numEnvs, 1);
        QCOMPARE(single->ppo.editsPerEvaluation, 1);
        QCOMPARE(single->ppo.startFromBest, 0.0);
        QVERIFY(!single->ppo.listSeed);
        QVERIFY(!single->ppo.improvingOnly);
        c.guide = ProposalGuide::Stalls;
        QVERIFY(!c.validate());
    }
};

QTEST_GUILESS_MAIN(TestScheduleFeatures)
#include "test_schedule_features.moc"
