// Session save → reopen: input, kernel, launch spec, variants (tree, names, edits), figures with their
// source, current variant and selection come back exactly; the write is atomic; bad files are refused
// with a sentence. Kept searches name their outputs for their histories.
#include "core/rewrite/block_positions.h"
#include "core/session/session_file.h"
#include "widget_test_support.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace sassx;

class TestSessionFile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QCoreApplication::setApplicationName(QStringLiteral("sassx-tests")); }

    void saveAndReopen()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.sassx.json"));
        std::vector<VariantRecord> before;
        {
            Session s;
            s.store()->setAutosaveInterval(0);
            QVERIFY(test::openAndWait(s, cubin));
            const auto& a = *s.variantTree()->analysis();
            Position first(0);
            for (const auto& b : a.cfg.blocks)
                if (b.size() >= 3) {
                    first = firstPosition(b);
                    break;
                }
            const int v1 =
                s.variantTree()->addVariant(0, QStringLiteral("swap"), {Edit::move(first + 1, first)});
            const int v2 = s.variantTree()->addVariant(
                v1, QStringLiteral("swap+stall"),
                {Edit::move(first + 1, first), Edit::control(first, 4, 1, std::nullopt)});
            VariantRecord r = *s.variantTree()->variant(v2);
            r.figures = VariantFigures{};
            r.figures->result.correct = true;
            r.figures->result.source = {"NVIDIA H100 80GB HBM3", sassx::eval::FigureKind::Measured};
            eval::TimingFigures t;
            t.ratio = {0.95, 0.93, 0.97, 50};
            t.baselineMedianUs = 10;
            t.candidateMedianUs = 9.5;
            r.figures->result.timing = t;
            r.figures->result.metrics.push_back(
                {"lts__t_sector_hit_rate.pct", 80.0, "%", {"NVIDIA H100", sassx::eval::FigureKind::Ncu}});
            r.figures->when = "2024-01-01T00:00:00";
            s.variantTree()->restoreVariant(r);
            s.variantTree()->setCurrentVariant(v2);
            // The instruction ptxas put there: a block's first position is also its first InstrId.
            s.variantTree()->setSelectedInstruction(int(first.value()));
            QVERIFY(s.store()->isModified());
            QString error;
            QVERIFY2(s.store()->save(path, &error), qPrintable(error));
            QVERIFY(!s.store()->isModified());
            before = s.variantTree()->variants();
        }
        Session reopened;
        reopened.store()->setAutosaveInterval(0);
        QSignalSpy restored(reopened.store(), &SessionStore::sessionRestored);
        QString error;
        QVERIFY2(reopened.store()->openSession(path, &error), qPrintable(error));
        QVERIFY(restored.wait(120000));
        QCOMPARE(reopened.inputPath(), QFileInfo(cubin).absoluteFilePath());
        QCOMPARE(reopened.kernelName(), QStringLiteral("rmsnorm"));
        QCOMPARE(reopened.variantTree()->variants().size(), before.size());
        for (size_t i = 0; i < before.size(); ++i) {
            const auto& a = before[i];
            const auto& b = reopened.variantTree()->variants()[i];
            QCOMPARE(b.id, a.id);
            QCOMPARE(b.parent, a.parent);
            QCOMPARE(b.name, a.name);
            QVERIFY(b.edits == a.edits);
            QCOMPARE(b.figures.has_value(), a.figures.has_value());
            if (a.figures) {
                QCOMPARE(b.figures->sourceLabel(), std::string("measured on NVIDIA H100 80GB HBM3"));
                QCOMPARE(b.figures->result.timing->ratio.median, 0.95);
                QVERIFY(b.figures->result.metrics.front().source.kind == sassx::eval::FigureKind::Ncu);
                QCOMPARE(b.figures->when, a.figures->when);
            }
        }
        QCOMPARE(reopened.variantTree()->currentVariantId(), before.back().id);
        QVERIFY(!reopened.variantTree()->schedule().isIdentity(*reopened.variantTree()->analysis()));
        QVERIFY(reopened.variantTree()->selectedInstruction() >= 0);
        QVERIFY(!reopened.store()->isModified());
        // Saving again writes the same document (nothing lost or invented on the round trip).
        const QString again = dir.filePath(QStringLiteral("again.sassx.json"));
        QVERIFY(reopened.store()->save(again));
        auto f1 = readSessionFile(path.toStdString());
        auto f2 = readSessionFile(again.toStdString());
        QVERIFY(f1 && f2);
        QCOMPARE(toJson(*f1).dump(), toJson(*f2).dump());
    }

    // A session file belongs to the input it was saved for: opening another input starts a new, unsaved
    // session, and nothing it does writes over the first file (it once took the second kernel's session).
    void anotherInputStartsANewSession()
    {
        const QString first = test::sampleCubin(QStringLiteral("rmsnorm"));
        const QString second = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(first);
        SASSX_REQUIRE_SAMPLE(second);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("first.sassx.json"));
        Session s;
        s.store()->setAutosaveInterval(0);
        QVERIFY(test::openAndWait(s, first));
        const auto& a = *s.variantTree()->analysis();
        Position at(0);
        for (const auto& b : a.cfg.blocks)
            if (b.size() >= 2) {
                at = firstPosition(b);
                break;
            }
        s.variantTree()->addVariant(0, QStringLiteral("swap"), {Edit::move(at + 1, at)});
        QString error;
        QVERIFY2(s.store()->save(path, &error), qPrintable(error));
        QCOMPARE(s.store()->sessionPath(), QFileInfo(path).absoluteFilePath());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray saved = f.readAll();
        f.close();

        QVERIFY(test::openAndWait(s, second));
        QVERIFY2(s.store()->sessionPath().isEmpty(), qPrintable(s.store()->sessionPath()));
        s.variantTree()->addVariant(0, QStringLiteral("other"),
                                    {Edit::control(Position(0), std::nullopt, std::nullopt, std::nullopt)});
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), saved);
        f.close();
        // Reopening the first file brings its own session back, with its path.
        Session again;
        again.store()->setAutosaveInterval(0);
        QSignalSpy restored(again.store(), &SessionStore::sessionRestored);
        QVERIFY2(again.store()->openSession(path, &error), qPrintable(error));
        QVERIFY(restored.wait(120000));
        QCOMPARE(again.kernelName(), QStringLiteral("rmsnorm"));
        QCOMPARE(again.store()->sessionPath(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(int(again.variantTree()->variants().size()), 2);
    }

    void refusesBadFiles()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.sassx.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"something-else\"}");
        f.close();
        Session s;
        QString error;
        QVERIFY(!s.store()->openSession(path, &error));
        QVERIFY(error.contains(QStringLiteral("not a sassx session")));
        QVERIFY(!s.store()->openSession(dir.filePath(QStringLiteral("missing.json")), &error));
        QVERIFY(error.contains(QStringLiteral("cannot read")));
        // Figures without a source are refused rather than shown unlabelled.
        auto fig = figuresFromJson(nlohmann::json{{"correct", true}});
        QVERIFY(!fig);
    }

    // Kept searches ("searches"): optional for files written before them, checked when present, and
    // their evaluations replay through the chain of bases.
    void searchRecords()
    {
        auto row = [](int step, int base, Edit edit, search::Outcome outcome) {
            search::SearchEvaluation e;
            e.step = step;
            e.base = base;
            e.edits = {edit};
            e.kind = "candidate";
            e.outcome = outcome;
            e.figures.ok = outcome != search::Outcome::Failed;
            e.figures.speedup = e.figures.ok ? 1.0 + 0.001 * step : 0.0;
            e.figures.source = {"model sm_90", sassx::eval::FigureKind::Estimate};
            return e;
        };
        SearchRecord r;
        r.config.algorithm = search::Algorithm::Greedy;
        r.config.space = search::SearchSpace::All;
        r.config.budgetEvals = 4;
        r.outDir = "/tmp/searches/x";
        r.report = {{"improved", true}, {"best", {{"step", 3}, {"final", {{"speedup", 1.003}}}}}};
        r.history = {row(0, -1, Edit::move(Position(1), Position(0)), search::Outcome::Accepted),
                     row(1, 0, Edit::move(Position(5), Position(4)), search::Outcome::Accepted),
                     row(2, -1, Edit::move(Position(9), Position(8)), search::Outcome::Failed),
                     row(3, 1, Edit::move(Position(12), Position(11)), search::Outcome::Accepted)};
        QCOMPARE(r.bestStep(), 3);
        QCOMPARE(r.bestSpeedup(), 1.003);
        QCOMPARE(r.label(), std::string("greedy\u00b7all"));
        auto chain = editsOfEvaluation(r.history, 3);
        QVERIFY(chain);
        QVERIFY(*chain ==
                (std::vector<Edit>{Edit::move(Position(1), Position(0)), Edit::move(Position(5), Position(4)),
                                   Edit::move(Position(12), Position(11))}));
        QVERIFY(*editsOfEvaluation(r.history, 2) == std::vector<Edit>{Edit::move(Position(9), Position(8))});
        QVERIFY(editsOfEvaluation(r.history, -1)->empty());
        QVERIFY(!editsOfEvaluation(r.history, 4));

        SessionFile file;
        file.input = "/nowhere/k.cubin";
        file.kernel = "k";
        file.searches = {r};
        const nlohmann::json j = toJson(file);
        auto back = sessionFileFromJson(j);
        QVERIFY2(back, back ? "" : back.message().c_str());
        QCOMPARE(back->searches.size(), size_t(1));
        QVERIFY(toJson(back->searches.front()) == toJson(r));

        // A file from before searches were kept loads with none.
        nlohmann::json old = j;
        old.erase("searches");
        auto oldFile = sessionFileFromJson(old);
        QVERIFY(oldFile);
        QVERIFY(oldFile->searches.empty());

        // A history whose base does not come before its evaluation is refused with a sentence.
        nlohmann::json broken = j;
        broken["searches"][0]["history"][1]["base"] = 2;
        auto refused = sessionFileFromJson(broken);
        QVERIFY(!refused);
        QVERIFY2(refused.message().find("out of order") != std::string::npos, refused.message().c_str());
        broken = j;
        broken["searches"] = "none";
        QVERIFY(!sessionFileFromJson(broken));
    }

    // Source folders ("source_folders", the Source dock's substitute-path): kept, optional for files
    // written before them, and an entry that is not {from, to} is refused in one line.
    void sourceFolders()
    {
        SessionFile file;
        file.input = "/nowhere/k.cubin";
        file.kernel = "k";
        file.sourceFolders = {{"/build/ci/triton_dump", "/home/me/src"}, {"", "/home/me/more"}};
        const nlohmann::json j = toJson(file);
        auto back = sessionFileFromJson(j);
        QVERIFY2(back, back ? "" : back.message().c_str());
        QVERIFY(back->sourceFolders == file.sourceFolders);
        nlohmann::json old = j;
        old.erase("source_folders");
        auto oldFile = sessionFileFromJson(old);
        QVERIFY(oldFile && oldFile->sourceFolders.empty());
        nlohmann::json broken = j;
        broken["source_folders"][0] = "/home/me/src";
        auto refused = sessionFileFromJson(broken);
        QVERIFY(!refused);
        QVERIFY2(refused.message().find("source_folders") != std::string::npos &&
                     refused.message().find('\n') == std::string::npos,
                 refused.message().c_str());
    }

    // A kept run's history stays in its outputs (checkpoint.json), not copied into the session file;
    // outputs written beside the autosave move beside the session when it is saved; a run whose outputs
    // are gone reopens with an empty plot and a note, and only the checkpoint's own name is followed.
    void searchHistoryLivesInItsOutputs()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        QStandardPaths::setTestModeEnabled(true);
        QTemporaryDir tmp;
        Session session;
        session.store()->setAutosaveInterval(0);
        QVERIFY(test::openAndWait(session, cubin));
        search::SearchConfig c;
        c.algorithm = search::Algorithm::Climb;
        c.space = search::SearchSpace::All;
        c.budgetEvals = 40;
        c.seed = 3;
        EvaluatorOptions estimate;
        estimate.backend = sassx::eval::Backend::Estimate;
        QSignalSpy recorded(session.searchRuns(), &SearchRuns::searchRecorded);
        QSignalSpy failed(session.searchRuns()->search(), &SearchJob::failed);
        QCOMPARE(session.searchRuns()->startSearch(c, estimate), QString());
        QVERIFY(QTest::qWaitFor([&] { return !recorded.isEmpty() || !failed.isEmpty(); }, 120000));
        QVERIFY(!recorded.isEmpty());
        const QString scratch = QFileInfo(SessionStore::autosavePath()).absolutePath();
        const QString before = QString::fromStdString(session.searchRuns()->searches().front().outDir);
        QVERIFY2(before.startsWith(scratch), qPrintable(before));

        const QString path = tmp.filePath(QStringLiteral("s.sassx.json"));
        QVERIFY(session.store()->save(path));
        const SearchRecord& kept = session.searchRuns()->searches().front();
        const QString after = QString::fromStdString(kept.outDir);
        QVERIFY2(after.startsWith(tmp.filePath(QStringLiteral("searches/"))), qPrintable(after));
        QVERIFY(QFileInfo::exists(after + QStringLiteral("/checkpoint.json")));
        QVERIFY(!QFileInfo::exists(before));

        QFile saved(path);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const nlohmann::json j = nlohmann::json::parse(saved.readAll().toStdString());
        const nlohmann::json& js = j.at("searches").at(0);
        QVERIFY(!js.contains("history"));
        QCOMPARE(js.value("history_from", std::string()), std::string("checkpoint.json"));
        QVERIFY(saved.size() < qint64(toJson(kept).at("history").dump().size()));

        auto back = readSessionFile(path.toStdString());
        QVERIFY2(back, back ? "" : back.message().c_str());
        QCOMPARE(back->searches.front().history.size(), size_t(40));
        QVERIFY(toJson(back->searches.front()) == toJson(kept));
        QVERIFY(back->notes.empty());

        // The outputs deleted: the run is still listed, its plot empty, and the reopening says why.
        QVERIFY(QFile::remove(after + QStringLiteral("/checkpoint.json")));
        auto gone = readSessionFile(path.toStdString());
        QVERIFY2(gone, gone ? "" : gone.message().c_str());
        QVERIFY(gone->searches.front().history.empty());
        QCOMPARE(gone->notes.size(), size_t(1));
        QVERIFY2(gone->notes.front().find("checkpoint.json") != std::string::npos,
                 gone->notes.front().c_str());

        // A session file naming any other file for the history is refused.
        nlohmann::json hostile = j;
        hostile["searches"][0]["history_from"] = "../../etc/passwd";
        QVERIFY(!sessionFileFromJson(hostile));
    }
};

QTEST_MAIN(TestSessionFile)
#include "test_session_file.moc"
