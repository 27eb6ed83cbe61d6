// The workspace without widgets: one pipeline from input to checker, cubin and evaluator, with the
// cubin writer's walls in the checker and one-line errors for bad input.
#include "core/estimate/estimate_evaluator.h"
#include "core/eval/launch_spec.h"
#include "core/rewrite/patch_limits.h"
#include "core/session/input_loader.h"
#include "core/session/kernel_evaluator.h"
#include "core/session/kernel_stalls.h"
#include "core/session/schedule_exports.h"
#include "core/session/session_file.h"
#include "core/session/workspace.h"

#include "../sass/test_common.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>

using namespace sassx;

namespace {

QString sample(const QString& name)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1").arg(name);
}

#define REQUIRE_FILE(path)                                                                                   \
    if (!QFileInfo::exists(path)) QSKIP(qPrintable(QStringLiteral("sample missing (no nvcc?): ") + (path)))

bool oneLine(const std::string& message)
{
    return !message.empty() && message.find('\n') == std::string::npos;
}

} // namespace

class TestWorkspace : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Every sample kernel: the checker carries exactly the writer's walls (so nothing it allows is then
    // refused by the writer), and every legal single move writes a cubin.
    void checkerHasWriterWalls_data()
    {
        QTest::addColumn<QString>("cubin");
        for (const QString& c : sampleCubins())
            QTest::newRow(qPrintable(QFileInfo(c).fileName())) << c;
    }
    void checkerHasWriterWalls()
    {
        QFETCH(QString, cubin);
        auto ws = Workspace::open(cubin.toStdString());
        QVERIFY2(ws, ws ? "" : ws.message().c_str());
        for (const std::string& name : (*ws)->kernelNames()) {
            auto k = (*ws)->kernel(name);
            QVERIFY2(k, k ? "" : k.message().c_str());
            const KernelWorkspace& kw = **k;
            QCOMPARE(kw.key(), name);
            const Kernel* kernel = kw.cubin().findKernel(kw.name());
            QVERIFY(kernel);
            for (const auto& u :
                 unpatchableInstructionsWithReasons(kw.cubin(), *kernel, kw.options().patch)) {
                QVERIFY(kw.checker().isWall(InstrId(u.index)));
                QCOMPARE(kw.checker().wallReasonOf(InstrId(u.index)), u.reason);
            }
            const Schedule identity = Schedule::identity(kw.analysis());
            auto moves = kw.legalMoves(identity, true);
            for (size_t m = 0; m < moves.size() && m < 5; ++m) {
                auto s = kw.schedule({Edit::move(moves[m].first, moves[m].second)});
                QVERIFY(s);
                QVERIFY(kw.checker().check(*s).legal());
                auto bytes = kw.write(*s);
                QVERIFY2(bytes, bytes ? "" : bytes.message().c_str());
            }
            if (!kw.immovableReason().empty()) QVERIFY(!kw.notices().empty());
        }
    }

    // A host executable holds each kernel once per architecture: keys tell the copies apart, a bare
    // symbol (or no name, when there is one symbol) opens the newest architecture's copy, and the
    // picker gets demangled names, archs and sizes.
    void kernelKeysAcrossArchitectures()
    {
        const QString exe = QStringLiteral(SASSX_CUBIN_SAMPLES "/host_exe");
        REQUIRE_FILE(exe);
        auto ws = Workspace::open(exe.toStdString());
        QVERIFY2(ws, ws ? "" : ws.message().c_str());
        const auto& entries = (*ws)->kernels();
        QCOMPARE(entries.size(), size_t(4)); // 2 kernels x sm_80, sm_90
        std::set<std::string> keys;
        for (const KernelEntry& e : entries) {
            keys.insert(e.key);
            QCOMPARE(e.key, e.name + "@" + e.arch);
            QVERIFY(e.instructions > 0);
            QVERIFY(e.demangled != e.name && e.demangled.find('(') != std::string::npos);
        }
        QCOMPARE(keys.size(), entries.size());
        const KernelEntry& first = entries[(*ws)->defaultKernel()];
        QCOMPARE(first.arch, std::string("sm_90"));
        const KernelEntry* shared = (*ws)->findKernel("_Z13shared_kernelPKfPfi");
        QVERIFY(shared);
        QCOMPARE(shared->arch, std::string("sm_90"));
        QCOMPARE(shared->demangled, std::string("shared_kernel(float const*, float*, int)"));
        // The sm_80 copy by key: its own code (it differs from the sm_90 copy's size).
        auto k80 = (*ws)->kernel("_Z13shared_kernelPKfPfi@sm_80");
        QVERIFY2(k80, k80 ? "" : k80.message().c_str());
        QCOMPARE((*k80)->name(), std::string("_Z13shared_kernelPKfPfi"));
        QCOMPARE((*k80)->cubin().archName(), std::string("sm_80"));
        QCOMPARE((*k80)->analysis().listing.instructions.size(),
                 (*ws)->findKernel("_Z13shared_kernelPKfPfi@sm_80")->instructions);
        auto k90 = (*ws)->kernel("_Z13shared_kernelPKfPfi");
        QVERIFY(k90);
        QCOMPARE((*k90)->cubin().archName(), std::string("sm_90"));
        QCOMPARE((*k90)->key(), std::string("_Z13shared_kernelPKfPfi@sm_90"));
        // Two different kernels and no name: the error lists the keys, on one line.
        auto none = (*ws)->kernel();
        QVERIFY(!none);
        QVERIFY(oneLine(none.message()));
        QVERIFY(none.message().find("_Z13params_kernelfPdic@sm_80") != std::string::npos);
        QVERIFY(!(*ws)->kernel("_Z13shared_kernelPKfPfi@sm_70"));
    }

    // Stall samples of a variant land on original instructions: the H100 profile of the SGEMM with
    // #172 moved to 159 (docs/results/pcsample-h100-2026-11-23.md) puts #172's samples under #172.
    void stallsMapToOriginalInstructions()
    {
        const QString cubin = sample(QStringLiteral("sgemm_leakyrelu.sm_90.cubin"));
        REQUIRE_FILE(cubin);
        auto ws = Workspace::open(cubin.toStdString());
        QVERIFY(ws);
        auto k = (*ws)->kernel();
        QVERIFY2(k, k ? "" : k.message().c_str());
        const KernelAnalysis& a = (*k)->analysis();
        auto load = [](const char* name) {
            std::ifstream in(std::string(SASSX_SOURCE_DIR "/tests/data/stalls/") + name);
            return eval::stallProfileFromJson(nlohmann::json::parse(in, nullptr, false));
        };
        auto original = load("sgemm_leakyrelu.h100.stalls.json");
        auto moved = load("sgemm_leakyrelu.moved.h100.stalls.json");
        QVERIFY(original && moved);
        const Schedule identity = Schedule::identity(a);
        auto m0 = mapStalls(*original, a, identity);
        QVERIFY2(m0, m0 ? "" : m0.message().c_str());
        QCOMPARE(m0->samples, original->kernelSamples);
        const auto byPos = eval::stallsByPosition(*original, a.listing.instructions.size());
        for (size_t i = 0; i < byPos.size(); ++i)
            QCOMPARE(m0->byOriginal[identity.order[Position(uint32_t(i))]].samples, byPos[i].samples);
        uint64_t blocks = 0;
        for (uint64_t b : m0->byBlock)
            blocks += b;
        QCOMPARE(blocks, m0->samples);

        auto s = (*k)->schedule({Edit::move(Position(172), Position(159))});
        QVERIFY(s);
        QCOMPARE(s->order[Position(159)].value(), 172u);
        auto m1 = mapStalls(*moved, a, *s);
        QVERIFY(m1);
        const auto movedByPos = eval::stallsByPosition(*moved, a.listing.instructions.size());
        QCOMPARE(m1->byOriginal[InstrId(172)].samples, movedByPos[159].samples);
        QVERIFY(m1->byOriginal[InstrId(172)].samples > 0);
        // The hottest instructions keep their shares within the run-to-run noise (a few tenths of a %).
        for (uint32_t i : {706u, 343u, 137u})
            QVERIFY2(std::abs(m1->share(InstrId(i)) - m0->share(InstrId(i))) < 0.01,
                     qPrintable(QString::number(i)));
        auto json = kernelStallsJson(*m1, a, *s);
        bool found = false;
        for (const auto& ins : json["instructions"])
            if (ins["original"] == 172) found = ins["position"] == 159;
        QVERIFY(found);

        // A profile of a bigger kernel does not belong here.
        eval::StallProfile other = *original;
        other.pcs[uint64_t(a.listing.instructions.size()) * 16] = {{0, 5}};
        auto refused = mapStalls(other, a, identity);
        QVERIFY(!refused);
        QVERIFY(oneLine(refused.message()));
    }

    // A kernel whose limits pin everything says so once, in words, instead of a silent "0 movable".
    void noticesSayWhyNothingMoves()
    {
        const QString cubin = sample(QStringLiteral("attention_fwd.sm_90.cubin"));
        REQUIRE_FILE(cubin);
        WorkspaceOptions refuse;
        auto ws = Workspace::open(cubin.toStdString(), refuse);
        QVERIFY(ws);
        auto k = (*ws)->kernel();
        QVERIFY2(k, k ? "" : k.message().c_str());
        if ((*k)->immovableReason().empty()) {
            // Line tables are rewritten: moves are allowed and nothing needs saying about them.
            QVERIFY(!(*k)->legalMoves(Schedule::identity((*k)->analysis()), false).empty());
        } else {
            QCOMPARE(int((*k)->notices().size()), 1);
            QVERIFY(QString::fromStdString((*k)->notices().front()).contains(QStringLiteral("can move")));
            const auto why = (*k)->whyImmovable(Schedule::identity((*k)->analysis()), Position(0));
            QVERIFY(why);
            QCOMPARE(why->message, (*k)->immovableReason());
        }
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("what");
        QTest::newRow("missing file") << "missing";
        QTest::newRow("truncated cubin") << "truncated";
        QTest::newRow("not an ELF") << "text";
        QTest::newRow("unknown kernel") << "kernel";
    }
    void badInput()
    {
        QFETCH(QString, what);
        const QString good = sample(QStringLiteral("rmsnorm.sm_90.cubin"));
        REQUIRE_FILE(good);
        QTemporaryDir dir;
        std::string path = good.toStdString();
        std::string kernel;
        if (what == "missing") path = dir.filePath("nope.cubin").toStdString();
        if (what == "truncated" || what == "text") {
            path = dir.filePath("bad.cubin").toStdString();
            std::ifstream in(good.toStdString(), std::ios::binary);
            std::vector<char> head(100);
            in.read(head.data(), std::streamsize(head.size()));
            std::ofstream out(path, std::ios::binary);
            if (what == "truncated")
                out.write(head.data(), std::streamsize(head.size()));
            else
                out << "this is not a cubin\n";
        }
        if (what == "kernel") kernel = "no_such_kernel";
        auto ws = Workspace::open(path);
        if (!ws) {
            QVERIFY2(oneLine(ws.message()), ws.message().c_str());
            return;
        }
        auto k = (*ws)->kernel(kernel);
        QVERIFY(!k);
        QVERIFY2(oneLine(k.message()), k.message().c_str());
        if (what == "kernel") QVERIFY(k.message().find("no_such_kernel") != std::string::npos);
    }

    // A stop flag set before analysis returns "cancelled" rather than a kernel.
    void stopFlagCancels()
    {
        const QString good = sample(QStringLiteral("rmsnorm.sm_90.cubin"));
        REQUIRE_FILE(good);
        auto ws = Workspace::open(good.toStdString());
        QVERIFY(ws);
        std::atomic_bool stop{true};
        auto k = (*ws)->kernel({}, &stop);
        QVERIFY(!k);
        QCOMPARE(k.message(), std::string("cancelled"));
    }

    // Evaluator choice: estimate on request; "auto" with no usable worker falls back to the estimate
    // and says why; "gpu" then fails with the reason; bad option values are refused.
    void evaluatorChoice()
    {
        EvaluatorOptions o;
        o.backend = sassx::eval::Backend::Estimate;
        auto e = makeEvaluator(o);
        QVERIFY(e);
        QVERIFY(e->backend == sassx::eval::Backend::Estimate);
        QVERIFY(e->evaluator->sourceKind() == sassx::eval::FigureKind::Estimate);

        o.backend = sassx::eval::Backend::Auto;
        o.workerPath = "/nonexistent/sassx-worker";
        auto a = makeEvaluator(o);
        QVERIFY2(a, a ? "" : a.message().c_str());
        QVERIFY(a->backend == sassx::eval::Backend::Estimate);
        QVERIFY2(a->reason.starts_with("no GPU: "), a->reason.c_str());

        o.backend = sassx::eval::Backend::Gpu;
        auto g = makeEvaluator(o);
        QVERIFY(!g);
        QVERIFY(oneLine(g.message()));

        // Names are refused where they come in (eval/backend.h, metrics_backend.h), in one line.
        auto fast = parseEnumOrError(sassx::eval::kBackendNames, "fast", "backend");
        QVERIFY(!fast);
        QVERIFY(oneLine(fast.message()));
        auto perf = parseEnumOrError(sassx::eval::kMetricsBackendNames, "perf", "metrics backend");
        QVERIFY(!perf);
        QVERIFY(oneLine(perf.message()));
        o.gpus = {-1};
        QVERIFY(!validate(o));
    }

    // Measuring through the workspace with the estimate: the original through its cubin, an edited
    // schedule through the fast path, both labelled "estimate".
    void kernelEvaluatorEstimate()
    {
        const QString cubin = sample(QStringLiteral("rmsnorm.sm_90.cubin"));
        const QString specPath = sample(QStringLiteral("rmsnorm.launch.json"));
        REQUIRE_FILE(cubin);
        REQUIRE_FILE(specPath);
        auto ws = Workspace::open(cubin.toStdString());
        QVERIFY(ws);
        auto k = (*ws)->kernel();
        QVERIFY(k);
        auto spec = eval::loadLaunchSpec(specPath.toStdString());
        QVERIFY2(spec, spec ? "" : spec.message().c_str());
        EvaluatorOptions o;
        o.backend = sassx::eval::Backend::Estimate;
        auto choice = makeEvaluator(o);
        QVERIFY(choice);
        KernelEvaluator kev(*k, *choice, *spec);
        const Schedule identity = Schedule::identity((*k)->analysis());
        auto base = kev.measure(identity);
        QVERIFY2(base, base ? "" : base.message().c_str());
        QVERIFY(base->source.kind == sassx::eval::FigureKind::Estimate);
        QVERIFY(base->timing);
        QCOMPARE(base->timing->ratio.median, 1.0);
        // The estimate compares no outputs: a session stores that as not run, never as correct.
        QVERIFY(base->ok() && base->outputCheck == eval::OutputCheck::NotRun);
        const nlohmann::json stored = figuresToJson(VariantFigures{*base, "2026-12-04T00:00:00Z"});
        QVERIFY2(stored.at("correct").is_null(), stored.dump().c_str());
        QCOMPARE(stored.at("output_check").get<std::string>(), std::string("not run"));
        auto reread = figuresFromJson(stored);
        QVERIFY(reread && reread->result.ok() && reread->result.outputCheck == eval::OutputCheck::NotRun);
        nlohmann::json older = stored; // a session written before the check's kind was stored
        older.erase("output_check");
        older["correct"] = true;
        auto fromOlder = figuresFromJson(older);
        QVERIFY(fromOlder && fromOlder->result.outputCheck == eval::OutputCheck::NotRun);
        auto moves = (*k)->legalMoves(identity, false);
        if (moves.empty()) QSKIP("no legal move in this sample");
        auto s = (*k)->schedule({Edit::move(moves.front().first, moves.front().second)});
        QVERIFY(s);
        auto moved = kev.measure(*s);
        QVERIFY2(moved, moved ? "" : moved.message().c_str());
        QVERIFY(moved->source.kind == sassx::eval::FigureKind::Estimate);

        // What the evaluator is handed: the original for the identity, else the schedule with a cubin
        // written on demand, byte for byte the workspace's.
        QVERIFY(kev.candidate(identity).isOriginal());
        const eval::Candidate c = kev.candidate(*s);
        QVERIFY(!c.isOriginal());
        QVERIFY(c.schedule() && c.schedule()->order == s->order);
        auto written = (*k)->write(*s);
        QVERIFY(written);
        auto bytes = c.bytes();
        QVERIFY2(bytes, bytes ? "" : bytes.message().c_str());
        QVERIFY(**bytes == *written);
        // The estimate of the schedule (no cubin) is the estimate of its written cubin.
        auto viaCubin = kev.measureCubin(*written);
        QVERIFY2(viaCubin, viaCubin ? "" : viaCubin.message().c_str());
        QCOMPARE(viaCubin->timing->ratio.median, moved->timing->ratio.median);
        // Paired against a reference: the quotient of the two estimates, decided at once when raced.
        MeasureOptions paired;
        paired.eval.reference = c;
        paired.eval.race.bar = 0.5;
        auto self = kev.measure(*s, paired);
        QVERIFY(self && self->timing);
        QVERIFY(self->timing->paired);
        QCOMPARE(self->timing->ratio.median, 1.0);
        QCOMPARE(self->timing->race, std::string("dropped"));
        auto back = kev.measure(identity, paired);
        QVERIFY(back && back->timing);
        QVERIFY(qFuzzyCompare(back->timing->ratio.median, 1.0 / moved->timing->ratio.median));

        std::atomic_bool stop{true};
        MeasureOptions stopped;
        stopped.stop = &stop;
        QVERIFY(!kev.measure(*s, stopped));
    }

    // What opening a path means, decided before loading: a Triton entry's own file opens the entry.
    void inputsAreClassifiedBeforeLoading()
    {
        const QString cubin = sample(QStringLiteral("rmsnorm.sm_90.cubin"));
        REQUIRE_FILE(cubin);
        QTemporaryDir tmp;
        const QString entry = tmp.filePath(QStringLiteral("entry"));
        QVERIFY(QDir().mkpath(entry));
        QVERIFY(QFile::copy(cubin, entry + QStringLiteral("/rmsnorm.cubin")));
        QFile meta(entry + QStringLiteral("/rmsnorm.json"));
        QVERIFY(meta.open(QIODevice::WriteOnly));
        meta.write(R"({"name": "rmsnorm"})");
        meta.close();

        const InputTarget plain = classifyInput(cubin.toStdString());
        QCOMPARE(plain.path, cubin.toStdString());
        QVERIFY(!plain.tritonEntry && !plain.needsArch);
        for (const QString& file :
             {entry + QStringLiteral("/rmsnorm.cubin"), entry + QStringLiteral("/rmsnorm.json")}) {
            const InputTarget t = classifyInput(file.toStdString());
            QVERIFY(t.tritonEntry);
            QCOMPARE(std::filesystem::weakly_canonical(t.path),
                     std::filesystem::weakly_canonical(entry.toStdString()));
        }
        QVERIFY(classifyInput(entry.toStdString()).tritonEntry);
        QVERIFY(classifyInput("kernel.cu").needsArch);
        QVERIFY(classifyInput("kernel.PTX").needsArch);
        QVERIFY(!classifyInput("kernel.fatbin").needsArch);
    }

    // A tuned cubin's schedule comes back from its words; the diff of it against the original names
    // the move, in every form.
    void tunedCubinsAndDiffs()
    {
        const QString cubin = sample(QStringLiteral("rmsnorm.sm_90.cubin"));
        REQUIRE_FILE(cubin);
        auto ws = Workspace::open(cubin.toStdString());
        QVERIFY(ws);
        auto k = (*ws)->kernel();
        QVERIFY(k);
        const Schedule identity = Schedule::identity((*k)->analysis());
        auto moves = (*k)->legalMoves(identity, false);
        QVERIFY(!moves.empty());
        auto s = (*k)->schedule({Edit::move(moves.front().first, moves.front().second)});
        QVERIFY(s);
        auto bytes = (*k)->write(*s);
        QVERIFY(bytes);
        auto recovered = (*k)->scheduleOf(*bytes, "tuned.cubin");
        QVERIFY2(recovered, recovered ? "" : recovered.message().c_str());
        QVERIFY(recovered->order == s->order);
        auto garbage = (*k)->scheduleOf(std::vector<uint8_t>(64, 0xAB), "junk.cubin");
        QVERIFY(!garbage);
        QVERIFY(garbage.message().starts_with("junk.cubin: "));

        auto diff = diffFromOriginal(**k, *s, "moved");
        QVERIFY2(diff, diff ? "" : diff.message().c_str());
        QCOMPARE(diff->movedCount() > 0, true);
        const std::string text = renderDiff(*diff, DiffFormat::Text);
        QVERIFY(text.find("moved") != std::string::npos);
        QVERIFY(renderDiff(*diff, DiffFormat::Html).find("<html") != std::string::npos);
        auto j = nlohmann::json::parse(renderDiff(*diff, DiffFormat::Json), nullptr, false);
        QVERIFY(!j.is_discarded());
        auto same = diffFromOriginal(**k, identity, "original");
        QVERIFY(same && same->identical());
    }
};

QTEST_GUILESS_MAIN(TestWorkspace)
#include "test_workspace.moc"
