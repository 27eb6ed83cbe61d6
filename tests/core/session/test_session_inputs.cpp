// What a front end hands the workspace from the outside world, read in one place for the CLI and the
// GUI: a GPU list (core/session/gpu_list.h), a PPO settings file (ppo_setup.h), a stall profile file
// (kernel_stalls.h), and stall samples of a whole cubin (KernelEvaluator::stallsOfCubin). Bad input is a
// one-line error naming what was wrong, never a crash.
#include "core/session/gpu_list.h"
#include "core/session/kernel_evaluator.h"
#include "core/session/kernel_stalls.h"
#include "core/session/ppo_setup.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace sassx;

namespace {

bool oneLine(const std::string& message)
{
    return !message.empty() && message.find('\n') == std::string::npos;
}

bool writeText(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    return bool(out);
}

const char* kStalls = SASSX_SOURCE_DIR "/tests/data/stalls/rmsnorm.h100.stalls.json";

} // namespace

class TestSessionInputs : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    std::string tmp(const char* name) const { return m_tmp.filePath(QLatin1String(name)).toStdString(); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void gpuList()
    {
        EvaluatorOptions o;
        QVERIFY(setGpuList(o, "0,2"));
        QCOMPARE(o.gpus, (std::vector<int>{0, 2}));
        // A bad entry: one line naming it, and the options keep the list they had.
        const Status bad = setGpuList(o, "1,x");
        QVERIFY(!bad);
        QVERIFY2(oneLine(bad.message()) && bad.message().find('x') != std::string::npos,
                 bad.message().c_str());
        QCOMPARE(o.gpus, (std::vector<int>{0, 2}));
    }

    // Keys over the preset; the preset named in the file is kept; errors name the file.
    void ppoSettingsFile()
    {
        const std::string good = tmp("ppo.json");
        QVERIFY(writeText(good, R"({"hidden": 32, "epochs": 3})"));
        search::SearchConfig c;
        const Status read = readPpoSettings(good, c);
        QVERIFY2(read, read ? "" : read.message().c_str());
        QCOMPARE(c.ppo.hidden, 32);
        QCOMPARE(c.ppo.epochs, 3);
        QCOMPARE(c.ppo.gamma, search::PpoSettings{}.gamma); // untouched keys keep the preset's
        QCOMPARE(c.ppoPreset, std::string("sassx"));

        const std::string unknownPreset = tmp("preset.json");
        QVERIFY(writeText(unknownPreset, R"({"preset": "no-such-preset"})"));
        for (const std::string& path : {unknownPreset, tmp("missing.json")}) {
            search::SearchConfig d;
            const Status s = readPpoSettings(path, d);
            QVERIFY(!s);
            QVERIFY2(oneLine(s.message()) && s.message().find(path) != std::string::npos,
                     s.message().c_str());
        }
        const std::string notJson = tmp("not.json");
        QVERIFY(writeText(notJson, "{hidden: 32"));
        search::SearchConfig d;
        QVERIFY(!readPpoSettings(notJson, d));
        QVERIFY(oneLine(readPpoSettings(notJson, d).message()));
    }

    void ppoPlugin()
    {
        // Built with libtorch or not, the answer is a path or one line saying why none loads.
        const auto plugin = ppoPluginPath();
        if (plugin)
            QVERIFY(QFileInfo::exists(QString::fromStdString(*plugin)));
        else
            QVERIFY2(oneLine(plugin.message()), plugin.message().c_str());
    }

    // A bare profile (as the worker writes it) and `sassx-cli stalls --json` output read the same.
    void stallProfileFiles()
    {
        auto bare = readStallProfile(kStalls);
        QVERIFY2(bare, bare ? "" : bare.message().c_str());
        QCOMPARE(bare->kernel, std::string("rmsnorm"));
        QVERIFY(!bare->pcs.empty());

        std::ifstream in(kStalls);
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        const std::string wrapped = tmp("wrapped.json");
        QVERIFY(writeText(wrapped, R"({"spec": "rmsnorm", "kernel": "rmsnorm", "profile": )" + text + "}"));
        auto fromCli = readStallProfile(wrapped);
        QVERIFY2(fromCli, fromCli ? "" : fromCli.message().c_str());
        QCOMPARE(fromCli->kernel, bare->kernel);
        QCOMPARE(fromCli->pcs.size(), bare->pcs.size());

        const std::string garbage = tmp("garbage.json");
        QVERIFY(writeText(garbage, "not json at all"));
        for (const std::string& path : {garbage, tmp("absent.json"), m_tmp.path().toStdString()}) {
            auto r = readStallProfile(path);
            QVERIFY(!r);
            QVERIFY2(oneLine(r.message()) && r.message().find(path) != std::string::npos,
                     r.message().c_str());
        }
    }

    // Samples of a whole cubin: with a GPU, the kernel's; without one (the estimate), one line saying why.
    void stallsOfCubin()
    {
        const QString cubin = QStringLiteral(SASSX_SAMPLES_DIR "/rmsnorm.sm_90.cubin");
        const QString spec = QStringLiteral(SASSX_SAMPLES_DIR "/rmsnorm.launch.json");
        if (!QFileInfo::exists(cubin) || !QFileInfo::exists(spec)) QSKIP("samples missing (no nvcc?)");
        auto ws = Workspace::open(cubin.toStdString());
        QVERIFY2(ws, ws ? "" : ws.message().c_str());
        auto k = (*ws)->kernel();
        QVERIFY2(k, k ? "" : k.message().c_str());
        auto launch = eval::loadLaunchSpec(spec.toStdString());
        QVERIFY2(launch, launch ? "" : launch.message().c_str());
        auto choice = makeEvaluator(EvaluatorOptions{});
        QVERIFY2(choice, choice ? "" : choice.message().c_str());
        KernelEvaluator kev(*k, *choice, *launch);
        auto profile = kev.stallsOfCubin((*k)->cubin().bytes());
        if (profile)
            QCOMPARE(profile->kernel, (*k)->name());
        else
            QVERIFY2(oneLine(profile.message()), profile.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestSessionInputs)
#include "test_session_inputs.moc"
