// Can the PPO agent learn at all? (docs/ppo.md, "Learnability".) A synthetic environment over a real
// kernel's legal actions, on the CPU in seconds: episodes walk from ptxas' schedule by the agent's
// choices among the legal edits of the all+control space, exactly as the search offers them, but the
// reward is planted: +1 for a yield flip on an FP32 (FMA-pipe) instruction, 0 for anything else, plus
// Gaussian noise of a GPU measurement's size in reward units (a 0.4% noise floor × reward_scale 100).
// An agent that learns puts more and more of its choices on the rewarded class while its policy's
// entropy falls; one that does not stays at the share a uniform choice gets.
#include "search_test_support.h"

#include "core/search/agent_loader.h"
#include "core/search/ppo_config.h"
#include "core/search/schedule_features.h"
#include "core/search/search_space.h"

#include <QFile>
#include <QtTest>

#include <array>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

using namespace sassx;
using namespace sassx::search;

namespace {

const QString kSample = QStringLiteral("sgemm_leakyrelu");

struct Learning
{
    double uniformShare = 0; // rewarded share of the legal actions at the start (what chance gets)
    double firstShare = 0;   // rewarded share of the agent's choices in the first rollout
    double lastShare = 0;    // ... and in the last
    double firstEntropy = 0; // the policy's entropy at the first update
    double lastEntropy = 0;  // ... and at the last
    double maxApproxKl = 0;  // the largest approx-KL of any update
    double maxClipFraction = 0;
    int updates = 0;
    std::vector<std::array<double, 4>> curve; // per update: step, rewarded share, entropy, approx-KL
    double updateSeconds = 0;
};

bool rewarded(const KernelAnalysis& a, const Schedule& s, const Edit& e)
{
    return e.kind == Edit::Kind::Control && e.yield && !e.stall && !e.reuse &&
           a.listing.instructions[s.order[e.at].value()].cls == InstrClass::Fma;
}

// `steps` agent steps with `settings`; every choice and draw seeded. The legal actions are those of
// ptxas' schedule (a seeded subset of settings.maxActions when there are more), the same rows at every
// step: what is learned is which rows pay, the question this test asks. Episodes still end every
// episode_length steps, so the returns are the search's.
Learning learn(const KernelWorkspace& kernel, const PpoSettings& settings, int steps, uint64_t seed)
{
    const KernelAnalysis& a = kernel.analysis();
    const EditProposer proposer(kernel.checker(), SearchSpace::AllControl);
    const FeatureExtractor features(a);
    auto agent = makePpoAgent(settings, FeatureExtractor::kActionDim, FeatureExtractor::kStateDim, seed);
    if (!agent) qFatal("agent: %s", agent.message().c_str());
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, 0.004 * settings.rewardScale);
    const Schedule start = Schedule::identity(a);
    std::vector<Edit> actions = proposer.legalActions(start);
    if (int(actions.size()) > settings.maxActions) {
        std::shuffle(actions.begin(), actions.end(), rng);
        actions.resize(size_t(settings.maxActions));
    }
    std::vector<bool> pays(actions.size());
    Learning out;
    for (size_t i = 0; i < actions.size(); ++i) {
        pays[i] = rewarded(a, start, actions[i]);
        out.uniformShare += pays[i] ? 1.0 / double(actions.size()) : 0.0;
    }
    std::vector<Observation> byStep;
    for (int k = 0; k <= settings.episodeLength; ++k)
        byStep.push_back(features.observe(start, actions, double(k) / double(settings.episodeLength), 1.0));
    int episodeStep = 0, windowHits = 0, windowSteps = 0;
    for (int step = 0; step < steps; ++step) {
        const int pick = (*agent)->act(byStep[size_t(episodeStep)], rng);
        const bool hit = pays[size_t(pick)];
        windowHits += hit;
        ++windowSteps;
        const bool end = ++episodeStep >= settings.episodeLength;
        (*agent)->reward((hit ? 1.0 : 0.0) + noise(rng), end);
        if (end) episodeStep = 0;
        if ((*agent)->pending() >= settings.stepsPerUpdate) {
            const auto t0 = std::chrono::steady_clock::now();
            const UpdateStats u = (*agent)->update(byStep[size_t(episodeStep)], rng);
            out.updateSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const double share = double(windowHits) / double(windowSteps);
            if (u.updates == 1) {
                out.firstShare = share;
                out.firstEntropy = u.entropy;
            }
            out.lastShare = share;
            out.lastEntropy = u.entropy;
            out.maxApproxKl = std::max(out.maxApproxKl, u.approxKl);
            out.maxClipFraction = std::max(out.maxClipFraction, u.clipFraction);
            out.updates = u.updates;
            out.curve.push_back({double(step + 1), share, u.entropy, u.approxKl});
            windowHits = windowSteps = 0;
        }
    }
    return out;
}

} // namespace

