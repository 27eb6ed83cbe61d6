// Timed harness for the listing with a huge kernel: open + analysis (background job), model reset on
// a variant switch, data() over every cell, painting the view at several scroll positions, scrolling
// page by page, a regex find that scans every row, and the legal drop targets a drag start computes.
// Prints a Markdown table (and writes it to argv[2] when given).
#include "core/rewrite/block_positions.h"
#include "core/session/session.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/dependency_gutter.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/models/listing_model.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

using namespace sassx;

namespace {

struct Row
{
    QString what;
    double medianMs;
    int runs;
    QString note;
};

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double timeIt(int runs, const std::function<void()>& f, int* actualRuns = nullptr)
{
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        f();
        ms.push_back(t.nsecsElapsed() / 1e6);
    }
    if (actualRuns) *actualRuns = runs;
    return medianOf(ms);
}

} // namespace

int main(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("sassx-bench"));
    const QString cubin = argc > 1 ? QString::fromLocal8Bit(argv[1])
                                   : QStringLiteral(SASSX_SAMPLES_DIR "/huge_unrolled.sm_90.cubin");
    if (!QFileInfo::exists(cubin)) {
        std::fprintf(stderr, "%s not found: build target sassx_samples (needs nvcc)\n", qPrintable(cubin));
        return 2;
    }
    std::vector<Row> rows;
    Session session;
    session.store()->setAutosaveInterval(0);
    QUndoStack undo;
    EditController controller(session.variantTree(), &undo);

    // Open + analysis: wall time of the background jobs, and the longest the UI thread went without
    // processing events meanwhile (it must stay responsive).
    QSignalSpy ready(&session, &Session::analysisReady);
    QElapsedTimer open;
    open.start();
    session.openInput(cubin);
    double longestGapMs = 0;
    QElapsedTimer gap;
    gap.start();
    while (ready.isEmpty() && open.elapsed() < 600000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        longestGapMs = std::max(longestGapMs, gap.nsecsElapsed() / 1e6);
        gap.restart();
    }
    if (ready.isEmpty()) {
        std::fprintf(stderr, "analysis did not finish\n");
        return 1;
    }
    const double openMs = open.nsecsElapsed() / 1e6;
    const size_t n = session.variantTree()->analysis()->listing.instructions.size();
    rows.push_back({QStringLiteral("open + disassemble + analyse (background job, wall)"), openMs, 1,
                    QStringLiteral("longest UI-thread stall meanwhile: %1 ms").arg(longestGapMs, 0, 'f', 1)});

    ListingPanel panel(session.variantTree(), session.searchRuns(), &controller);
    panel.resize(1400, 900);
    panel.show();
    ListingView* view = panel.view();
    ListingModel* model = view->listingModel();
    QCoreApplication::processEvents();

    // Variant switch: a one-move variant and back (each a model reset of n rows + repaint).
    Position from(0);
    for (const auto& b : session.variantTree()->analysis()->cfg.blocks)
        if (b.size() >= 2) {
            from = firstPosition(b) + 1;
            break;
        }
    const int variant =
        session.variantTree()->addVariant(0, QStringLiteral("bench"), {Edit::move(from, from - 1)});
    int runs = 0;
    double ms = timeIt(
        10,
        [&] {
            session.variantTree()->setCurrentVariant(session.variantTree()->currentVariantId() == 0 ? variant
                                                                                                    : 0);
            view->viewport()->repaint();
        },
        &runs);
    rows.push_back({QStringLiteral("switch variant (schedule + model reset + repaint)"), ms, runs, {}});

    ms = timeIt(
        3,
        [&] {
            size_t chars = 0;
            for (int r = 0; r < model->rowCount(); ++r)
                for (int c = 0; c < ListingModel::ColumnCount; ++c)
                    chars += size_t(model->index(r, c).data().toString().size());
            if (chars == 0) std::abort();
        },
        &runs);
    rows.push_back({QStringLiteral("data(DisplayRole) over every cell (%1 rows × %2 columns)")
                        .arg(model->rowCount())
                        .arg(int(ListingModel::ColumnCount)),
                    ms,
                    runs,
                    {}});

    QScrollBar* bar = view->verticalScrollBar();
    for (double where : {0.0, 0.5, 1.0}) {
        bar->setValue(int(bar->maximum() * where));
        ms = timeIt(
            20, [&] { view->viewport()->repaint(); }, &runs);
        rows.push_back(
            {QStringLiteral("paint the viewport at %1%").arg(int(where * 100)), ms, runs,
             QStringLiteral("%1 visible rows").arg(view->viewport()->height() / view->rowHeight(0))});
    }
    bar->setValue(0);
    ms = timeIt(
        200,
        [&] {
            bar->setValue(bar->value() + bar->pageStep());
            view->viewport()->repaint();
        },
        &runs);
    rows.push_back({QStringLiteral("scroll one page + repaint"), ms, runs, QStringLiteral("per frame")});
    ms = timeIt(
        100,
        [&] {
            bar->setValue(int(QRandomGenerator::global()->bounded(bar->maximum() + 1)));
            view->viewport()->repaint();
            panel.gutter()->repaint();
        },
        &runs);
    rows.push_back({QStringLiteral("jump to a random position + repaint view and gutter"), ms, runs, {}});

    view->setCurrentIndex(model->index(1, 2));
    ms = timeIt(
        3, [&] { panel.find(QStringLiteral("NO_SUCH_OPCODE_[0-9]+")); }, &runs);
    rows.push_back({QStringLiteral("regex find with no match (scans every row)"), ms, runs, {}});
    ms = timeIt(
        5, [&] { panel.find(QStringLiteral("\\bLDG\\b")); }, &runs);
    rows.push_back({QStringLiteral("regex find next LDG"), ms, runs, {}});

    // Drag start: legal targets of a memory instruction in the biggest block.
    const auto& a = *session.variantTree()->analysis();
    const BasicBlock* biggest = &a.cfg.blocks.front();
    for (const auto& b : a.cfg.blocks)
        if (b.size() > biggest->size()) biggest = &b;
    std::optional<Position> memPos;
    for (Position p = firstPosition(*biggest) + biggest->size() / 2; p < endPosition(*biggest) && !memPos;
         ++p)
        if (a.listing.instructions[session.variantTree()->schedule().order[p].value()].isMemory()) memPos = p;
    if (memPos) {
        size_t targets = 0;
        ms = timeIt(
            3, [&] { targets = controller.legalTargets(*memPos).size(); }, &runs);
        rows.push_back(
            {QStringLiteral("legal drop targets at drag start (LegalityChecker::legalTargets)"), ms, runs,
             QStringLiteral("block of %1 instructions, %2 legal targets").arg(biggest->size()).arg(targets)});
    }

    QString md;
    md += QStringLiteral("Kernel: `%1` (%2), %3 instructions, %4 blocks, %5 listing rows.\n\n")
              .arg(QFileInfo(cubin).fileName(), session.kernelName())
              .arg(n)
              .arg(a.cfg.blocks.size())
              .arg(model->rowCount());
    md += QStringLiteral("| What | Median (ms) | Runs | Note |\n|---|---:|---:|---|\n");
    for (const Row& r : rows)
        md += QStringLiteral("| %1 | %2 | %3 | %4 |\n")
                  .arg(r.what)
                  .arg(r.medianMs, 0, 'f', 2)
                  .arg(r.runs)
                  .arg(r.note);
    std::printf("%s", qPrintable(md));
    if (argc > 2) {
        QFile out(QString::fromLocal8Bit(argv[2]));
        if (out.open(QIODevice::WriteOnly | QIODevice::Text)) out.write(md.toUtf8());
    }
    return 0;
}
