// Timed harness for the variants tree with thousands of variants: a real kernel open, the
// VariantsPanel shown (offscreen QPA), 5,000 variants added through the variant tree (a legal move each;
// most under the original, every tenth nested under an earlier variant), the event loop run after each
// add (one search result per event) and after every 100 (a batch per event); then selecting,
// scrolling, expanding and switching the current variant among 5,000 rows; then 1,000 removals.
//
// The old behaviour (the model reset on every structural change) is replayed for comparison by
// emitting VariantTree::variantsChanged after each add: that is exactly what the old connection
// variantAdded → rebuild() did (a model reset, then the panel's expandAll + select current).
//
// Run: build/bench/gui/variants_bench [cubin] [results.md] [--count N] [--old-count N]
#include "core/session/session.h"
#include "widgets/models/variants_model.h"
#include "widgets/variants_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTest>
#include <QThread>
#include <QTreeView>
#include <QUndoStack>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>
#include <random>
#include <vector>

using namespace sassx;

namespace {

// Wall time and this thread's CPU time. The container is shared (other builds run beside the bench),
// so wall times include waiting for a core; the UI thread's CPU time is what the work itself costs.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Stopwatch
{
    QElapsedTimer wall;
    double cpu0 = 0;
    Stopwatch() { restart(); }
    void restart()
    {
        wall.start();
        cpu0 = threadCpuMs();
    }
    double wallMs() const { return wall.nsecsElapsed() / 1e6; }
    double cpuMs() const { return threadCpuMs() - cpu0; }
};

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

// Median wall and median CPU ms of `runs` calls.
std::pair<double, double> medianOfRuns(int runs, const std::function<void()>& f)
{
    std::vector<double> wall, cpu;
    for (int i = 0; i < runs; ++i) {
        Stopwatch t;
        f();
        wall.push_back(t.wallMs());
        cpu.push_back(t.cpuMs());
    }
    return {median(wall), median(cpu)};
}

bool openAndWait(Session& session, const QString& path)
{
    QSignalSpy ready(&session, &Session::analysisReady);
    QSignalSpy failed(&session, &Session::analysisFailed);
    QSignalSpy loadFailed(&session, &Session::loadFailed);
    session.openInput(path);
    return QTest::qWaitFor([&] { return !ready.isEmpty() || !failed.isEmpty() || !loadFailed.isEmpty(); },
                           600000) &&
           !ready.isEmpty();
}

struct Edits
{
    std::vector<Edit> top;    // one legal move
    std::vector<Edit> nested; // that move and a second legal one (a child repeats its parent's edits)
};

// Two legal adjacent moves, each checked by the session's legality checker.
std::optional<Edits> legalEdits(const Session& session)
{
    const KernelAnalysis& a = *session.variantTree()->analysis();
    auto first = session.variantTree()->checker()->legalMoves(Schedule::identity(a), false);
    for (const auto& [from, to] : first) {
        Edits e;
        e.top = {Edit::move(from, to)};
        if (!session.variantTree()->checkEdits(0, e.top).legal()) continue;
        auto after = applyEdits(a, e.top);
        if (!after) continue;
        for (const auto& [f2, t2] : session.variantTree()->checker()->legalMoves(*after, false)) {
            if (std::max(f2, t2) + 1 >= std::min(from, to) && std::min(f2, t2) <= std::max(from, to) + 1)
                continue; // away from the first move, so the pair is two independent edits
            e.nested = {e.top.front(), Edit::move(f2, t2)};
            if (session.variantTree()->checkEdits(0, e.nested).legal()) return e;
        }
    }
    return std::nullopt;
}

struct AddRun
{
    QString label;
    int count = 0;
    double totalMs = 0, totalCpuMs = 0;
    double longestStallMs = 0, longestStallCpuMs = 0; // from one event-loop turn to the next
    std::vector<double> perAddMs, perAddCpuMs;        // addVariant plus the event processing that followed
};

// Adds `count` variants named v1…vN; runs the event loop after every `batch` adds. `oldReset` replays the
// old model (a reset per structural change). Every tenth variant is nested under a random earlier one.
AddRun addVariants(Session& session, const Edits& edits, int count, int batch, bool oldReset,
                   const QString& label)
{
    AddRun run;
    run.label = label;
    run.count = count;
    QRandomGenerator rng(20261122);
    std::vector<int> ids;
    ids.reserve(size_t(count));
    Stopwatch total, batchTimer;
    for (int i = 1; i <= count; ++i) {
        Stopwatch t;
        const bool nested = i % 10 == 0 && !ids.empty();
        const int parent = nested ? ids[rng.bounded(int(ids.size()))] : 0;
        ids.push_back(session.variantTree()->addVariant(parent, QStringLiteral("v%1").arg(i),
                                                        nested ? edits.nested : edits.top));
        if (oldReset) Q_EMIT session.variantTree()->variantsChanged();
        if (i % batch == 0 || i == count) {
            QCoreApplication::processEvents();
            run.longestStallMs = std::max(run.longestStallMs, batchTimer.wallMs());
            run.longestStallCpuMs = std::max(run.longestStallCpuMs, batchTimer.cpuMs());
            batchTimer.restart();
        }
        run.perAddMs.push_back(t.wallMs());
        run.perAddCpuMs.push_back(t.cpuMs());
    }
    run.totalMs = total.wallMs();
    run.totalCpuMs = total.cpuMs();
    return run;
}

QString fmt(double ms)
{
    return QString::number(ms, 'f', ms < 10 ? 3 : 1);
}

QString both(double wallMs, double cpuMs)
{
    return fmt(wallMs) + QStringLiteral(" / ") + fmt(cpuMs);
}

// The panel over one session with the kernel open, and the figures gathered on it.
struct Bench
{
    QString cubin;
    Session session;
    QUndoStack undo;
    VariantsPanel panel{session.variantTree(), session.measureQueue(), &undo};
    Edits edits;