class TestPpoLearnability : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // 1,024 steps (16 updates of 64), 256 legal actions shown, seed 7; about half a minute on CI's two
    // cores. "learns": the rewarded share of the last rollout's choices reaches 25% (from ~5% by chance)
    // and the policy's entropy falls by a nat or more. CuAsmRL's settings do neither: its policy does
    // not move (docs/ppo.md, "Learnability", has the curves).
    void plantedRewardIsLearned_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("learns");
        QTest::newRow("sassx (the default)") << QStringLiteral("sassx") << true;
        QTest::newRow("cuasmrl") << QStringLiteral("cuasmrl") << false;
    }
    void plantedRewardIsLearned()
    {
        if (auto path = ppoPluginPath(); !path) QSKIP(path.message().c_str());
        REQUIRE_SAMPLE(kSample);
        QFETCH(QString, preset);
        QFETCH(bool, learns);
        auto f = SearchFixture::open(kSample);
        QVERIFY2(f->error.empty(), f->error.c_str());
        auto settings = ppoPreset(preset.toStdString());
        QVERIFY(settings);
        settings->maxActions = 256;
        settings->stepsPerUpdate = 64; // the rollout this test chose the update with (docs/ppo.md)
        const int steps = qEnvironmentVariableIsSet("SASSX_LEARN_STEPS")
                              ? qEnvironmentVariableIntValue("SASSX_LEARN_STEPS")
                              : 1024;
        const Learning l = learn(*f->kernel, *settings, steps, 7);
        const QString summary =
            QString::asprintf("uniform share %.3f; agent %.3f -> %.3f over %d updates; entropy %.3f -> %.3f; "
                              "max approx-KL %.2g, max clip fraction %.3f; %.1f s in updates",
                              l.uniformShare, l.firstShare, l.lastShare, l.updates, l.firstEntropy,
                              l.lastEntropy, l.maxApproxKl, l.maxClipFraction, l.updateSeconds);
        qInfo("%s", qPrintable(summary));
        // The curve for docs/ppo.md (docs/results/ppo-learnability/make_plot.py draws it).
        if (const QString dir = qEnvironmentVariable("SASSX_LEARN_CSV_DIR"); !dir.isEmpty()) {
            QFile csv(dir + "/" + preset + ".csv");
            QVERIFY(csv.open(QIODevice::WriteOnly | QIODevice::Text));
            csv.write("step,rewarded_share,entropy,approx_kl\n");
            for (const auto& [step, share, entropy, kl] : l.curve)
                csv.write(QString::asprintf("%.0f,%.4f,%.4f,%.6f\n", step, share, entropy, kl).toUtf8());
        }
        QVERIFY2(l.uniformShare > 0.005 && l.uniformShare < 0.1, qPrintable(summary)); // a rare class
        QCOMPARE(l.updates, steps / settings->stepsPerUpdate);
        const bool learned = l.lastShare >= 0.25 && l.firstEntropy - l.lastEntropy >= 1.0;
        QVERIFY2(learned == learns, qPrintable(summary));
        if (!learns) {
            // Not merely slow: the policy hardly moved. Its share stays within rollout noise of chance (a
            // 64-step rollout's share has a spread of about sqrt(p(1-p)/64), over half of p at p ~ 5%), its
            // entropy within a fifth of a nat of the start, and no ratio was ever clipped.
            QVERIFY2(l.lastShare < 3 * l.uniformShare && l.firstEntropy - l.lastEntropy < 0.2,
                     qPrintable(summary));
            QVERIFY2(l.maxClipFraction == 0.0, qPrintable(summary));
        }
    }
};

QTEST_GUILESS_MAIN(TestPpoLearnability)
#include "test_ppo_learnability.moc"
