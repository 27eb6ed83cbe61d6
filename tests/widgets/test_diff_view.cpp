// The diff view on a real sample: counts equal to the core diff the CLI prints (one move is one moved
// instruction, not two), live refresh after an edit, change navigation, and the listing's control-bit
// notation.
#include "core/rewrite/diff_export.h"
#include "core/rewrite/ffma_interleave.h"
#include "core/rewrite/schedule_diff.h"
#include "core/sass/control_text.h"
#include "core/session/session.h"
#include "widget_test_support.h"
#include "widgets/diff_view.h"

#include <QFontInfo>
#include <QSignalSpy>
#include <QtTest>

#include <bit>

using namespace sassx;

class TestDiffView : public QObject
{
    Q_OBJECT
private:
    QString m_cubin;

    // A move of the instruction at some position by exactly `distance` that the checker accepts.
    static std::optional<Edit> legalMove(const Session& session, uint32_t distance)
    {
        const Schedule& s = session.variantTree()->schedule();
        for (Position p(0); p + distance < s.order.endIndex(); ++p) {
            const Edit e = Edit::move(p + distance, p);
            if (session.variantTree()->checkEdits(0, {e}).legal()) return e;
        }
        return std::nullopt;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests"));
        m_cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
    }

    void notationIsTheListings()
    {
        Control c;
        c.stall = 4;
        c.yield = 1;
        c.wbar = 2;
        c.wait = 0b100001;
        c.reuse = 0b101;
        QCOMPARE(QString::fromStdString(controlText(c)), QStringLiteral("S04 Y1 W2 R- 0----5 a-c"));
        QCOMPARE(QString::fromStdString(controlText(Control{})), QStringLiteral("S00 Y0 W- R- ------ ---"));
        const FieldChange wait{"wait", 0b1, 0b11};
        QCOMPARE(QString::fromStdString(wait.text()), QStringLiteral("wait 0----- -> 01----"));
    }

    // The diff follows the variant the listing shows, a click on a row selects its instruction (the
    // listing scrolls to the selection), and another kernel never shows the last one's variants.
    void followsTheListingAndOpensFresh()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        const QString other = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(other);
        Session session;
        session.store()->setAutosaveInterval(0);
        QString error;
        QVERIFY2(test::openAndWait(session, m_cubin, &error), qPrintable(error));
        const auto move = legalMove(session, 3);
        QVERIFY(move);
        const int id = session.variantTree()->addVariant(0, QStringLiteral("one move"), {*move});
        DiffView view(session.variantTree());
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        session.variantTree()->setCurrentVariant(0);
        QCOMPARE(view.rightVariant(), 0);
        session.variantTree()->setCurrentVariant(id);
        QCOMPARE(view.leftVariant(), 0);
        QCOMPARE(view.rightVariant(), id);
        QCOMPARE(view.movedCount(), 1);

        // The first change is scrolled into view: click it on the right side.
        QVERIFY(!view.changeRows().empty());
        const int row = int(view.changeRows().front().value());
        const int h = view.fontMetrics().height() + 2;
        const QPoint at(view.viewport()->width() - 20, (row - view.firstVisibleRow()) * h + h / 2);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(session.variantTree()->selectedInstruction(),
                 int(session.variantTree()->scheduleOf(id)->order[Position(uint32_t(row))].value()));

