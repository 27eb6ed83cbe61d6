// The Search dock: a scripted progress stream lands in the plot point by point (one graph per outcome,
// the best-so-far step line, the noise band, timed replots, clicks that name the evaluation), the
// controls describe exactly the configuration they show, and a real search with the estimate backend
// on a sample runs from the panel to a kept record and a new variant, survives pause, resume and stop,
// and comes back with the session file.
#include "core/session/session_file.h"
#include "widget_test_support.h"
#include "widgets/search_panel.h"
#include "widgets/search_plot.h"

#include <QComboBox>
#include <QDir>
#include <QFontDatabase>
#include <QFontInfo>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

using namespace sassx;
using search::Outcome;
using search::SearchEvaluation;
using search::SearchStatus;

namespace {

// A plausible stream: speed-ups around 1.0, about a fifth accepted, some failures with and without a
// speed-up, a re-measure now and then; `best` set where an accepted evaluation beats every earlier one.
std::vector<SearchEvaluation> scriptedRows(int n, double noiseFloor, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<SearchEvaluation> rows;
    double best = 1.0;
    for (int i = 0; i < n; ++i) {
        SearchEvaluation e;
        e.step = i;
        e.base = i - 1;
        e.kind = "candidate";
        e.figures.ok = true;
        e.figures.speedup = 0.97 + 0.05 * u(rng);
        e.figures.low = e.figures.high = e.figures.speedup;
        e.figures.noiseFloor = noiseFloor;
        e.figures.source = {"model sm_90", sassx::eval::FigureKind::Estimate};
        const double r = u(rng);
        if (r < 0.2) {
            e.outcome = Outcome::Accepted;
            e.best = e.figures.speedup > best;
            best = std::max(best, e.figures.speedup);
        } else if (r < 0.75) {
            e.outcome = Outcome::Rejected;
        } else if (r < 0.88) {
            e.outcome = Outcome::Failed;
            e.figures.ok = false;
            e.figures.failureKind = "wrong_output";
            if (r < 0.82) e.figures.speedup = 0.0; // no timing at all: plotted on the baseline
        } else {
            e.outcome = Outcome::Measure;
            e.kind = "re-measure";
        }
        rows.push_back(e);
    }
    return rows;
}

// Waits for the session's search to finish and be recorded (or fail); true when it was recorded.
bool waitForRecord(Session& s, QSignalSpy& recorded, QSignalSpy& failed, int timeoutMs = 120000)
{
    (void)QTest::qWaitFor([&] { return !recorded.isEmpty() || !failed.isEmpty(); }, timeoutMs);
    return !recorded.isEmpty();
}

} // namespace

class TestSearchPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests"));
    }

    // The band the user guide promises is drawn (its pixels are tinted, not just its coordinates set),
    // the legend names it or says there is none, and the y label fits the axis at the plot's smallest
    // height, in two font families.
    void noiseBandAndAxisLabel_data()
    {
        QTest::addColumn<QFont>("font");
        QTest::addColumn<double>("noiseFloor");
        auto [general, other] = test::twoFontFamilies();
        other.setPointSizeF(13);
        QTest::newRow("general font, 1% floor") << general << 0.01;
        QTest::newRow("second family 13pt, 0.4% floor") << other << 0.004;
        QTest::newRow("general font, estimate") << general << 0.0;
    }

    void noiseBandAndAxisLabel()
    {
        QFETCH(QFont, font);
        QFETCH(double, noiseFloor);
        SearchPlot plot;
        plot.setFont(font);
        plot.xAxis->setLabelFont(font);
        plot.yAxis->setLabelFont(font);
        plot.yAxis->setTickLabelFont(font);
        plot.resize(500, plot.minimumHeight());
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        search::SearchEvaluation e;
        e.step = 0;
        e.outcome = search::Outcome::Accepted;
        e.figures.ok = true;
        e.figures.speedup = 1.0 + 3 * noiseFloor + 0.001;
        e.figures.noiseFloor = noiseFloor;
        plot.append(e);
        plot.flush();
        QCOMPARE(plot.noiseBandEntry()->name(),
                 noiseFloor > 0 ? QStringLiteral("noise band ±%1%").arg(noiseFloor * 100, 0, 'f', 2)
                                : QStringLiteral("no noise band (estimate)"));
        const QImage image = plot.toPixmap().toImage();
        const int x = plot.axisRect()->center().x();
        const int inBand = int(plot.yAxis->coordToPixel(1.0 + noiseFloor / 2));
        // The plain background just above the band (the lightest of a few pixels: one may be a grid line).
        QColor background(Qt::black);
        const int bandTop = int(plot.yAxis->coordToPixel(1.0 + noiseFloor));
        for (int dy = 3; dy <= 11; dy += 2)
            if (image.pixelColor(x, bandTop - dy).red() > background.red())
                background = image.pixelColor(x, bandTop - dy);
        const QColor band = image.pixelColor(x, inBand);
        if (noiseFloor > 0) {
            // Tinted towards the band's blue: less red than the plain background at the same x.
            QVERIFY2(
                band.red() < background.red() - 8 && band.blue() >= band.red(),
                qPrintable(QStringLiteral("band %1, background %2").arg(band.name(), background.name())));
        }
        const QFontMetrics fm(plot.yAxis->labelFont());
        QVERIFY2(
            fm.horizontalAdvance(plot.yAxis->label()) <= plot.axisRect()->height(),
            qPrintable(
                QStringLiteral("'%1' in %2 px").arg(plot.yAxis->label()).arg(plot.axisRect()->height())));
        // Taller: the long label comes back.
        plot.resize(500, 600);
        QTest::qWait(20);
        plot.replot();
        QCOMPARE(plot.yAxis->label(), QStringLiteral("speed-up (> 1 = faster)"));
    }

    void plotsScriptedStream_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<double>("noiseFloor");
        QTest::addColumn<uint>("seed");
        QTest::newRow("200 rows, 0.4% floor") << 200 << 0.004 << 1u;
        QTest::newRow("1000 rows, 0.3% floor") << 1000 << 0.003 << 7u;
        QTest::newRow("50 rows, estimate (no floor)") << 50 << 0.0 << 3u;
        QTest::newRow("one row") << 1 << 0.002 << 11u;
    }

    void plotsScriptedStream()
    {
        QFETCH(int, rows);
        QFETCH(double, noiseFloor);
        QFETCH(uint, seed);
        Session session;
        session.store()->setAutosaveInterval(0);
        SearchPanel panel(session.variantTree(), session.searchRuns());
        panel.resize(1200, 520);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        SearchPlot* plot = panel.plot();
        QTRY_VERIFY(!plot->replotPending());

        const auto stream = scriptedRows(rows, noiseFloor, seed);
        std::map<Outcome, int> expected;
        double expectedBest = 1.0;
        int onBaseline = 0;
        const int replotsBefore = plot->replotCount();
        for (const auto& e : stream) {
            SearchStatus s;
            s.evaluations = e.step + 1;
            s.evalsPerSecond = 250.0;
            s.legalMoves = 124;
            ++expected[e.outcome];
            if (e.best) expectedBest = std::max(expectedBest, e.figures.speedup);
            s.bestSpeedup = expectedBest;
            onBaseline += e.figures.speedup <= 0 ? 1 : 0;
            // The panel listens to the session's SearchJob, exactly as during a real run.
            Q_EMIT session.searchRuns()->search()->evaluation(e, s);
        }
        // Appends never replot synchronously: one timed replot catches up with all of them.
        QCOMPARE(plot->replotCount(), replotsBefore);
        QVERIFY(plot->replotPending());
        QTRY_VERIFY_WITH_TIMEOUT(plot->replotCount() > replotsBefore, 2000);
        QVERIFY2(plot->replotCount() - replotsBefore <= 2, "a replot per point");

        QCOMPARE(plot->evaluationCount(), rows);
        for (Outcome o : {Outcome::Accepted, Outcome::Rejected, Outcome::Failed, Outcome::Measure}) {
            QCOMPARE(plot->pointCount(o), expected[o]);
            QCOMPARE(plot->outcomeGraph(o)->data()->size(), expected[o]);
        }
        // The best line ends at the newest evaluation on the highest accepted best.
        auto best = plot->bestGraph()->data();
        QVERIFY(!best->isEmpty());
        QCOMPARE((best->constEnd() - 1)->value, expectedBest);
        QCOMPARE(int((best->constEnd() - 1)->key), rows - 1);
        QCOMPARE(plot->bestSoFar(), expectedBest);
        // Step line: never falls.
        double last = 0.0;
        for (auto it = best->constBegin(); it != best->constEnd(); ++it) {
            QVERIFY(it->value >= last);
            last = it->value;
        }

        // The noise band: 1 ± floor across the plot, shown only when there is a floor.
        QCOMPARE(plot->noiseBand()->visible(), noiseFloor > 0);
        QCOMPARE(plot->noiseBand()->topLeft->coords().y(), 1.0 + noiseFloor);
        QCOMPARE(plot->noiseBand()->bottomRight->coords().y(), 1.0 - noiseFloor);
        QVERIFY(plot->yAxis->range().contains(1.0 + noiseFloor));
        QVERIFY(plot->yAxis->range().contains(1.0 - noiseFloor));

        // Failures without a speed-up sit on the baseline, inside the plot, below every real point.
        double lowest = 1.0 - noiseFloor;
        for (const auto& e : stream)
            if (e.figures.speedup > 0) lowest = std::min(lowest, e.figures.speedup);
        int seenOnBaseline = 0;
        auto failed = plot->outcomeGraph(Outcome::Failed)->data();
        for (auto it = failed->constBegin(); it != failed->constEnd(); ++it)
            if (it->value == plot->failureBaseline()) ++seenOnBaseline;
        QCOMPARE(seenOnBaseline, onBaseline);
        QVERIFY(plot->failureBaseline() > plot->yAxis->range().lower);
        QVERIFY(plot->failureBaseline() < lowest);

        // The status line repeats the stream's figures.
        QVERIFY2(panel.statusText().contains(QStringLiteral("%1 evaluations").arg(QLocale().toString(rows))),
                 qPrintable(panel.statusText()));
        QVERIFY2(panel.statusText().contains(QStringLiteral("124 legal moves")),
                 qPrintable(panel.statusText()));
        QVERIFY(panel.statusText().contains(QString::number(expectedBest, 'f', 4) + QChar(0xd7)));

        // A click on a point names its evaluation: pick points with no neighbour within 4 pixels (a
        // failure on the baseline among them when there is one), and a click on empty space names none.
        std::vector<int> clickable;
        for (const auto& e : stream) {
            const QPointF p = plot->pixelOf(e.step);
            QVERIFY(p.x() >= 0);
            bool alone = true;
            for (const auto& other : stream)
                if (other.step != e.step && QLineF(p, plot->pixelOf(other.step)).length() < 4.0)
                    alone = false;
            if (alone) clickable.push_back(e.step);
        }
        QVERIFY(!clickable.empty());
        qInfo("%zu of %d points clickable alone", clickable.size(), rows);
        std::vector<int> picks{clickable.front(), clickable[clickable.size() / 2], clickable.back()};
        for (int step : clickable)
            if (stream[size_t(step)].figures.speedup <= 0) {
                picks.push_back(step);
                break;
            }
        QSignalSpy clicked(plot, &SearchPlot::evaluationClicked);
        for (int step : picks) {
            clicked.clear();
            QTest::mouseClick(plot, Qt::LeftButton, {}, plot->pixelOf(step).toPoint());
            QCOMPARE(clicked.size(), 1);
            QCOMPARE(clicked.front().front().toInt(), step);
        }
        clicked.clear();
        const QRect inner = plot->axisRect()->rect();
        QTest::mouseClick(plot, Qt::LeftButton, {}, QPoint(inner.right() - 2, inner.top() + 2));
        QCOMPARE(clicked.size(), 0);
        // Through the panel the click asks the session for a variant; without a kernel it says why.
        QTest::mouseClick(plot, Qt::LeftButton, {}, plot->pixelOf(picks.front()).toPoint());
        QVERIFY2(panel.messageText().contains(QStringLiteral("No kernel is open")),
                 qPrintable(panel.messageText()));
    }

    void controlsDescribeTheConfiguration_data()
    {
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("space");
        QTest::addColumn<qlonglong>("evals");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<qulonglong>("seed");
        QTest::newRow("anneal mem 300") << "anneal"
                                        << ""
                                        << "mem" << 300LL << 0.0 << 1ULL;
        QTest::newRow("anneal sip all+control") << "anneal"
                                                << "sip"
                                                << "all+control" << 0LL << 0.0 << 9ULL;
        QTest::newRow("greedy all 2 minutes") << "greedy"
                                              << ""
                                              << "all" << 0LL << 120.0 << 5ULL;
        QTest::newRow("random yield") << "random"
                                      << ""
                                      << "yield" << 40LL << 0.0 << 2ULL;
        QTest::newRow("listsched all") << "listsched"
                                       << ""
                                       << "all" << 0LL << 0.0 << 1ULL;
    }

    void controlsDescribeTheConfiguration()
    {
        QFETCH(QString, algorithm);
        QFETCH(QString, preset);
        QFETCH(QString, space);
        QFETCH(qlonglong, evals);
        QFETCH(double, seconds);
        QFETCH(qulonglong, seed);
        Session session;
        SearchPanel panel(session.variantTree(), session.searchRuns());
        search::SearchConfig c;
        c.algorithm = *search::parseAlgorithm(algorithm.toStdString());
        c.preset = *search::parsePreset(preset.toStdString());
        c.space = *search::parseSearchSpace(space.toStdString());
        c.budgetEvals = evals;
        c.budgetSeconds = seconds;
        c.seed = seed;
        QVERIFY(c.validate().ok());
        panel.setConfig(c);
        auto back = panel.config();
        QVERIFY2(back.ok(), back.ok() ? "" : back.message().c_str());
        QCOMPARE(back->describe(), c.describe());
        QVERIFY(search::toJson(*back) == search::toJson(c));
    }

    void controlsRefuseWhatCannotRun()
    {
        Session session;
        SearchPanel panel(session.variantTree(), session.searchRuns());
        // Every space is listed and can be chosen (the rescheduled space since control codes are derived).
        auto* model = qobject_cast<QStandardItemModel*>(panel.spaceBox()->model());
        QVERIFY(model);
        for (const char* s : {"mem", "all", "yield", "all+control", "rescheduled"}) {
            const int row = panel.spaceBox()->findData(QString::fromLatin1(s));
            QVERIFY2(row >= 0, s);
            QVERIFY(model->item(row)->isEnabled());
        }

        // List scheduling has nothing to reorder in the yield space: one line, from the configuration.
        search::SearchConfig c;
        c.algorithm = search::Algorithm::ListSchedule;
        c.space = search::SearchSpace::Yield;
        panel.setConfig(c);
        auto refused = panel.config();
        QVERIFY(!refused.ok());
        QVERIFY(refused.message().find('\n') == std::string::npos);
        // Without a kernel Start says why instead of starting.
        c.algorithm = search::Algorithm::Anneal;
        c.budgetEvals = 10;
        panel.setConfig(c);
        panel.startButton()->click();
        QVERIFY2(panel.messageText().contains(QStringLiteral("No kernel is open")),
                 qPrintable(panel.messageText()));
        QVERIFY(!session.searchRuns()->search()->isRunning());
        // A bad GPU list is refused before anything starts.
        panel.setBackend(QStringLiteral("gpu"));
        panel.findChild<QLineEdit*>(QStringLiteral("searchGpus"))->setText(QStringLiteral("0,x"));
        QVERIFY(!panel.evaluatorOptions().ok());
    }

    // The real thing: the estimate backend on rmsnorm, started from the panel.
    void estimateSearchEndToEnd()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.sassx.json"));
        SearchRecord kept;
        std::vector<VariantRecord> variantsBefore;
        int bestVariant = -1;
        {
            Session session;
            session.store()->setAutosaveInterval(0);
            QVERIFY(test::openAndWait(session, cubin));
            QVERIFY(session.store()->save(path)); // the search's outputs go beside the session file
            SearchPanel panel(session.variantTree(), session.searchRuns());
            search::SearchConfig c;
            c.algorithm = search::Algorithm::Anneal;
            c.space = search::SearchSpace::All;
            c.budgetEvals = 60;
            c.seed = 1;
            panel.setConfig(c);
            panel.setBackend(QStringLiteral("estimate"));
            QSignalSpy started(session.searchRuns()->search(), &SearchJob::started);
            QSignalSpy rows(session.searchRuns()->search(), &SearchJob::evaluation);
            QSignalSpy recorded(session.searchRuns(), &SearchRuns::searchRecorded);
            QSignalSpy failed(session.searchRuns()->search(), &SearchJob::failed);
            panel.startButton()->click();
            QVERIFY2(session.searchRuns()->search()->isRunning(), qPrintable(panel.messageText()));
            QVERIFY(!panel.startButton()->isEnabled());
            QVERIFY(panel.stopButton()->isEnabled());
            // A second search is refused while one runs.
            QCOMPARE(session.searchRuns()->startSearch(c), QStringLiteral("A search is already running."));
            QVERIFY2(waitForRecord(session, recorded, failed),
                     failed.isEmpty() ? "timed out" : qPrintable(failed.front().front().toString()));
            QCOMPARE(started.size(), 1);
            QCOMPARE(started.front().at(0).toString(), QStringLiteral("estimate"));
            // Every evaluation arrived, in step order.
            QCOMPARE(rows.size(), 60);
            for (int i = 0; i < rows.size(); ++i)
                QCOMPARE(rows.at(i).at(0).value<SearchEvaluation>().step, i);
            QVERIFY(!session.searchRuns()->search()->isRunning());
            QVERIFY(panel.startButton()->isEnabled());

            // The record: configuration, every row, the report, the outputs on disk beside the session.
            QCOMPARE(session.searchRuns()->searches().size(), size_t(1));
            const SearchRecord& r = session.searchRuns()->searches().front();
            QCOMPARE(r.config.describe(), c.describe());
            QCOMPARE(r.history.size(), size_t(60));
            QCOMPARE(r.report.value("evaluations", 0), 60);
            QCOMPARE(r.backend(), std::string("estimate"));
            QVERIFY(QString::fromStdString(r.outDir).startsWith(
                QDir(dir.path()).filePath(QStringLiteral("searches/"))));
            QVERIFY(QString::fromStdString(r.outDir).endsWith(QStringLiteral("-anneal-all")));
            for (const char* f : {"report.json", "best.cubin", "history.csv", "diff.html", "checkpoint.json"})
                QVERIFY2(QFileInfo::exists(
                             QDir(QString::fromStdString(r.outDir)).filePath(QString::fromLatin1(f))),
                         f);

            // The best joined the variant tree with its edits and its (estimate) figures.
            QVERIFY2(r.improved(), r.report.value("summary", std::string()).c_str());
            bestVariant = recorded.front().at(1).toInt();
            const VariantRecord* v = session.variantTree()->variant(bestVariant);
            QVERIFY(v);
            QCOMPARE(v->parent, 0);
            QVERIFY2(QString::fromStdString(v->name).startsWith(QStringLiteral("anneal\u00b7all best 1.")),
                     v->name.c_str());
            // An estimate's figure says so wherever it is shown: here in the name (the title, the
            // diff's column headers and exports take the name).
            QVERIFY2(QString::fromStdString(v->name).endsWith(QStringLiteral("\u00d7 est.")),
                     v->name.c_str());
            // Its edits are the short list that reaches the chain's schedule
            // (core/rewrite/edit_compaction.h).
            auto bestEdits = editsOfEvaluation(r.history, r.bestStep());
            QVERIFY(bestEdits.ok());
            QVERIFY(!v->edits.empty());
            QVERIFY(v->edits.size() <= bestEdits->size());
            auto chain = session.variantTree()->kernel()->schedule(*bestEdits);
            auto stored = session.variantTree()->scheduleOf(bestVariant);
            QVERIFY(chain && stored);
            QVERIFY(chain->order == stored->order);
            QVERIFY(chain->control == stored->control);
            QVERIFY(v->figures);
            QCOMPARE(QString::fromStdString(v->figures->sourceLabel()).left(8), QStringLiteral("estimate"));
            QCOMPARE(1.0 / v->figures->result.timing->ratio.median, r.bestSpeedup());
            QVERIFY(session.variantTree()->scheduleOf(bestVariant).ok());
            qInfo("best variant: %s, %zu edits; %s", v->name.c_str(), v->edits.size(),
                  r.report.value("summary", std::string()).c_str());

            // The panel shows the kept run: its points, its figures, the backend said plainly.
            QCOMPARE(panel.shownRecord(), 0);
            QCOMPARE(panel.plot()->evaluationCount(), 60);
            QCOMPARE(panel.runsBox()->count(), 2);
            QVERIFY2(panel.statusText().contains(QStringLiteral("60 evaluations")),
                     qPrintable(panel.statusText()));
            QVERIFY2(panel.statusText().contains(QStringLiteral("estimate — not a measurement")),
                     qPrintable(panel.statusText()));
            QVERIFY2(panel.statusText().contains(QStringLiteral("\u00d7 est.")),
                     qPrintable(panel.statusText()));
            QVERIFY2(panel.runsBox()->itemText(1).contains(QStringLiteral("\u00d7 est.")),
                     qPrintable(panel.runsBox()->itemText(1)));

            // Any evaluation opens as a variant with the schedule its base chain adds up to; twice is once.
            int step = -1;
            for (const auto& e : r.history)
                if (e.outcome == Outcome::Rejected && e.base >= 0) step = e.step;
            QVERIFY(step > 0);
            QSignalSpy opened(&panel, &SearchPanel::evaluationOpened);
            panel.openEvaluation(step);
            QCOMPARE(opened.size(), 1);
            const int id = opened.front().front().toInt();
            QCOMPARE(session.variantTree()->currentVariantId(), id);
            QVERIFY2(QString::fromStdString(session.variantTree()->variant(id)->name)
                         .endsWith(QStringLiteral(" est.")),
                     session.variantTree()->variant(id)->name.c_str());
            {
                auto chain = session.variantTree()->kernel()->schedule(*editsOfEvaluation(r.history, step));
                auto opened = session.variantTree()->scheduleOf(id);
                QVERIFY(chain && opened);
                QVERIFY(chain->order == opened->order && chain->control == opened->control);
                QVERIFY(!chain->order.empty() &&
                        !(opened->order == Schedule::identity(*session.variantTree()->analysis()).order &&
                          opened->control == Schedule::identity(*session.variantTree()->analysis()).control));
            }
            QCOMPARE(session.searchRuns()->openSearchEvaluation(0, step), id);
            QCOMPARE(session.searchRuns()->openSearchEvaluation(0, r.bestStep()), bestVariant);
            QCOMPARE(session.searchRuns()->openSearchEvaluation(0, -1), 0); // the original
            QString error;
            QCOMPARE(session.searchRuns()->openSearchEvaluation(0, 60, &error), -1);
            QVERIFY(error.contains(QStringLiteral("no evaluation 60")));
            QCOMPARE(session.searchRuns()->openSearchEvaluation(3, 1, &error), -1);

            QVERIFY(session.store()->isModified());
            QVERIFY(session.store()->save(path));
            kept = r;
            variantsBefore = session.variantTree()->variants();
        }

        // Reopened: the record comes back whole, and the panel lists it and plots it.
        Session reopened;
        reopened.store()->setAutosaveInterval(0);
        SearchPanel panel(reopened.variantTree(), reopened.searchRuns());
        QSignalSpy restored(reopened.store(), &SessionStore::sessionRestored);
        QString error;
        QVERIFY2(reopened.store()->openSession(path, &error), qPrintable(error));
        QVERIFY(restored.wait(120000));
        QCOMPARE(reopened.searchRuns()->searches().size(), size_t(1));
        const SearchRecord& back = reopened.searchRuns()->searches().front();
        QCOMPARE(back.history.size(), kept.history.size());
        QVERIFY(search::toJson(back.config) == search::toJson(kept.config));
        QVERIFY(back.report == kept.report);
        QCOMPARE(back.outDir, kept.outDir);
        for (size_t i = 0; i < kept.history.size(); ++i)
            QVERIFY2(search::toJson(back.history[i]) == search::toJson(kept.history[i]),
                     search::toJson(back.history[i]).dump().c_str());
        QCOMPARE(reopened.variantTree()->variants().size(), variantsBefore.size());
        QCOMPARE(reopened.variantTree()->variant(bestVariant)->name,
                 variantsBefore[size_t(bestVariant)].name);
        QCOMPARE(panel.runsBox()->count(), 2);
        QCOMPARE(panel.shownRecord(), 0);
        QCOMPARE(panel.plot()->evaluationCount(), 60);
        QCOMPARE(reopened.searchRuns()->openSearchEvaluation(0, kept.bestStep()), bestVariant);
    }

    void pauseResumeStop()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        QTemporaryDir dir;
        Session session;
        session.store()->setAutosaveInterval(0);
        search::SearchConfig c;
        c.algorithm = search::Algorithm::Random;
        c.space = search::SearchSpace::All;
        c.budgetEvals = 1'000'000;
        EvaluatorOptions estimate;
        estimate.backend = sassx::eval::Backend::Estimate;
        QCOMPARE(session.searchRuns()->startSearch(c, estimate), QStringLiteral("No kernel is open."));
        QVERIFY(test::openAndWait(session, cubin));
        QVERIFY(session.store()->save(dir.filePath(QStringLiteral("p.sassx.json"))));
        const QString spec = session.launchSpecPath();
        session.setLaunchSpecPath({});
        QVERIFY(session.searchRuns()->startSearch(c, estimate).contains(QStringLiteral("launch spec")));
        session.setLaunchSpecPath(spec);

        SearchPanel panel(session.variantTree(), session.searchRuns());
        QSignalSpy rows(session.searchRuns()->search(), &SearchJob::evaluation);
        QSignalSpy recorded(session.searchRuns(), &SearchRuns::searchRecorded);
        QSignalSpy failed(session.searchRuns()->search(), &SearchJob::failed);
        QCOMPARE(session.searchRuns()->startSearch(c, estimate), QString());
        QTRY_VERIFY_WITH_TIMEOUT(rows.size() >= 20, 60000);
        panel.pauseButton()->click();
        QVERIFY(session.searchRuns()->search()->isPaused());
        QCOMPARE(panel.pauseButton()->text(), QStringLiteral("Resume"));
        // The evaluation in flight lands, then nothing more while paused.
        int held = -1;
        for (int tries = 0; tries < 20 && held != int(rows.size()); ++tries) {
            held = int(rows.size());
            QTest::qWait(300);
        }
        QTest::qWait(500);
        QCOMPARE(int(rows.size()), held);
        qInfo("paused after %d evaluations", held);
        QVERIFY(panel.statusText().startsWith(QStringLiteral("paused")));
        panel.pauseButton()->click();
        QVERIFY(!session.searchRuns()->search()->isPaused());
        QTRY_VERIFY_WITH_TIMEOUT(rows.size() > held + 10, 60000);
        panel.stopButton()->click();
        QVERIFY2(waitForRecord(session, recorded, failed),
                 failed.isEmpty() ? "timed out" : qPrintable(failed.front().front().toString()));
        // Stopped runs still report and write their outputs; every row of the run is kept.
        const SearchRecord& r = session.searchRuns()->searches().front();
        QCOMPARE(r.report.value("stop_reason", std::string()), std::string("stopped"));
        QCOMPARE(r.report.value("finished", true), false);
        QCOMPARE(int(r.history.size()), int(rows.size()));
        QVERIFY(int(r.history.size()) < 1'000'000);
        QVERIFY(QFileInfo::exists(
            QDir(QString::fromStdString(r.outDir)).filePath(QStringLiteral("report.json"))));
        QVERIFY(!session.searchRuns()->search()->isRunning());

        // Continue: the stopped run goes on from its checkpoint (here with a budget of 15 more) and the
        // plot starts with what it already had.
        const std::vector<search::SearchEvaluation> first = r.history; // r goes when the records grow
        const int before = int(first.size());
        const QString outDir = QString::fromStdString(r.outDir);
        recorded.clear();
        failed.clear();
        QVERIFY(panel.continueButton()->isEnabled());
        QVERIFY(!session.searchRuns()
                     ->resumeSearch(dir.filePath(QStringLiteral("nothing-here")), estimate)
                     .isEmpty());
        QCOMPARE(session.searchRuns()->resumeSearch(outDir, estimate, before + 15), QString());
        QVERIFY(!panel.continueButton()->isEnabled() || session.searchRuns()->search()->isRunning());
        QVERIFY(int(session.searchRuns()->search()->history().size()) >= before);
        QVERIFY2(waitForRecord(session, recorded, failed),
                 failed.isEmpty() ? "timed out" : qPrintable(failed.front().front().toString()));
        QCOMPARE(int(session.searchRuns()->searches().size()), 2);
        const SearchRecord& again = session.searchRuns()->searches().back();
        QCOMPARE(int(again.history.size()), before + 15);
        for (int i = 0; i < before; ++i)
            QVERIFY(again.history[size_t(i)].edits == first[size_t(i)].edits);
        QCOMPARE(again.report.value("finished", false), true);
    }
};

QTEST_MAIN(TestSearchPanel)
#include "test_search_panel.moc"
