// Schedule diffs: matching (duplicates stable, minimal moved set), text/JSON/HTML output (text against
// a golden file), refusal of different kernels, and the diff of a written variant against its source.
#include "../sass/test_common.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/diff_export.h"
#include "core/rewrite/schedule_diff.h"
#include "core/sass/nvdisasm.h"
#include "rewrite_test_util.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace sassx;

namespace {

DiffSide handMade(const std::vector<int>& order, const std::vector<Control>& control)
{
    // Six instructions, two of them identical words (the duplicate must match stably).
    static const char* texts[] = {"S2R R0, SR_TID.X",      "LDG.E R2, desc[UR4][R2.64]",
                                  "IADD3 R4, R0, 0x1, RZ", "IADD3 R4, R0, 0x1, RZ",
                                  "FFMA R5, R2, R2, R5",   "EXIT"};
    static const uint64_t lo[] = {0x1000, 0x2000, 0x3000, 0x3000, 0x4000, 0x5000};
    DiffSide s;
    s.label = "side";
    for (int i : order)
        s.rows.push_back({lo[i], 0, control[i], texts[i]});
    return s;
}

std::vector<Control> baseControl()
{
    std::vector<Control> c(6);
    for (int i = 0; i < 6; ++i)
        c[i].stall = uint8_t(i + 1);
    c[1].wbar = 0;
    c[4].wait = 1;
    return c;
}

QString unifiedDiff(const QString& want, const QString& got)
{
    QStringList a = want.split('\n'), b = got.split('\n'), out;
    for (int i = 0; i < std::max(a.size(), b.size()); ++i) {
        QString x = i < a.size() ? a[i] : "", y = i < b.size() ? b[i] : "";
        if (x != y) out << "-" + x << "+" + y;
    }
    return out.join('\n');
}

} // namespace

class TestScheduleDiff : public QObject
{
    Q_OBJECT
private slots:
    void matchesAndMarksMinimalMoves()
    {
        auto ctl = baseControl();
        auto ctlB = ctl;
        ctlB[4].stall = 2; // S05 -> S02
        ctlB[1].wbar = 1;
        // FFMA moved up two places; the duplicates keep their order.
        auto d = diffSchedules(handMade({0, 1, 2, 3, 4, 5}, ctl), handMade({0, 4, 1, 2, 3, 5}, ctlB), "k");
        QVERIFY2(d.ok(), d.ok() ? "" : d.message().c_str());
        QCOMPARE(d->movedCount(), size_t(1));
        QCOMPARE(d->shiftedCount(), size_t(4));
        QCOMPARE(d->controlChangedCount(), size_t(2));
        QCOMPARE(d->entries[1].aPos, 4u);
        QVERIFY(d->entries[1].moved);
        QCOMPARE(d->entries[3].aPos, 2u); // first duplicate ↔ first duplicate
        QCOMPARE(d->entries[4].aPos, 3u);
        QCOMPARE(QString::fromStdString(d->entries[1].control[0].text()), QString("S05->S02"));
        QCOMPARE(QString::fromStdString(d->entries[2].control[0].text()), QString("W0->W1"));
    }

    void textMatchesGolden()
    {
        auto ctl = baseControl();
        auto ctlB = ctl;
        ctlB[4].stall = 2;
        ctlB[5].yield = 1;
        DiffSide a = handMade({0, 1, 2, 3, 4, 5}, ctl), b = handMade({0, 4, 1, 2, 3, 5}, ctlB);
        a.label = "a.cubin";
        b.label = "b.cubin";
        auto d = diffSchedules(a, b, "kernel");
        QVERIFY(d.ok());
        const QString got = QString::fromStdString(diffToText(*d, {.context = 1}));
        const QString path = QString(SASSX_TESTDATA_DIR) + "/diff_golden.txt";
        if (qEnvironmentVariableIsSet("SASSX_UPDATE_GOLDEN")) {
            std::ofstream(path.toStdString()) << got.toStdString();
        }
        std::ifstream in(path.toStdString());
        QVERIFY2(in.good(), qPrintable("missing golden file " + path + " (run with SASSX_UPDATE_GOLDEN=1)"));
        std::stringstream ss;
        ss << in.rdbuf();
        const QString want = QString::fromStdString(ss.str());
        QVERIFY2(got == want,
                 qPrintable("text diff differs from the golden file:\n" + unifiedDiff(want, got)));
    }

