// core/tune without running searches: the plan over the bundled samples and over a synthetic capture
// (with entries that cannot be tuned), the budget split and the total time as a deadline, the results
// database (round trip, refusal of a file of another version or program, two connections writing at once),
// and the report's figures.
#include "core/tune/tune_db.h"
#include "core/tune/tune_deadline.h"
#include "core/tune/tune_plan.h"
#include "core/tune/tune_report.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <thread>

using namespace sassx;
using namespace sassx::tune;
namespace fs = std::filesystem;

namespace {

const std::string kSamples = SASSX_SAMPLES_DIR;

void writeText(const fs::path& path, const std::string& text)
{
    std::ofstream(path) << text;
}

// Runs `sql` on the file directly, as another program (or an older sassx) would.
bool rawSql(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
              sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

search::SearchEvaluation evaluation(int step, double speedup)
{
    search::SearchEvaluation e;
    e.step = step;
    e.seconds = 0.01 * step;
    e.base = step - 1;
    e.kind = "candidate";
    e.edits = {Edit::move(Position(uint32_t(step + 3)), Position(uint32_t(step + 1)))};
    e.figures.ok = true;
    e.figures.speedup = e.figures.low = e.figures.high = speedup;
    e.figures.source = {"model sm_90", sassx::eval::FigureKind::Estimate};
    e.outcome = speedup > 1.0 ? search::Outcome::Accepted : search::Outcome::Rejected;
    e.best = speedup > 1.0;
    return e;
}

TuneKernel kernelNamed(const std::string& name, double share)
{
    TuneKernel k;
    k.name = name;
    k.specPath = "/nowhere/" + name + ".launch.json";
    k.cubinPath = "/nowhere/" + name + ".sm_90.cubin";
    k.timeShare = share;
    k.tritonEntries = {"/cache/" + name};
    return k;
}

} // namespace

class TestTune : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    std::string tmp(const std::string& name) const
    {
        return m_tmp.filePath(QString::fromStdString(name)).toStdString();
    }
    bool haveSamples() const
    {
        return fs::exists(kSamples + "/rmsnorm.sm_90.cubin") &&
               fs::exists(kSamples + "/sgemm_leakyrelu.sm_90.cubin");
    }

private slots:
    // build/samples is a spec directory: every spec beside its cubin, equal shares, by name.
    void planOverSamples()
    {
        if (!haveSamples()) QSKIP("sample cubins not built (no nvcc)");
        auto plan = discoverPlan(kSamples);
        QVERIFY2(plan, plan ? "" : plan.message().c_str());
        QVERIFY(!plan->fromCapture);
        QCOMPARE(QString::fromStdString(plan->sharesNote), QStringLiteral("equal shares: no capture"));
        std::vector<std::string> names;
        for (const TuneKernel& k : plan->kernels) {
            names.push_back(k.name);
            QVERIFY(fs::exists(k.cubinPath));
            QCOMPARE(k.timeShare, 1.0 / double(plan->kernels.size()));
        }
        QVERIFY(std::is_sorted(names.begin(), names.end()));
        for (const char* expected : {"rmsnorm", "sgemm_leakyrelu", "gemm_leakyrelu"})
            QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);
        // The captured Triton spec names its cache entry, resolved against the Triton cache directory.
        const auto gemm = std::find_if(plan->kernels.begin(), plan->kernels.end(),
                                       [](const TuneKernel& k) { return k.name == "gemm_leakyrelu"; });
        QCOMPARE(gemm->tritonEntries.size(), size_t(1));
        QVERIFY(gemm->tritonEntries[0].starts_with(tritonCacheRoot()));
        for (const SkippedKernel& s : plan->skipped)
            QVERIFY2(!s.reason.empty(), s.name.c_str());
    }

    // A capture: shares and entries from capture.json; a missing spec, a spec whose cubin is missing, a
    // spec that is not JSON and the capture's own skipped list are skipped with their reasons.
    void planOverCapture()
    {
        if (!haveSamples()) QSKIP("sample cubins not built (no nvcc)");
        const fs::path dir = tmp("capture");
        fs::create_directories(dir);
        for (const char* f : {"rmsnorm.launch.json", "rmsnorm.sm_90.cubin", "sgemm_leakyrelu.launch.json",
                              "sgemm_leakyrelu.sm_90.cubin"})
            fs::copy_file(kSamples + "/" + f, dir / f);
        fs::copy_file(kSamples + "/rmsnorm.launch.json",
                      dir / "orphan.launch.json"); // names rmsnorm's cubin...
        std::string orphan;
        std::getline(std::ifstream(dir / "orphan.launch.json"), orphan, '\0');
        orphan.replace(orphan.find("rmsnorm.sm_90.cubin"), 19, "gone.sm_90.cubin"); // ...now a missing one
        writeText(dir / "orphan.launch.json", orphan);
        writeText(dir / "broken.launch.json", "{ not json");
        writeText(dir / "capture.json",
                  R"({"format": "sassx-capture", "version": 1, "program": ["python", "t.py"],
          "device": "NVIDIA H200", "total_gpu_time_us": 1000.0,
          "kernels": [
            {"name": "sgemm_leakyrelu", "spec": "sgemm_leakyrelu.launch.json", "launches": 3, "gpu_time_us": 600,
             "time_share": 0.6, "triton_cache_dir": "/cache/AAA"},
            {"name": "rmsnorm", "spec": "rmsnorm.launch.json", "launches": 9, "gpu_time_us": 100, "time_share": 0.1},
            {"name": "vanished", "spec": "vanished.launch.json", "time_share": 0.1},
            {"name": "orphan", "spec": "orphan.launch.json", "time_share": 0.1},
            {"name": "broken", "spec": "broken.launch.json", "time_share": 0.05},
            {"name": "../escape", "spec": "rmsnorm.launch.json", "time_share": 0.05}],
          "skipped": [{"name": "cublas_gemm", "reason": "not a Triton kernel"}]})");
        auto plan = discoverPlan(dir.string());
        QVERIFY2(plan, plan ? "" : plan.message().c_str());
        QVERIFY(plan->fromCapture);
        QCOMPARE(plan->kernels.size(), size_t(2));
        QCOMPARE(QString::fromStdString(plan->kernels[0].name), QStringLiteral("sgemm_leakyrelu"));
        QCOMPARE(plan->kernels[0].timeShare, 0.6);
        QCOMPARE(plan->kernels[0].launches, int64_t(3));
        QCOMPARE(plan->kernels[0].tritonEntries, std::vector<std::string>{"/cache/AAA"});
        QCOMPARE(plan->kernels[1].timeShare, 0.1);
        QCOMPARE(QString::fromStdString(plan->device), QStringLiteral("NVIDIA H200"));
        std::map<std::string, std::string> skipped;
        for (const SkippedKernel& s : plan->skipped)
            skipped[s.name] = s.reason;
        QCOMPARE(skipped.size(), size_t(5));
        QCOMPARE(QString::fromStdString(skipped["../escape"]),
                 QStringLiteral("its name is not a plain file name"));
        QVERIFY2(skipped["vanished"].find("missing") != std::string::npos, skipped["vanished"].c_str());
        QVERIFY2(skipped["orphan"].find("gone.sm_90.cubin is missing") != std::string::npos,
                 skipped["orphan"].c_str());
        QVERIFY2(skipped["broken"].find("not valid JSON") != std::string::npos, skipped["broken"].c_str());
        QCOMPARE(QString::fromStdString(skipped["cublas_gemm"]), QStringLiteral("not a Triton kernel"));

        // --kernels: a skipped name says why; an unknown one says so.
        TunePlan copy = *plan;
        Status s = selectKernels(copy, {"orphan"});
        QVERIFY(!s && s.message().find("cannot be tuned") != std::string::npos);
        s = selectKernels(copy, {"nope"});
        QVERIFY(!s && s.message().find("no kernel 'nope'") != std::string::npos);
        QVERIFY(selectKernels(copy, {"rmsnorm"}));
        QCOMPARE(copy.kernels.size(), size_t(1));

        // A capture of another version is refused with one line.
        writeText(dir / "capture.json", R"({"format": "sassx-capture", "version": 2, "kernels": []})");
        auto other = discoverPlan(dir.string());
        QVERIFY(!other && other.message().find("version 2") != std::string::npos);
        QVERIFY(!discoverPlan(tmp("absent")));

        // Hand-written or damaged: fields of the wrong type are missing fields, never a crash.
        writeText(dir / "capture.json", R"({"format": "sassx-capture", "version": 1, "device": 3,
          "kernels": [1, {"name": 5}, {"name": "x", "spec": 7},
                      {"name": "rmsnorm", "spec": "rmsnorm.launch.json", "time_share": "big", "launches": "many",
                       "triton_cache_dir": ["no"]}],
          "skipped": [3, {"name": 1}]})");
        auto odd = discoverPlan(dir.string());
        QVERIFY2(odd, odd ? "" : odd.message().c_str());
        QCOMPARE(odd->kernels.size(), size_t(1));
        QCOMPARE(odd->kernels[0].timeShare, 0.0);
        QVERIFY(odd->kernels[0].tritonEntries.empty());
        QCOMPARE(odd->skipped.size(), size_t(4)); // 1, {"name": 5}, "x" without a spec, {"name": 1}
        const std::string whole = R"({"format": "sassx-capture", "version": 1, "kernels": []})";
        writeText(dir / "capture.json", whole.substr(0, whole.size() / 2)); // cut off mid-file
        auto truncated = discoverPlan(dir.string());
        QVERIFY(!truncated && truncated.message().find("is not JSON") != std::string::npos);
    }

    // Each kernel gets a floor of a quarter of an equal split; the rest goes by share; the parts add up.
    void budgetSplit()
    {
        TunePlan plan;
        plan.kernels = {kernelNamed("a", 0.7), kernelNamed("b", 0.2), kernelNamed("c", 0.0)};
        const auto parts = splitBudget(plan, 600.0);
        QCOMPARE(parts.size(), size_t(3));
        QCOMPARE(std::accumulate(parts.begin(), parts.end(), 0.0), 600.0);
        QCOMPARE(parts[2], 50.0); // the floor: 600 / 3 / 4
        QVERIFY(parts[0] > parts[1] && parts[1] > parts[2]);
        QVERIFY(qFuzzyCompare(parts[0], 50.0 + 450.0 * 0.7 / 0.9));
    }

    // --total-time as a deadline: the overhead measured on finished kernels and the kernels in flight
    // scale the next kernel's search down; a kernel that would get under a quarter of its plan is not
    // started; a kernel an earlier tune finished gives no overhead sample.
    void totalTimeDeadline()
    {
        TuneDeadline one(100.0, {50.0, 30.0, 20.0}, 1);
        QCOMPARE(one.start(0, 0.0).value_or(-1), 50.0); // nothing known yet: its plan
        one.finish(0, 60.0, 50.0);                      // 10 s beyond its search
        QCOMPARE(one.overheadPerKernel(), 10.0);
        // 40 s left, 2 kernels x 10 s of overhead: 20 s for 30 + 20 planned, 12 s for this one.
        QCOMPARE(one.start(1, 60.0).value_or(-1), 12.0);
        one.finish(1, 82.0, 12.0);
        QCOMPARE(one.start(2, 82.0).value_or(-1), 8.0); // 18 s left - 10 s of overhead
        TuneDeadline late(100.0, {50.0, 30.0, 20.0}, 1);
        QVERIFY(late.start(0, 0.0));
        late.finish(0, 90.0, 50.0);
        QVERIFY(!late.start(1, 90.0)); // 10 s left, 40 s of overhead expected: not started
        QVERIFY(!late.start(2, 90.0));
        QVERIFY(!late.start(7, 0.0)); // no such kernel

        // Two slots: the kernel in flight holds its budget; the next gets its whole plan.
        TuneDeadline two(100.0, {50.0, 30.0, 20.0}, 2);
        QCOMPARE(two.start(0, 0.0).value_or(-1), 50.0);
        QCOMPARE(two.start(1, 0.0).value_or(-1), 30.0);
        two.release(1); // done by an earlier tune: no overhead sample
        QCOMPARE(two.overheadPerKernel(), 0.0);
        two.finish(0, 80.0, 50.0);
        QCOMPARE(two.overheadPerKernel(), 30.0);
        // 20 s left on 2 slots = 40, minus 30 s of overhead for the one pending kernel: 10 of its 20.
        QCOMPARE(two.start(2, 80.0).value_or(-1), 10.0);
    }

    void dbRoundTrip()
    {
        const std::string path = tmp("round.sqlite");
        {
            auto db = TuneDb::open(path);
            QVERIFY2(db, db ? "" : db.message().c_str());
            auto kid = (*db)->upsertKernel(kernelNamed("k1", 0.25), "time shares from the capture");
            QVERIFY(kid);
            auto run = (*db)->startRun(*kid, "/runs/k1", R"({"algorithm":"climb"})", "estimate");
            QVERIFY(run);
            QVERIFY((*db)->setDevice(*run, "model sm_90", "estimate"));
            QVERIFY((*db)->addEvaluations(*run, {evaluation(0, 0.99), evaluation(1, 1.02)}, 0.5));
            QVERIFY(
                (*db)->addEvaluations(*run, {evaluation(1, 1.03), evaluation(2, 1.04)}, 0.7)); // step 1 again
            DbBest best;
            best.improved = true;
            best.speedup = 1.04;
            best.low = 1.03;
            best.high = 1.05;
            best.rounds = 40;
            best.noiseFloor = 0.003;
            best.source = "measured, NVIDIA H100";
            best.verified = true;
            best.verification = "correct on fresh inputs";
            best.edits = {"move 5 → 3"};
            best.cubin = "/runs/k1/best.cubin";
            QVERIFY((*db)->finishRun(*run, RunStatus::Finished, {{"summary", "best 1.04x"}, {"seconds", 0.7}},
                                     best));
            QVERIFY((*db)->recordSkipped("k2", "its cubin k2.cubin is missing"));
        }
        auto db = TuneDb::open(path); // reopened: the version check passes
        QVERIFY2(db, db ? "" : db.message().c_str());
        auto kernels = (*db)->kernels();
        QVERIFY(kernels && kernels->size() == 2);
        QCOMPARE((*kernels)[0].tritonEntries, std::vector<std::string>{"/cache/k1"});
        QCOMPARE(QString::fromStdString((*kernels)[1].skipped),
                 QStringLiteral("its cubin k2.cubin is missing"));
        auto run = (*db)->latestRun("k1");
        QVERIFY(run && *run);
        QCOMPARE((*run)->status, RunStatus::Finished);
        QCOMPARE(QString::fromStdString((*run)->device), QStringLiteral("model sm_90"));
        QCOMPARE((*run)->evaluations, int64_t(3));
        QCOMPARE(QString::fromStdString((*run)->summary), QStringLiteral("best 1.04x"));
        auto evaluations = (*db)->evaluations((*run)->id);
        QVERIFY(evaluations && evaluations->size() == 3);
        QCOMPARE((*evaluations)[1].figures.speedup, 1.03); // the newer record of step 1
        QCOMPARE(search::historyCsvRow((*evaluations)[2]), search::historyCsvRow(evaluation(2, 1.04)));
        auto best = (*db)->best((*run)->id);
        QVERIFY(best && *best);
        QCOMPARE((*best)->verified, std::optional<bool>(true));
        QCOMPARE((*best)->low, 1.03);
        QCOMPARE((*best)->edits.size(), size_t(1));
        // The run names this process as its owner, which does not count as another one holding it.
        QCOMPARE(QString::fromStdString((*run)->owner), QString::fromStdString(TuneDb::processOwner()));
        QVERIFY(!TuneDb::ownerAlive((*run)->owner));
        const std::string self = TuneDb::processOwner(), host = self.substr(0, self.rfind(':'));
        QVERIFY(TuneDb::ownerAlive(host + ":1")); // init: alive on every machine
        QVERIFY(!TuneDb::ownerAlive("another-host-" + host + ":1"));
        // Resuming from a checkpoint of 2 evaluations drops the third and counts the resume.
        QVERIFY((*db)->resumeRun((*run)->id, 2));
        run = (*db)->latestRun("k1");
        QCOMPARE((*run)->resumed, 1);
        QCOMPARE((*run)->evaluations, int64_t(2));
        QCOMPARE((*run)->status, RunStatus::Running);
        QVERIFY(!*(*db)->best((*run)->id));
    }

    // A database of another schema version, another program's SQLite file, or no SQLite file at all:
    // one line, and the file is left as it was.
    void dbRefusesOtherFiles()
    {
        const std::string newer = tmp("newer.sqlite");
        QVERIFY(rawSql(newer, "PRAGMA application_id=1396790104; CREATE TABLE x(a); PRAGMA user_version=7"));
        auto db = TuneDb::open(newer);
        QVERIFY(!db);
        QVERIFY2(db.message().find("schema version 7") != std::string::npos &&
                     db.message().find("reads version 1") != std::string::npos &&
                     db.message().find('\n') == std::string::npos,
                 db.message().c_str());
        const std::string foreign = tmp("foreign.sqlite");
        QVERIFY(rawSql(foreign, "CREATE TABLE notes(text)"));
        db = TuneDb::open(foreign);
        QVERIFY2(!db && db.message().find("another program") != std::string::npos,
                 db ? "" : db.message().c_str());
        QVERIFY(rawSql(foreign, "SELECT * FROM notes")); // untouched
        const std::string text = tmp("text.sqlite");
        writeText(text, std::string(4096, 'x'));
        db = TuneDb::open(text);
        QVERIFY2(!db && db.message().find("not a SQLite database") != std::string::npos,
                 db ? "" : db.message().c_str());
    }

    // Two connections (as two processes would have) writing at once: every transaction lands.
    void concurrentWriters()
    {
        const std::string path = tmp("concurrent.sqlite");
        constexpr int kBatches = 40, kPerBatch = 25;
        std::string errors[2];
        auto writer = [&](int w) {
            auto db = TuneDb::open(path);
            if (!db) {
                errors[w] = db.message();
                return;
            }
            auto kid =
                (*db)->upsertKernel(kernelNamed("k" + std::to_string(w), 0.5), "equal shares: no capture");
            auto run = kid ? (*db)->startRun(*kid, "/runs", "{}", "estimate") : Result<int64_t>(kid.error());
            if (!run) {
                errors[w] = run.message();
                return;
            }
            for (int b = 0; b < kBatches && errors[w].empty(); ++b) {
                std::vector<search::SearchEvaluation> batch;
                for (int i = 0; i < kPerBatch; ++i)
                    batch.push_back(evaluation(b * kPerBatch + i, 1.0 + 0.001 * i));
                if (Status s = (*db)->addEvaluations(*run, batch, b); !s) errors[w] = s.message();
            }
        };
        std::thread a(writer, 0), b(writer, 1);
        a.join();
        b.join();
        QVERIFY2(errors[0].empty(), errors[0].c_str());
        QVERIFY2(errors[1].empty(), errors[1].c_str());
        auto db = TuneDb::open(path);
        QVERIFY(db);
        auto runs = (*db)->runs();
        QVERIFY(runs && runs->size() == 2);
        for (const DbRun& r : *runs)
            QCOMPARE(*(*db)->evaluationCount(r.id), int64_t(kBatches * kPerBatch));
    }

    // Several connections creating one new database at once (Slurm tasks starting together): each opens
    // it, none is told it is locked.
    void concurrentCreation()
    {
        for (int round = 0; round < 30; ++round) {
            const std::string path = tmp("created-" + std::to_string(round) + ".sqlite");
            std::string errors[6];
            std::vector<std::thread> threads;
            for (int t = 0; t < 6; ++t)
                threads.emplace_back([&, t] {
                    auto db = TuneDb::open(path);
                    if (!db) errors[t] = db.message();
                });
            for (std::thread& t : threads)
                t.join();
            for (const std::string& e : errors)
                QVERIFY2(e.empty(), e.c_str());
        }
    }

    // The program figure is Σ share × (1 − 1/speed-up) over the finished runs that clearly improved,
    // A row is the estimate's by the backend that measured (the run's, or its report's for a run
    // recorded as "auto"), never by its figure's label: the labels here say the opposite.
    void estimateByBackend_data()
    {
        QTest::addColumn<QString>("runBackend");
        QTest::addColumn<QString>("reportBackend");
        QTest::addColumn<QString>("label");
        QTest::addColumn<bool>("estimate");
        QTest::newRow("estimate run") << "estimate"
                                      << "estimate"
                                      << "measured, NVIDIA H100" << true;
        QTest::newRow("auto, estimated") << "auto"
                                         << "estimate"
                                         << "measured, NVIDIA H100" << true;
        QTest::newRow("auto, measured") << "auto"
                                        << "gpu"
                                        << "estimate, model sm_90" << false;
        QTest::newRow("gpu run") << "gpu"
                                 << "gpu"
                                 << "estimate, model sm_90" << false;
    }
    void estimateByBackend()
    {
        QFETCH(QString, runBackend);
        QFETCH(QString, reportBackend);
        QFETCH(QString, label);
        QFETCH(bool, estimate);
        const std::string path = tmp("estimate-" + std::string(QTest::currentDataTag()) + ".sqlite");
        auto db = TuneDb::open(path);
        QVERIFY(db);
        auto kid = (*db)->upsertKernel(kernelNamed("k", 1.0), "equal shares");
        QVERIFY(kid);
        auto run = (*db)->startRun(*kid, "/runs/k", "{}", runBackend.toStdString());
        QVERIFY(run);
        DbBest b;
        b.improved = true;
        b.speedup = b.low = b.high = 1.1;
        b.source = label.toStdString();
        const nlohmann::json report{{"summary", "k"},
                                    {"evaluator", {{"backend", reportBackend.toStdString()}}}};
        QVERIFY((*db)->finishRun(*run, RunStatus::Finished, report, b));
        auto built = buildReport(**db);
        QVERIFY2(built, built ? "" : built.message().c_str());
        QCOMPARE(built->rows.size(), size_t(1));
        QCOMPARE(built->rows[0].estimate, estimate);
    }

    // labelled an estimate; a row of the estimate backend says so.
    void reportFigures()
    {
        const std::string path = tmp("report.sqlite");
        auto db = TuneDb::open(path);
        QVERIFY(db);
        auto finished = [&](const std::string& name, double share, const std::string& backend, double g,
                            bool improved) {
            auto kid = (*db)->upsertKernel(kernelNamed(name, share), "time shares from the capture");
            auto run = (*db)->startRun(*kid, "/runs/" + name, "{}", backend);
            DbBest b;
            b.improved = improved;
            b.speedup = g;
            b.low = backend == "gpu" ? g - 0.05 : g;
            b.high = backend == "gpu" ? g + 0.05 : g;
            b.rounds = backend == "gpu" ? 40 : 0;
            b.noiseFloor = backend == "gpu" ? 0.004 : 0.0;
            b.source = backend == "gpu" ? "measured, NVIDIA H100" : "estimate, model sm_90";
            QVERIFY((*db)->finishRun(*run, RunStatus::Finished, {{"summary", name}}, b));
        };
        finished("measured<&>", 0.5, "gpu", 1.25, true);
        finished("estimated", 0.2, "estimate", 1.1, true);
        finished("flat", 0.2, "gpu", 1.001, false);
        QVERIFY((*db)->recordSkipped("cublas", "not a Triton kernel"));
        auto report = buildReport(**db);
        QVERIFY2(report, report ? "" : report.message().c_str());
        QCOMPARE(report->rows.size(), size_t(4));
        const double saved = 0.5 * (1 - 1 / 1.25) + 0.2 * (1 - 1 / 1.1);
        QVERIFY(qFuzzyCompare(report->program.saved, saved));
        QVERIFY(qFuzzyCompare(report->program.speedup, 1 / (1 - saved)));
        QVERIFY(qFuzzyCompare(report->program.savedLow, 0.5 * (1 - 1 / 1.2) + 0.2 * (1 - 1 / 1.1)));
        QCOMPARE(report->program.kernels, 2);
        QVERIFY(report->program.fromEstimates);
        const std::string text = renderText(*report);
        QVERIFY2(text.find("program-level ESTIMATE, not a measurement") != std::string::npos, text.c_str());
        QVERIFY2(text.find("1.1000× est.") != std::string::npos, text.c_str());
        QVERIFY2(text.find("1.2500× [1.2000, 1.3000]") != std::string::npos, text.c_str());
        QVERIFY2(text.find("0.4%") != std::string::npos, text.c_str()); // the measured row's noise floor
        QVERIFY2(text.find("(no gain)") != std::string::npos, text.c_str());
        QVERIFY2(text.find("skipped: not a Triton kernel") != std::string::npos, text.c_str());
        const std::string html = renderHtml(*report);
        QVERIFY(html.find("measured&lt;&amp;&gt;") != std::string::npos);
        QVERIFY(html.find("ESTIMATE") != std::string::npos);
        const nlohmann::json j = toJson(*report);
        QVERIFY(j["program_estimate"]["label"].get<std::string>().starts_with("estimate, not a measurement"));
        QCOMPARE(j["kernels"][1]["estimate"].get<bool>(), true);
        QCOMPARE(j["kernels"][0]["estimate"].get<bool>(), false);
    }
};

QTEST_GUILESS_MAIN(TestTune)
#include "test_tune.moc"