    QTreeView* tree() const { return panel.tree(); }
    VariantsModel* model() const { return panel.model(); }
    void reopen()
    {
        if (!openAndWait(session, cubin)) std::abort();
        QCoreApplication::processEvents();
    }

    QString adds(int count, int oldCount);
    QString operations();
    QString removals(int count);
};

// Adding `count` variants with the row-insert model (event loop after each add and after every 100), and
// `oldCount` with a reset per add, the old behaviour. The tree is left with `count` variants.
QString Bench::adds(int count, int oldCount)
{
    QSignalSpy resets(model(), &QAbstractItemModel::modelReset);
    std::vector<AddRun> runs;
    runs.push_back(addVariants(session, edits, count, 1, false,
                               QStringLiteral("row inserts, event loop after each add")));
    const qsizetype resetsDuringAdds = resets.size();
    reopen();
    runs.push_back(addVariants(session, edits, count, 100, false,
                               QStringLiteral("row inserts, event loop after every 100 adds")));
    if (oldCount > 0) {
        reopen();
        runs.push_back(addVariants(session, edits, oldCount, 100, true,
                                   QStringLiteral("old: reset per add, event loop after every 100 adds")));
        reopen();
        runs.push_back(addVariants(session, edits, oldCount, 1, true,
                                   QStringLiteral("old: reset per add, event loop after each add")));
        reopen();
        // The tree used next: the new model, one add per event (and a second sample of that mode).
        runs.push_back(addVariants(session, edits, count, 1, false,
                                   QStringLiteral("row inserts, event loop after each add (again)")));
    }
    QString md =
        QStringLiteral("### Adding %1 variants\n\nEach cell: wall ms / UI-thread CPU ms.\n\n").arg(count);
    md += QStringLiteral(
        "| Mode | Adds | Total (s) | Longest UI stall (ms) | Median per add, first 500 (ms) | "
        "Median per add, last 500 (ms) | p99 per add (ms) |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (const AddRun& r : runs) {
        const long k = std::min(500, r.count);
        auto firstAndLast = [k](const std::vector<double>& v) {
            return std::pair{median({v.begin(), v.begin() + k}), median({v.end() - k, v.end()})};
        };
        const auto [firstWall, lastWall] = firstAndLast(r.perAddMs);
        const auto [firstCpu, lastCpu] = firstAndLast(r.perAddCpuMs);
        md += QStringLiteral("| %1 | %2 | %3 / %4 | %5 | %6 | %7 | %8 |\n")
                  .arg(r.label)
                  .arg(r.count)
                  .arg(r.totalMs / 1000, 0, 'f', 2)
                  .arg(r.totalCpuMs / 1000, 0, 'f', 2)
                  .arg(both(r.longestStallMs, r.longestStallCpuMs), both(firstWall, firstCpu),
                       both(lastWall, lastCpu),
                       both(percentile(r.perAddMs, 0.99), percentile(r.perAddCpuMs, 0.99)));
    }
    md +=
        QStringLiteral("\nModel resets during the first %1 row-insert adds: %2. Per-add times include the "
                       "event processing that followed (in the batched modes a batch's processing counts in "
                       "its last add, so the medians show the adds alone).\n\n")
            .arg(count)
            .arg(resetsDuringAdds);
    return md;
}

// Selecting, scrolling, expanding, switching the current variant and renaming among all the rows.
QString Bench::operations()
{
    QRandomGenerator rng(7);
    std::vector<int> ids;
    for (const VariantRecord& v : session.variantTree()->variants())
        ids.push_back(v.id);
    auto randomId = [&] { return ids[rng.bounded(int(ids.size()))]; };
    QString md =
        QStringLiteral("### With %1 variants in the tree\n\n| Operation | Median wall / CPU (ms) | Runs "
                       "|\n|---|---:|---:|\n")
            .arg(ids.size());
    auto op = [&](const QString& what, int runs, const std::function<void()>& f) {
        const auto [wall, cpu] = medianOfRuns(runs, f);
        md += QStringLiteral("| %1 | %2 | %3 |\n").arg(what, both(wall, cpu)).arg(runs);
    };
    op(QStringLiteral("select one random variant + scroll to it + repaint"), 50, [&] {
        const int id = randomId();
        panel.selectVariants({id});
        tree()->scrollTo(model()->indexOfVariant(id));
        tree()->viewport()->repaint();
    });
    op(QStringLiteral("select 100 random variants + events"), 20, [&] {
        std::vector<int> some;
        for (int i = 0; i < 100; ++i)
            some.push_back(randomId());
        panel.selectVariants(some);
        QCoreApplication::processEvents();
    });
    op(QStringLiteral("selectedVariants() with 100 selected"), 20, [&] { (void)panel.selectedVariants(); });
    QScrollBar* bar = tree()->verticalScrollBar();
    bar->setValue(0);
    op(QStringLiteral("scroll one page + repaint"), 100, [&] {
        bar->setValue(bar->value() + bar->pageStep());
        tree()->viewport()->repaint();
    });
    op(QStringLiteral("jump to a random scroll position + repaint"), 100, [&] {
        bar->setValue(int(rng.bounded(bar->maximum() + 1)));
        tree()->viewport()->repaint();
    });
    op(QStringLiteral("collapseAll + repaint + expandAll + events (all rows)"), 10, [&] {
        tree()->collapseAll();
        tree()->viewport()->repaint();
        tree()->expandAll();
        QCoreApplication::processEvents();
    });
    op(QStringLiteral("collapse + repaint + expand + repaint the original (most rows under it)"), 10, [&] {
        tree()->collapse(model()->indexOfVariant(0));
        tree()->viewport()->repaint();
        tree()->expand(model()->indexOfVariant(0));
        tree()->viewport()->repaint();
    });
    op(QStringLiteral("make a random variant current (schedule + 2 rows + selection) + events"), 50, [&] {
        session.variantTree()->setCurrentVariant(randomId());
        QCoreApplication::processEvents();
    });
    op(QStringLiteral("rename a random variant + events"), 50, [&] {
        const int id = randomId();
        if (id != 0) session.variantTree()->renameVariant(id, QStringLiteral("r%1").arg(rng.generate()));
        QCoreApplication::processEvents();
    });
    return md;
}

// Removing `count` random variants (nested ones among them: their children move up), event loop after
// each.
QString Bench::removals(int count)
{
    session.variantTree()->setCurrentVariant(0);
    std::vector<int> victims;
    for (const VariantRecord& v : session.variantTree()->variants())
        if (!v.isOriginal()) victims.push_back(v.id);
    std::shuffle(victims.begin(), victims.end(), std::mt19937(11));
    victims.resize(std::min(size_t(count), victims.size()));
    int withChildren = 0;
    std::vector<double> wallMs, cpuMs;
    QSignalSpy moved(model(), &QAbstractItemModel::rowsMoved);
    QSignalSpy resets(model(), &QAbstractItemModel::modelReset);
    Stopwatch total;
    for (int id : victims) {
        Stopwatch t;
        if (!session.variantTree()->childrenOf(id).empty()) ++withChildren;
        session.variantTree()->removeVariant(id);
        QCoreApplication::processEvents();
        wallMs.push_back(t.wallMs());
        cpuMs.push_back(t.cpuMs());
    }
    QString md = QStringLiteral("\n### Removing %1 variants (event loop after each)\n\nEach cell: wall / "
                                "UI-thread CPU.\n\n")
                     .arg(victims.size());
    md += QStringLiteral(
        "| Total (s) | Longest UI stall (ms) | Median (ms) | p99 (ms) | Had children | Rows moved "
        "up | Resets |\n|---:|---:|---:|---:|---:|---:|---:|\n");
    md +=
        QStringLiteral("| %1 / %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
            .arg(total.wallMs() / 1000, 0, 'f', 2)
            .arg(total.cpuMs() / 1000, 0, 'f', 2)
            .arg(both(*std::max_element(wallMs.begin(), wallMs.end()),
                      *std::max_element(cpuMs.begin(), cpuMs.end())),
                 both(median(wallMs), median(cpuMs)), both(percentile(wallMs, 0.99), percentile(cpuMs, 0.99)))
            .arg(withChildren)
            .arg(moved.size())
            .arg(resets.size());
    return md;
}

} // namespace

int main(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("sassx-bench"));
    QStringList args = QCoreApplication::arguments().mid(1);
    int count = 5000, oldCount = 5000;
    for (int i = 0; i + 1 < args.size(); ++i)
        if (args[i] == QLatin1String("--count") || args[i] == QLatin1String("--old-count")) {
            (args[i] == QLatin1String("--count") ? count : oldCount) = args[i + 1].toInt();
            args.remove(i, 2);
            --i;
        }
    Bench bench;
    bench.cubin = !args.isEmpty() ? args[0] : QStringLiteral(SASSX_SAMPLES_DIR "/rmsnorm.sm_90.cubin");
    if (!QFileInfo::exists(bench.cubin)) {
        std::fprintf(stderr, "%s not found: build target sassx_samples (needs nvcc)\n",
                     qPrintable(bench.cubin));
        return 2;
    }
    if (count < 1) {
        std::fprintf(stderr, "--count must be at least 1\n");
        return 2;
    }
    bench.session.store()->setAutosaveInterval(0);
    bench.panel.resize(900, 700);
    bench.panel.show();
    if (!openAndWait(bench.session, bench.cubin)) {
        std::fprintf(stderr, "cannot open %s\n", qPrintable(bench.cubin));
        return 1;
    }
    QCoreApplication::processEvents();
    const auto edits = legalEdits(bench.session);
    if (!edits) {
        std::fprintf(stderr, "no two legal moves in %s\n", qPrintable(bench.session.kernelName()));
        return 1;
    }
    bench.edits = *edits;

    QString md = QStringLiteral("Kernel: `%1` (%2, %3 instructions). Edits: `%4` (top level), `%4; %5` "
                                "(nested); both legal by the session's checker.\n\n")
                     .arg(QFileInfo(bench.cubin).fileName(), bench.session.kernelName())
                     .arg(bench.session.variantTree()->analysis()->listing.instructions.size())
                     .arg(QString::fromStdString(edits->nested[0].describe()),
                          QString::fromStdString(edits->nested[1].describe()));
    md += QStringLiteral("Qt %1 (%2 QPA), %3, %4 CPU threads.\n\n")
              .arg(QLatin1String(qVersion()), QGuiApplication::platformName(), QSysInfo::prettyProductName())
              .arg(QThread::idealThreadCount());
    md += bench.adds(count, oldCount);
    md += bench.operations();
    md += bench.removals(std::min(1000, count));

    std::printf("%s", qPrintable(md));
    if (args.size() > 1) {
        QFile out(args[1]);
        if (out.open(QIODevice::WriteOnly | QIODevice::Text)) out.write(md.toUtf8());
    }
    return 0;
}