    void jsonAndHtml()
    {
        auto ctl = baseControl();
        auto d = diffSchedules(handMade({0, 1, 2, 3, 4, 5}, ctl), handMade({1, 0, 2, 3, 4, 5}, ctl), "k<1>");
        QVERIFY(d.ok());
        auto j = diffToJson(*d);
        QCOMPARE(j["instructions"].get<int>(), 6);
        QCOMPARE(j["moved"].get<int>(), 1);
        QCOMPARE(j["entries"][0]["from"].get<int>(), 1);
        QCOMPARE(j["entries"][0]["to"].get<int>(), 0);
        const std::string html = diffToHtml(*d);
        QVERIFY(html.find("<svg") != std::string::npos);
        QVERIFY(html.find("k&lt;1&gt;") != std::string::npos);                 // escaped
        QVERIFY(html.find("http") == html.find("http://www.w3.org/2000/svg")); // no external resources
        QVERIFY(html.find("const moved=[") != std::string::npos);
        // The summary line says what the text diff's does, the instructions at a new offset included.
        const std::string summary = std::to_string(d->shiftedCount()) + " at a new offset";
        QVERIFY2(html.find(summary) != std::string::npos, summary.c_str());
        QVERIFY(diffToText(*d, {}).find(summary) != std::string::npos);
    }

    void refusesDifferentKernels()
    {
        auto ctl = baseControl();
        auto shorter = handMade({0, 1, 2, 3, 4}, ctl);
        auto d = diffSchedules(handMade({0, 1, 2, 3, 4, 5}, ctl), shorter, "k");
        QVERIFY(!d.ok());
        QVERIFY(d.message().find("instructions") != std::string::npos);
        auto other = handMade({0, 1, 2, 3, 4, 5}, ctl);
        other.rows[2].lo = 0x9999;
        d = diffSchedules(handMade({0, 1, 2, 3, 4, 5}, ctl), other, "k");
        QVERIFY(!d.ok());
        QVERIFY(d.message().find("no counterpart") != std::string::npos);
    }

    // A written variant diffed against its source shows exactly the schedule's moves and control edits.
    void writtenVariantDiff()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed");
        const auto paths = sampleCubins();
        if (paths.isEmpty()) QSKIP("no sample cubins");
        auto cubin = Cubin::load(paths.front().toStdString());
        QVERIFY(cubin.ok());
        const Kernel& k = cubin->kernels().front();
        auto listing = disassembleKernel(*cubin, k.name);
        QVERIFY(listing.ok());
        auto a = KernelAnalysis::build(*listing);
        std::mt19937 rng(7);
        const PatchOptions opts{.keepStaleLineInfo = true};
        auto edits = rewrite_test::randomMoves(*a, unpatchableInstructions(*cubin, k, opts), rng, 5);
        auto s = applyEdits(*a, edits);
        QVERIFY(s.ok());
        auto out = writeSchedule(*cubin, *a, *s, opts);
        QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
        auto parsed = Cubin::parse(*out);
        QVERIFY(parsed.ok());
        auto listingB = disassembleKernel(*parsed, k.name);
        QVERIFY(listingB.ok());
        auto fromFiles = diffSchedules(DiffSide::fromListing(*listing, "a"),
                                       DiffSide::fromListing(*listingB, "b"), k.name);
        auto fromSchedule =
            diffSchedules(DiffSide::fromListing(*listing, "a"), DiffSide::fromSchedule(*a, *s, "b"), k.name);
        QVERIFY(fromFiles.ok() && fromSchedule.ok());
        QCOMPARE(fromFiles->aToB, fromSchedule->aToB);
        QVERIFY(fromFiles->movedCount() >= 1);
        QCOMPARE(fromFiles->controlChangedCount(), size_t(0));
    }
};

QTEST_MAIN(TestScheduleDiff)
#include "test_schedule_diff.moc"