        // Another kernel: the original against its current variant, nothing of the last one's.
        QVERIFY2(test::openAndWait(session, other, &error), qPrintable(error));
        QCOMPARE(view.leftVariant(), 0);
        QCOMPARE(view.rightVariant(), session.variantTree()->currentVariantId());
        QVERIFY2(view.summary().contains(QStringLiteral("identical schedules")), qPrintable(view.summary()));
    }

    void reuseMarksFollowTheFlags_data()
    {
        QTest::addColumn<QFont>("font");
        const auto [general, other] = test::twoFontFamilies();
        QTest::newRow(qPrintable(QFontInfo(general).family())) << general;
        QTest::newRow(qPrintable(QFontInfo(other).family() + QStringLiteral(" (second)"))) << other;
    }

    // The diff dock and the diff exports write each instruction as its edited word reads: after the
    // yield/reuse FFMA interleave the cleared Rb flags lose their `.reuse` marks on the right side (the
    // dock showed ptxas' marks), the left keeps them, and the text, HTML and JSON diffs agree.
    void reuseMarksFollowTheFlags()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        Session session;
        session.store()->setAutosaveInterval(0);
        QString error;
        QVERIFY2(test::openAndWait(session, m_cubin, &error), qPrintable(error));
        const auto& a = *session.variantTree()->analysis();
        const PatternEdits named =
            ffmaInterleaveEdits(*session.variantTree()->checker(), session.variantTree()->schedule(),
                                Position(0), Position(UINT32_MAX), InterleaveReuse::Clear);
        QVERIFY(!named.edits.empty());
        const int id = session.variantTree()->addVariant(0, QStringLiteral("interleave"), named.edits);
        DiffView view(session.variantTree());
        view.setFont(font);
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setVariants(0, id);
        const Schedule b = *session.variantTree()->scheduleOf(id);
        const auto diff = diffSchedules(DiffSide::fromSchedule(a, Schedule::identity(a), "original"),
                                        DiffSide::fromSchedule(a, b, "interleave"), a.listing.kernel);
        QVERIFY(diff);
        const std::string text = diffToText(*diff), html = diffToHtml(*diff), json = diffToJson(*diff).dump();
        auto marks = [](const QString& t) { return int(t.count(QStringLiteral(".reuse"))); };
        int cleared = 0;
        for (Position p : b.positions()) {
            const InstrId i = b.order[p];
            const Instruction& ins = a.listing.instructions[i.value()];
            const int flags = std::popcount(unsigned(b.control[i].reuse & 7));
            const QString right = view.rowText(true, p);
            QVERIFY2(marks(right) == flags, qPrintable(right));
            QCOMPARE(marks(view.rowText(false, p)), marks(QString::fromStdString(ins.text())));
            QCOMPARE(QString::fromStdString(diff->b.rows[p.value()].text), right);
            if (marks(QString::fromStdString(ins.text())) > flags) {
                ++cleared;
                // The exports name the row by its edited text, never ptxas' one.
                QVERIFY(text.find(right.toStdString()) != std::string::npos);
                QVERIFY(json.find(right.toStdString()) != std::string::npos);
                QVERIFY(html.find(right.toStdString()) != std::string::npos);
            }
        }
        QVERIFY(cleared > 8);
    }

    void countsRefreshAndNavigation()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        QString error;
        QVERIFY2(test::openAndWait(session, m_cubin, &error), qPrintable(error));
        const auto move = legalMove(session, 3);
        QVERIFY2(move, "no legal move by 3 positions in the sample");
        const int id = session.variantTree()->addVariant(0, QStringLiteral("one move"), {*move});

        DiffView view(session.variantTree());
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy summaries(&view, &DiffView::summaryChanged);
        view.setVariants(0, id);

        // What `sassx-cli diff` counts for the same two schedules (core/rewrite/schedule_diff.h).
        const auto& analysis = *session.variantTree()->analysis();
        auto expected =
            diffSchedules(DiffSide::fromSchedule(analysis, *session.variantTree()->scheduleOf(0), "a"),
                          DiffSide::fromSchedule(analysis, *session.variantTree()->scheduleOf(id), "b"),
                          analysis.listing.kernel);
        QVERIFY(expected);
        QCOMPARE(view.movedCount(), 1); // the moved instruction, not the three it pushed aside
        QCOMPARE(view.shiftedCount(), 4);
        QCOMPARE(size_t(view.movedCount()), expected->movedCount());
        QCOMPARE(size_t(view.controlChangedCount()), expected->controlChangedCount());
        QVERIFY(view.summary().contains(QStringLiteral("1 instruction(s) moved")));
        QVERIFY(!summaries.isEmpty());

        // It opens at the first change.
        QVERIFY(!view.changeRows().empty());
        QCOMPARE(view.currentChange(), 0);
        QVERIFY(view.firstVisibleRow() <= int(view.changeRows().front().value()));

        // An edit to the right-hand variant refreshes counts and summary without asking.
        const Schedule& s = session.variantTree()->schedule();
        std::optional<Position> far;
        for (Position p = s.order.endIndex(); p > Position(0) && !far;) {
            --p;
            const Control& c = s.control[s.order[p]];
            if (c.stall >= 1 && c.stall <= 10 && std::abs(p - move->to) > 40) far = p;
        }
        QVERIFY(far);
        const int before = view.controlChangedCount();
        const uint8_t stall = uint8_t(s.control[s.order[*far]].stall + 1);
        summaries.clear();
        session.variantTree()->setVariantEdits(
            id, {*move, Edit::control(*far, stall, std::nullopt, std::nullopt)});
        QVERIFY(!summaries.isEmpty());
        QCOMPARE(view.controlChangedCount(), before + 1);
        QVERIFY(summaries.back().front().toString().contains(QStringLiteral("with changed control bits")));

        // Next/previous walk the changes in order and stop at the ends.
        const int count = int(view.changeRows().size());
        QVERIFY(count >= 2);
        view.setVariants(0, id);
        for (int k = 1; k < count; ++k) {
            QVERIFY(view.nextChange());
            QCOMPARE(view.currentChange(), k);
            const int row = int(view.changeRows()[size_t(k)].value());
            QVERIFY(view.firstVisibleRow() <= row);
        }
        QVERIFY(!view.nextChange());
        QVERIFY(view.previousChange());
        QCOMPARE(view.currentChange(), count - 2);

        // Identical schedules say so.
        view.setVariants(0, 0);
        QCOMPARE(view.movedCount(), 0);
        QVERIFY(view.summary().contains(QStringLiteral("identical")));
        QVERIFY(view.changeRows().empty());
        QVERIFY(!view.nextChange());
    }
};

QTEST_MAIN(TestDiffView)
#include "test_diff_view.moc"
