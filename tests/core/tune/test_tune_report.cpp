// The tune report's in-program column: a database of three kernels with the example program-time.json
// that sassx_capture's tests make (tests/app/capture/data/program-time.example.json) beside it. Each
// row shows its kernel's in-program speed-up as a measurement with its interval, "unresolved" where the
// interval holds 1.0, "not launched after" for a kernel the program stopped launching and "not timed"
// for one the file does not name; without the file every row is "not timed"; a broken file is one line
// in the report and invents nothing.
#include "core/tune/capture_origins.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_plan.h"
#include "core/tune/tune_report.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace sassx;
using namespace sassx::tune;
namespace fs = std::filesystem;

namespace {

const fs::path kExample =
    fs::path(SASSX_SOURCE_DIR) / "tests" / "app" / "capture" / "data" / "program-time.example.json";

void writeText(const fs::path& path, const std::string& text)
{
    std::ofstream(path) << text;
}

// A database in `dir` whose kernels' specs lie in `specDir`, each with a finished measured run.
std::unique_ptr<TuneDb> database(const fs::path& dir, const fs::path& specDir)
{
    auto db = TuneDb::open((dir / "tune.sqlite").string());
    if (!db) return nullptr;
    const std::vector<std::pair<std::string, double>> kernels{
        {"rmsnorm", 0.4}, {"sgemm_leakyrelu", 0.3}, {"hgemm_leakyrelu", 0.2}, {"softmax", 0.1}};
    for (const auto& [name, share] : kernels) {
        TuneKernel k;
        k.name = name;
        k.specPath = (specDir / (name + ".launch.json")).string();
        k.cubinPath = (specDir / (name + ".sm_90.cubin")).string();
        k.timeShare = share;
        auto id = (*db)->upsertKernel(k, "time shares from the capture");
        if (!id) return nullptr;
        auto run = (*db)->startRun(*id, (dir / "runs" / name).string(), "{}", "gpu");
        DbBest b;
        b.improved = true;
        b.speedup = 1.08;
        b.low = 1.06;
        b.high = 1.10;
        b.rounds = 40;
        b.noiseFloor = 0.004;
        b.source = "measured, NVIDIA H200";
        if (!run || !(*db)->finishRun(*run, RunStatus::Finished, {{"summary", name}}, b)) return nullptr;
    }
    return std::move(*db);
}

const TuneReportRow& row(const TuneReport& r, const std::string& kernel)
{
    return *std::find_if(r.rows.begin(), r.rows.end(),
                         [&](const TuneReportRow& x) { return x.kernel == kernel; });
}

} // namespace

class TestTuneReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exampleFileParses()
    {
        auto p = loadProgramTime(kExample.string());
        QVERIFY2(p, p ? "" : p.message().c_str());
        QCOMPARE(p->pairs, 6);
        QCOMPARE(p->date, std::string("2026-11-28T12:00:00Z"));
        QVERIFY(p->step);
        QVERIFY(!p->step->resolved); // 0.9929..1.0144 holds 1.0
        QCOMPARE(p->step->pairs, 6);
        const InProgramTime& rms = p->kernels.at("rmsnorm");
        QCOMPARE(rms.status, InProgramStatus::Timed);
        QVERIFY(rms.resolved);
        QVERIFY(rms.low > 1.04 && rms.low < rms.speedup && rms.speedup < rms.high);
        QVERIFY(rms.driftRemoved && !rms.control);
        QCOMPARE(rms.launchesBefore, int64_t(24));
        QVERIFY(rms.cubinChanged);
        QVERIFY(qFuzzyCompare(rms.beforeUs, 20.2));
        QVERIFY(!p->kernels.at("sgemm_leakyrelu").resolved);
        QVERIFY(p->kernels.at("sgemm_leakyrelu").control);
        QVERIFY(p->controls);
        QCOMPARE(p->controls->kernels, 2);
        QCOMPARE(p->controls->pairs, 6);
        QCOMPARE(p->kernels.at("hgemm_leakyrelu").status, InProgramStatus::NotLaunchedAfter);
        QVERIFY(p->kernels.count("triton_poi_fused_extra_0")); // not a tuned kernel: no row shows it
    }

    void inProgramBesideIsolated()
    {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        fs::copy_file(kExample, dir / "program-time.json");
        auto db = database(dir, dir);
        QVERIFY(db);
        auto report = buildReport(*db);
        QVERIFY2(report, report ? "" : report.message().c_str());
        QVERIFY(report->programTime && report->programTime->error.empty());
        QCOMPARE(report->programTime->path, (dir / "program-time.json").string());

        const std::string rms = inProgramCell(row(*report, "rmsnorm"));
        QVERIFY2(rms.starts_with("1.05") && rms.find(" [1.04") != std::string::npos, rms.c_str());
        QVERIFY2(rms.find("unresolved") == std::string::npos, rms.c_str());
        // an unchanged kernel is a control: never faster, slower or "unresolved"
        QVERIFY2(inProgramCell(row(*report, "sgemm_leakyrelu")).starts_with("control 1.00"),
                 inProgramCell(row(*report, "sgemm_leakyrelu")).c_str());
        QVERIFY2(programTimeLine(*report).find(
                     "controls (kernels whose cubin did not change): 2 moved 1.00") != std::string::npos,
                 programTimeLine(*report).c_str());
        QCOMPARE(inProgramCell(row(*report, "hgemm_leakyrelu")), std::string("not launched after"));
        QCOMPARE(inProgramCell(row(*report, "softmax")), std::string("not timed"));
        QVERIFY(!row(*report, "softmax").inProgram);

        const std::string text = renderText(*report);
        QVERIFY2(text.find("isolated speed-up [95% interval]") != std::string::npos, text.c_str());
        QVERIFY2(text.find("in-program [interval]") != std::string::npos, text.c_str());
        QVERIFY2(text.find("in-program speed-ups MEASURED inside the program") != std::string::npos,
                 text.c_str());
        QVERIFY2(text.find("6 interleaved pairs") != std::string::npos, text.c_str());
        QVERIFY2(text.find("step time 1.0036× [0.9929, 1.0144], noise floor 1.2%, unresolved") !=
                     std::string::npos,
                 text.c_str());
        // the isolated figure and the in-program one on the kernel's line
        const size_t at = text.find("\nrmsnorm");
        const std::string line = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
        QVERIFY2(line.find("1.0800× [1.0600, 1.1000]") != std::string::npos &&
                     line.find(rms) != std::string::npos,
                 line.c_str());
        // the Amdahl figure stays an estimate: the in-program figures do not enter it
        QVERIFY(text.find("program-level ESTIMATE, not a measurement") != std::string::npos);

        const nlohmann::json j = toJson(*report);
        QCOMPARE(j["program_time"]["pairs"].get<int>(), 6);
        QVERIFY(j["program_time"]["label"].get<std::string>().starts_with("measurement"));
        const nlohmann::json& k0 = j["kernels"][0];
        QCOMPARE(k0["kernel"].get<std::string>(), std::string("rmsnorm"));
        QCOMPARE(k0["in_program"]["status"].get<std::string>(), std::string("timed"));
        QVERIFY(k0["in_program"]["resolved"].get<bool>());
        QVERIFY(j["kernels"][3]["in_program"].is_null());
        const std::string html = renderHtml(*report);
        QVERIFY(html.find("<th>in-program speed-up [interval]</th>") != std::string::npos);
        QVERIFY(html.find("not launched after") != std::string::npos);
    }

    void foundBesideTheSpecs()
    {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        fs::create_directories(dir / "db");
        fs::create_directories(dir / "cap");
        fs::copy_file(kExample, dir / "cap" / "program-time.json");
        auto db = database(dir / "db", dir / "cap"); // --db elsewhere: the capture directory still has it
        QVERIFY(db);
        auto report = buildReport(*db);
        QVERIFY(report && report->programTime);
        QCOMPARE(row(*report, "rmsnorm").inProgram->status, InProgramStatus::Timed);
    }

    void absentFileIsNotTimed()
    {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        auto db = database(dir, dir);
        QVERIFY(db);
        auto report = buildReport(*db);
        QVERIFY(report);
        QVERIFY(!report->programTime);
        for (const TuneReportRow& r : report->rows)
            QCOMPARE(inProgramCell(r), std::string("not timed"));
        QVERIFY(programTimeLine(*report).starts_with("in-program: not timed"));
        QVERIFY(toJson(*report)["program_time"].is_null());
    }

    void brokenFilesAreOneLine_data()
    {
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("says");
        QTest::newRow("not json") << "{truncated"
                                  << "not JSON";
        QTest::newRow("other format") << R"({"format": "sassx-capture", "version": 1, "kernels": []})"
                                      << "not a sassx-program-time file";
        QTest::newRow("no kernels") << R"({"format": "sassx-program-time", "version": 1})"
                                    << "no kernels list";
        QTest::newRow("unnamed kernel")
            << R"({"format": "sassx-program-time", "version": 1, "kernels": [{}]})"
            << "kernels[0] has no name";
        QTest::newRow("unknown status")
            << R"({"format": "sassx-program-time", "version": 1, "kernels": [{"name": "rmsnorm", "status": "fast"}]})"
            << "status \"fast\"";
        QTest::newRow("timed without speed-up")
            << R"({"format": "sassx-program-time", "version": 1, "kernels": [{"name": "rmsnorm", "status": "timed"}]})"
            << "needs median, interval";
        QTest::newRow("interval without its median")
            << R"({"format": "sassx-program-time", "version": 1, "kernels": [{"name": "rmsnorm", "status":
                  "timed", "speedup": {"median": 2.0, "interval": [1.0, 1.5], "coverage": 0.9, "pairs": 4}}]})"
            << "does not hold its median";
    }

    void brokenFilesAreOneLine()
    {
        QFETCH(QString, content);
        QFETCH(QString, says);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        writeText(dir / "program-time.json", content.toStdString());
        auto db = database(dir, dir);
        QVERIFY(db);
        auto report = buildReport(*db);
        QVERIFY2(report, report ? "" : report.message().c_str()); // the report itself still renders
        QVERIFY(report->programTime);
        const std::string line = programTimeLine(*report);
        QVERIFY2(line.find(says.toStdString()) != std::string::npos, line.c_str());
        QVERIFY(line.find('\n') == std::string::npos);
        for (const TuneReportRow& r : report->rows)
            QCOMPARE(inProgramCell(r), std::string("not timed"));
    }

    // capture.json beside the specs says where each kernel came from; the report and its JSON carry it.
    void originsFromTheCapture()
    {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        writeText(dir / "capture.json", R"({"format": "sassx-capture", "version": 1, "kernels": [
            {"name": "rmsnorm", "origin": "triton"},
            {"name": "sgemm_leakyrelu", "origin": "library", "library": "/venv/torch/lib/libtorch_cuda.so"},
            {"name": "hgemm_leakyrelu", "origin": "jit"},
            {"name": "softmax", "origin": "a kind sassx does not know"}], "skipped": []})");
        auto db = database(dir, dir);
        QVERIFY(db);
        auto report = buildReport(*db);
        QVERIFY2(report, report ? "" : report.message().c_str());
        QCOMPARE(row(*report, "rmsnorm").origin->kind, inject::OriginKind::Triton);
        QCOMPARE(originText(*row(*report, "sgemm_leakyrelu").origin),
                 std::string("library libtorch_cuda.so"));
        QCOMPARE(originText(*row(*report, "hgemm_leakyrelu").origin), std::string("jit"));
        // An image in memory names the library that loaded it, where the hook saw one.
        QCOMPARE(originText({inject::OriginKind::Jit, "/venv/cupy/cuda/driver.so"}),
                 std::string("jit, loaded by driver.so"));
        QVERIFY(!row(*report, "softmax").origin); // unknown text: no origin invented
        const std::string text = renderText(*report);
        QVERIFY2(text.find("    origin: library libtorch_cuda.so (/venv/torch/lib/libtorch_cuda.so)\n") !=
                     std::string::npos,
                 text.c_str());
        const auto j = toJson(*report);
        bool found = false;
        for (const auto& r : j["kernels"])
            if (r["kernel"] == "hgemm_leakyrelu") found = r["origin"]["kind"] == "jit";
        QVERIFY(found);
    }

    // A verdict needs an interval that excludes 1.0 with 95% coverage, and a kernel that changed.
    void verdictRules_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<bool>("resolved");
        QTest::addColumn<QString>("cell");
        const QString timed = R"({"name": "rmsnorm", "status": "timed", "role": "%1", "speedup": {"median":
                                 1.02, "interval": [1.01, 1.03], "coverage": %2, "pairs": %3}})";
        QTest::newRow("changed, 6 pairs") << timed.arg("changed", "0.96875", "6") << true << "1.0200×";
        QTest::newRow("changed, 5 pairs") << timed.arg("changed", "0.9375", "5") << false << "unresolved";
        QTest::newRow("changed, 3 pairs") << timed.arg("changed", "0.75", "3") << false << "unresolved";
        QTest::newRow("control excluding 1.0") << timed.arg("control", "0.96875", "6") << false << "control";
    }

    void verdictRules()
    {
        QFETCH(QString, kernel);
        QFETCH(bool, resolved);
        QFETCH(QString, cell);
        QTemporaryDir tmp;
        const fs::path path = fs::path(tmp.path().toStdString()) / "program-time.json";
        writeText(path, R"({"format": "sassx-program-time", "version": 2, "kernels": [)" +
                            kernel.toStdString() + "]}");
        auto p = loadProgramTime(path.string());
        QVERIFY2(p, p ? "" : p.message().c_str());
        QCOMPARE(p->kernels.at("rmsnorm").resolved, resolved);
        TuneReportRow row;
        row.inProgram = p->kernels.at("rmsnorm");
        const std::string text = inProgramCell(row);
        QVERIFY2(text.find(cell.toStdString()) != std::string::npos, text.c_str());
    }

    void directoryIsRefused()
    {
        QTemporaryDir tmp;
        auto p = loadProgramTime(tmp.path().toStdString());
        QVERIFY(!p);
        QVERIFY2(p.message().find("is a directory") != std::string::npos, p.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTuneReport)
#include "test_tune_report.moc"
