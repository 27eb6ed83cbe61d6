// Editing through the listing as a user does it: a drag with QTest mouse events onto a legal row and
// onto an illegal one (refused, with the checker's reason shown next to the drop row), Alt+Down,
// undo/redo, find, go to address, branch jump and back, the dependency gutter.
#include "core/rewrite/block_positions.h"
#include "core/session/annotation_json.h"
#include "core/session/evaluator_options.h"
#include "core/session/search_job.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/dependency_gutter.h"
#include "widgets/edit_text.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/models/listing_model.h"

#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QFontInfo>
#include <QLabel>
#include <QMenu>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <set>
#include <tuple>

using namespace sassx;

namespace {

// Dependency edges the gutter's arrows stand for (an arrow for a register pair stands for two).
size_t edgesDrawn(const DependencyGutter& g)
{
    size_t n = 0;
    for (const auto& e : g.drawnEdges())
        n += 1 + e.twins.size();
    return n;
}

} // namespace

class TestListingEditing : public QObject
{
    Q_OBJECT

    struct Fixture
    {
        Session session;
        QUndoStack undo;
        EditController controller{session.variantTree(), &undo};
        ListingPanel panel{session.variantTree(), session.searchRuns(), &controller};
        ListingView* view() { return panel.view(); }
        // Shows the panel at `size` and opens `cubin`; false, with the message, when that fails.
        bool open(const QString& cubin, QSize size, QString* error)
        {
            session.store()->setAutosaveInterval(0);
            panel.resize(size);
            panel.show();
            if (!QTest::qWaitForWindowExposed(&panel)) {
                *error = QStringLiteral("the panel was never shown");
                return false;
            }
            return test::openAndWait(session, cubin, error);
        }
        ListingModel* model() { return panel.view()->listingModel(); }
        QPoint rowPoint(int row)
        {
            view()->scrollTo(model()->index(row, 0));
            return view()->visualRect(model()->index(row, ListingModel::InstructionColumn)).center();
        }
    };

    // A memory instruction at `position` with a legal target and an illegal one nearby (same block).
    struct DragCase
    {
        bool found = false;
        Position from, legal, illegal;
    };
    static DragCase findDragCase(Fixture& f)
    {
        const auto& a = *f.session.variantTree()->analysis();
        const Schedule& s = f.session.variantTree()->schedule();
        for (Position p : s.positions()) {
            if (!a.listing.instructions[s.order[p].value()].isMemory()) continue;
            const auto targets = f.controller.legalTargets(p);
            if (targets.empty()) continue;
            const BasicBlock& b = blockOfPosition(a.cfg, p);
            DragCase c;
            c.from = p;
            c.legal = *std::min_element(targets.begin(), targets.end(), [&](Position x, Position y) {
                return std::abs(x - p) < std::abs(y - p);
            });
            for (int d = 1; d < 40 && !c.found; ++d)
                for (int64_t q : {int64_t(p.value()) - d, int64_t(p.value()) + d}) {
                    if (q < int64_t(b.first) || q >= int64_t(b.end) || c.found) continue;
                    const Position t = Position(uint32_t(q));
                    if (std::find(targets.begin(), targets.end(), t) == targets.end() &&
                        !f.controller.check(Edit::move(p, t)).accepted)
                        c.illegal = t, c.found = true;
                }
            if (c.found) return c;
        }
        return {};
    }

    void drag(Fixture& f, int fromRow, int toRow)
    {
        QWidget* vp = f.view()->viewport();
        const QPoint from = f.rowPoint(fromRow);
        QTest::mousePress(vp, Qt::LeftButton, {}, from);
        QTest::mouseMove(vp, from + QPoint(2, 0));
        QTest::mouseMove(vp, from + QPoint(QApplication::startDragDistance() + 2, 0));
        const QPoint to =
            f.view()->visualRect(f.model()->index(toRow, ListingModel::InstructionColumn)).center();
        QTest::mouseMove(vp, to);
        QVERIFY(f.view()->isDragging());
        QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
    }

    QString m_cubin;

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests"));
        m_cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
    }

    void dragDropUndoRedo()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        Fixture f;
        QString error;
        QVERIFY2(f.open(m_cubin, QSize(1200, 2000), &error), qPrintable(error));
        const DragCase c = findDragCase(f);
        if (!c.found)
            QSKIP("no memory instruction with both a legal and an illegal nearby target in this sample");
        const InstrId moved = f.session.variantTree()->schedule().order[c.from];

        // Legal drop: a variant is created holding the move.
        const int fromRow = f.model()->rowOfPosition(c.from);
        const int legalRow = f.model()->rowOfPosition(c.legal);
        {
            QWidget* vp = f.view()->viewport();
            const QPoint from = f.rowPoint(fromRow);
            QTest::mousePress(vp, Qt::LeftButton, {}, from);
            QTest::mouseMove(vp, from + QPoint(2, 0));
            QTest::mouseMove(vp, from + QPoint(QApplication::startDragDistance() + 2, 0));
            QVERIFY(f.view()->isDragging());
            // While dragging, exactly the checker's legal targets light up.
            QCOMPARE(f.view()->legalDropRows().size(), f.controller.legalTargets(c.from).size());
            QVERIFY(f.view()->legalDropRows().count(legalRow));
            const QPoint to = f.view()->visualRect(f.model()->index(legalRow, 2)).center();
            QTest::mouseMove(vp, to);
            QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
        }
        QVERIFY(!f.view()->isDragging());
        QCOMPARE(f.session.variantTree()->variants().size(), size_t(2));
        QVERIFY(f.session.variantTree()->currentVariantId() != 0);
        // The move, and the control edits derived for it when the move needed them.
        QVERIFY(!f.session.variantTree()->currentVariant()->edits.empty());
        QCOMPARE(f.session.variantTree()->currentVariant()->edits.front(), Edit::move(c.from, c.legal));
        QCOMPARE(f.session.variantTree()->schedule().order[c.legal], moved);
        QVERIFY(f.view()->refusalText().isEmpty());
        QCOMPARE(f.undo.count(), 1);

        // Illegal drop: refused, nothing changes, and the checker's reason is shown in place.
        const DragCase c2 = findDragCase(f);
        QVERIFY(c2.found);
        const auto editsBefore = f.session.variantTree()->currentVariant()->edits;
        const QString expected = f.controller.check(Edit::move(c2.from, c2.illegal)).reason;
        QVERIFY(!expected.isEmpty());
        drag(f, f.model()->rowOfPosition(c2.from), f.model()->rowOfPosition(c2.illegal));
        QCOMPARE(f.session.variantTree()->currentVariant()->edits, editsBefore);
        QCOMPARE(f.undo.count(), 1);
        QVERIFY(f.view()->refusalText().contains(expected));
        QVERIFY(f.view()->refusalBanner()->isVisible());
        // The banner sits next to the drop row.
        const QRect dropRect =
            f.view()->visualRect(f.model()->index(f.model()->rowOfPosition(c2.illegal), 2));
        QVERIFY(std::abs(f.view()->refusalBanner()->geometry().top() - dropRect.bottom()) < 8 ||
                std::abs(f.view()->refusalBanner()->geometry().bottom() - dropRect.top()) < 8);
        qInfo("refused with: %s", qPrintable(expected));

        // Undo removes the variant the first edit created; redo brings it back.
        const int variantId = f.session.variantTree()->currentVariantId();
        f.undo.undo();
        QCOMPARE(f.session.variantTree()->currentVariantId(), 0);
        QVERIFY(!f.session.variantTree()->variant(variantId));
        QCOMPARE(f.session.variantTree()->schedule().order[c.from], moved);
        f.undo.redo();
        QCOMPARE(f.session.variantTree()->currentVariantId(), variantId);
        QCOMPARE(f.session.variantTree()->schedule().order[c.legal], moved);
    }

    // A move refused only for its distances goes in with derived control codes as one undoable step,
    // and is refused when derivation is switched off.
    void derivedControlCodes()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        Fixture f;
        f.session.store()->setAutosaveInterval(0);
        QString error;
        QVERIFY2(test::openAndWait(f.session, m_cubin, &error), qPrintable(error));
        const Schedule s = f.session.variantTree()->schedule();
        const LegalityChecker* checker = f.session.variantTree()->checker();
        QVERIFY(checker);
        std::optional<Position> from;
        Position to;
        for (Position p : s.positions()) {
            if (from) break;
            for (const auto& [t, derived] : checker->rescheduler().rescheduledTargets(s, p, 8))
                if (!f.controller.check(Edit::move(p, t)).accepted) {
                    from = p;
                    to = t;
                    break;
                }
        }
        if (!from) QSKIP("no move of this sample needs derived control codes");
        f.controller.setDeriveControlCodes(false);
        QVERIFY(!f.controller.apply(Edit::move(*from, to)).accepted);
        f.controller.setDeriveControlCodes(true);
        const EditOutcome o = f.controller.apply(Edit::move(*from, to));
        QVERIFY2(o.accepted, qPrintable(o.reason));
        QVERIFY(o.reason.contains(QStringLiteral("derived")));
        const auto& edits = f.session.variantTree()->currentVariant()->edits;
        QVERIFY(edits.size() > 1);
        QCOMPARE(edits.front(), Edit::move(*from, to));
        QVERIFY(f.session.variantTree()->checkEdits(f.session.variantTree()->currentVariantId(), {}).legal());
        QCOMPARE(f.undo.count(), 1);
        QVERIFY(f.undo.text(0).contains(QStringLiteral("derived")));
        f.undo.undo();
        QCOMPARE(f.session.variantTree()->currentVariantId(), 0);
    }

    void altArrowsAndControlEdits()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        Fixture f;
        f.session.store()->setAutosaveInterval(0);
        f.panel.resize(1200, 900);
        f.panel.show();
        QVERIFY(test::openAndWait(f.session, m_cubin));
        // Any instruction (not only memory) whose next position is legal.
        std::optional<Position> from;
        for (Position p(0); p + 1 < f.session.variantTree()->schedule().order.endIndex() && !from; ++p) {
            const auto t = f.controller.legalTargets(p);
            if (std::find(t.begin(), t.end(), p + 1) != t.end()) from = p;
        }
        if (!from) QSKIP("no instruction can move down by one in this sample");
        const InstrId orig = f.session.variantTree()->schedule().order[*from];
        f.session.variantTree()->setSelectedInstruction(int(orig.value()));
        f.view()->setFocus();
        QTest::keyClick(f.view(), Qt::Key_Down, Qt::AltModifier);
        QCOMPARE(f.session.variantTree()->schedule().order[*from + 1], orig);
        QCOMPARE(f.session.variantTree()->selectedInstruction(),
                 int(orig.value())); // the selection follows the instruction
        // A control edit goes through the same checker and the same variant.
        const int variant = f.session.variantTree()->currentVariantId();
        const EditOutcome o = f.controller.apply(Edit::control(*from + 1, 15, std::nullopt, std::nullopt));
        if (o.accepted) {
            QCOMPARE(f.session.variantTree()->currentVariantId(), variant);
            QCOMPARE(f.session.variantTree()->schedule().control[orig].stall, uint8_t(15));
            QCOMPARE(f.undo.count(), 2);
            f.undo.undo();
        } else {
            QVERIFY(!o.reason.isEmpty());
        }
        f.undo.undo();
        QCOMPARE(f.session.variantTree()->schedule().order[*from], orig);
    }

    // Why nothing moves, which stalls are allowed, and a refusal banner that names what it refused and
    // fits on one line.
    void refusalsExplainThemselves()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        Fixture f;
        QString error;
        QVERIFY2(f.open(m_cubin, QSize(700, 900), &error), qPrintable(error));
        const Schedule& s = f.session.variantTree()->schedule();
        const auto& cfg = f.session.variantTree()->analysis()->cfg;

        // A memory instruction no drag can move: the line names the nearest neighbour's refusal.
        std::optional<Position> stuck;
        for (Position p : s.positions()) {
            if (stuck) break;
            if (f.session.variantTree()->analysis()->listing.instructions[s.order[p].value()].isMemory() &&
                f.controller.legalTargets(p).empty())
                stuck = p;
        }
        QVERIFY2(stuck, "every memory instruction of the sample can move");
        const QString why = f.controller.whyNoTarget(*stuck);
        QVERIFY2(why.startsWith(QStringLiteral("No legal position: ")), qPrintable(why));
        const Position next = *stuck + 1;
        const bool nextInBlock = next < s.order.endIndex() && blockAt(cfg, next) == blockAt(cfg, *stuck);
        const QString neighbour =
            f.controller.check(Edit::move(*stuck, nextInBlock ? next : *stuck - 1)).reason;
        QVERIFY2(why.contains(neighbour), qPrintable(why));

        // Stall values: every one judged, the current one allowed, the refused ones with a reason, and
        // the verdict the same as the checker's for that edit.
        std::optional<Position> found;
        for (Position p : s.positions()) {
            if (found) break;
            if (s.control[s.order[p]].stall >= 2 && s.control[s.order[p]].stall <= 10) found = p;
        }
        QVERIFY(found);
        const Position candidate = *found;
        const auto choices = f.controller.stallChoices(candidate);
        QCOMPARE(choices.size(), size_t(16));
        int refused = 0;
        for (const auto& c : choices) {
            if (c.stall == s.control[s.order[candidate]].stall) QVERIFY(c.allowed);
            if (!c.allowed) {
                ++refused;
                QVERIFY(!c.reason.isEmpty());
            }
            QCOMPARE(
                c.allowed,
                f.controller.check(Edit::control(candidate, uint8_t(c.stall), std::nullopt, std::nullopt))
                        .accepted ||
                    c.stall == s.control[s.order[candidate]].stall);
        }
        QVERIFY(refused > 0); // stall 0 where ptxas had none, at least

        // A refused control edit says so (not "this move"), in one line even in a narrow listing.
        const int row = f.model()->rowOfPosition(candidate);
        const Edit zero = Edit::control(candidate, 0, std::nullopt, std::nullopt);
        const EditOutcome verdict = f.controller.check(zero);
        QVERIFY(!verdict.accepted);
        f.view()->showRefusal(row, verdict.reason, QString::fromStdString(zero.describe()));
        QVERIFY2(f.view()->refusalText().startsWith(QStringLiteral("Refused ") +
                                                    QString::fromStdString(zero.describe()) +
                                                    QStringLiteral(": ")),
                 qPrintable(f.view()->refusalText()));
        QVERIFY(f.view()->refusalText().contains(verdict.reason));
        QVERIFY(f.view()->refusalBanner()->height() < 2 * f.view()->rowHeight(row) + 12);
        QVERIFY(f.view()->refusalBanner()->geometry().right() <= f.view()->viewport()->width());
    }

    // Messages name instructions as the listing does (opcode and hex address in the variant shown),
    // never by position index: the undo entry of an accepted move, and a refused move's banner.
    void messagesNameInstructionsByAddress()
    {
        Fixture f;
        QString error;
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QVERIFY2(f.open(cubin, QSize(1000, 500), &error), qPrintable(error));
        const DragCase c = findDragCase(f);
        if (!c.found)
            QSKIP("no memory instruction with both a legal and an illegal nearby target in this sample");
        const auto& a = *f.session.variantTree()->analysis();
        const QString opcode = QString::fromStdString(
            a.listing.instructions[f.session.variantTree()->schedule().order[c.from].value()].opcode);
        auto hex = [](Position position) {
            return QStringLiteral("%1").arg(int(position.value()) * 16, 4, 16, QLatin1Char('0'));
        };
        const QString legal = describeEdit(*f.session.variantTree(), Edit::move(c.from, c.legal));
        QCOMPARE(legal, QStringLiteral("move %1 at %2 to %3").arg(opcode, hex(c.from), hex(c.legal)));
        QCOMPARE(describeEdit(*f.session.variantTree(),
                              Edit::control(c.from, std::nullopt, uint8_t(0), std::nullopt)),
                 QStringLiteral("yield 0 of %1 at %2").arg(opcode, hex(c.from)));

        // A refused drag says which instruction, by address.
        drag(f, f.model()->rowOfPosition(c.from), f.model()->rowOfPosition(c.illegal));
        QVERIFY2(
            f.view()->refusalText().startsWith(
                QStringLiteral("Refused move %1 at %2 to %3: ").arg(opcode, hex(c.from), hex(c.illegal))),
            qPrintable(f.view()->refusalText()));

        // An accepted move's undo entry, likewise.
        QVERIFY(f.controller.apply(Edit::move(c.from, c.legal)).accepted);
        QVERIFY2(f.undo.text(f.undo.count() - 1).startsWith(legal),
                 qPrintable(f.undo.text(f.undo.count() - 1)));
    }

    // Both installed font families (widget_test_support.h): what these tests read must not depend on it.
    static void addFontRows()
    {
        QTest::addColumn<QFont>("font");
        const auto [general, other] = test::twoFontFamilies();
        QTest::newRow(qPrintable(QStringLiteral("%1").arg(QFontInfo(general).family()))) << general;
        QTest::newRow(qPrintable(QStringLiteral("%1 (second)").arg(QFontInfo(other).family()))) << other;
    }

    // The number of `.reuse` marks in a row's instruction text.
    static int reuseMarks(const QString& text) { return int(text.count(QStringLiteral(".reuse"))); }

    void reuseMarksFollowTheEditedFlags_data() { addFontRows(); }

    // After the yield/reuse FFMA interleave the instruction text is the edited word's: an FFMA whose Rb
    // flag the pattern cleared shows no `.reuse` on it (row 08b0 of the SGEMM kept ptxas' mark while its
    // Reuse column said ---). With the flags kept under Y0 the marks stay, as the Reuse column's letters.
    void reuseMarksFollowTheEditedFlags()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        Fixture f;
        f.panel.setFont(font);
        QString error;
        QVERIFY2(f.open(m_cubin, QSize(1200, 900), &error), qPrintable(error));
        const auto& a = *f.session.variantTree()->analysis();
        for (InterleaveReuse form : {InterleaveReuse::Clear, InterleaveReuse::Keep}) {
            f.session.variantTree()->setCurrentVariant(0);
            const EditOutcome done = f.controller.applyFfmaInterleave(form);
            QVERIFY2(done.accepted, qPrintable(done.reason));
            const Schedule& s = f.session.variantTree()->schedule();
            int edited = 0, checkedRow08b0 = 0;
            for (Position p : s.positions()) {
                const InstrId i = s.order[p];
                const Control& c = s.control[i];
                if (c == a.listing.instructions[i.value()].control) continue;
                const int row = f.model()->rowOfPosition(p);
                const QString text = f.model()->index(row, ListingModel::InstructionColumn).data().toString();
                const QString reuse = f.model()->index(row, ListingModel::ReuseColumn).data().toString();
                int letters = 0;
                for (QChar ch : reuse)
                    letters += ch == QLatin1Char('a') || ch == QLatin1Char('b') || ch == QLatin1Char('c');
                QVERIFY2(reuseMarks(text) == letters,
                         qPrintable(QStringLiteral("%1 at %2: reuse %3")
                                        .arg(text, f.model()->index(row, 0).data().toString(), reuse)));
                ++edited;
                if (p == Position(0x08b0 / 16)) {
                    ++checkedRow08b0;
                    if (form == InterleaveReuse::Clear) {
                        QVERIFY2(!text.contains(QStringLiteral(".reuse")), qPrintable(text));
                        QVERIFY2(reuse.startsWith(QStringLiteral("---")), qPrintable(reuse));
                    }
                }
            }
            QVERIFY(edited > 8);
            QCOMPARE(checkedRow08b0, 1);
        }
    }

    void reuseNotationUnderY0_data() { test::addFontAndSizeRows(); }

    // Reuse flags kept under a cleared yield bit (the FFMA interleave that keeps them): the instruction
    // text marks each such operand `.reuse*` (nvdisasm prints no `.reuse` there), the Reuse column ends
    // with the same '*', and both tooltips say what it means. Words with Y1 keep plain `.reuse`.
    void reuseNotationUnderY0()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        Fixture f;
        f.panel.setFont(font);
        QString error;
        QVERIFY2(f.open(m_cubin, size, &error), qPrintable(error));
        const EditOutcome done = f.controller.applyFfmaInterleave(InterleaveReuse::Keep);
        QVERIFY2(done.accepted, qPrintable(done.reason));
        const Schedule& s = f.session.variantTree()->schedule();
        int kept = 0, plain = 0;
        for (Position p : s.positions()) {
            const Control& c = s.control[s.order[p]];
            if (!(c.reuse & 7)) continue;
            const int row = f.model()->rowOfPosition(p);
            const QString text = f.model()->index(row, ListingModel::InstructionColumn).data().toString();
            const QModelIndex reuse = f.model()->index(row, ListingModel::ReuseColumn);
            const QString tip = reuse.data(Qt::ToolTipRole).toString();
            const QString textTip =
                f.model()->index(row, ListingModel::InstructionColumn).data(Qt::ToolTipRole).toString();
            if (c.yield & 1) {
                QVERIFY2(!text.contains(QStringLiteral(".reuse*")) && !reuse.data().toString().contains('*'),
                         qPrintable(text));
                plain += text.contains(QStringLiteral(".reuse"));
                continue;
            }
            QVERIFY2(reuseMarks(text) > 0 && text.count(QStringLiteral(".reuse*")) == reuseMarks(text),
                     qPrintable(text));
            QVERIFY2(reuse.data().toString().endsWith(QLatin1Char('*')), qPrintable(reuse.data().toString()));
            QVERIFY2(tip.contains(QStringLiteral("nvdisasm prints no .reuse")), qPrintable(tip));
            QVERIFY2(textTip.contains(QStringLiteral(".reuse*")) &&
                         textTip.contains(QStringLiteral("nvdisasm prints no .reuse")),
                     qPrintable(textTip));
            ++kept;
        }
        QVERIFY(kept > 8);
        QVERIFY(plain > 0);
        QVERIFY(ListingModel::columnToolTip(ListingModel::ReuseColumn).contains(QStringLiteral(".reuse*")));
    }

    void gutterLabelsApartAndScoreboardsNamed_data() { test::addFontAndSizeRows(); }

    // Every instruction of the SGEMM selected in turn: no two distance labels of the gutter touch (side by
    // side they read as one number, "103c23c"), and an implicit-cover arrow names the scoreboard its
    // producer lacks (read or write), never "no scoreboard of its own" beside a row that shows one.
    void gutterLabelsApartAndScoreboardsNamed()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        Fixture f;
        f.panel.setFont(font);
        QString error;
        QVERIFY2(f.open(m_cubin, size, &error), qPrintable(error));
        DependencyGutter* gutter = f.panel.gutter();
        const auto& a = *f.session.variantTree()->analysis();
        int labels = 0, covers = 0;
        for (uint32_t i = 0; i < a.listing.instructions.size(); i += 3) {
            f.session.variantTree()->setSelectedInstruction(int(i));
            gutter->repaint();
            const auto& drawn = gutter->drawnLabels();
            labels += int(drawn.size());
            for (size_t x = 0; x < drawn.size(); ++x) {
                QVERIFY2(gutter->rect().contains(drawn[x]), "a label outside the gutter");
                for (size_t y = x + 1; y < drawn.size(); ++y)
                    QVERIFY2(!drawn[x]
                                  .adjusted(-DependencyGutter::kLabelGap + 1, 0,
                                            DependencyGutter::kLabelGap - 1, 0)
                                  .intersects(drawn[y]),
                             qPrintable(QStringLiteral("labels touch at %1").arg(i)));
            }
        }
        for (size_t e = 0; e < a.deps.edges().size(); ++e) {
            const Dependency& d = a.deps.edges()[e];
            if (d.kind != DepKind::ImplicitCover) continue;
            const QString tip = gutter->describeEdge(int(e));
            QVERIFY2(!tip.contains(QStringLiteral("no scoreboard of its own")), qPrintable(tip));
            if (d.readScoreboard) {
                QVERIFY2(tip.contains(QStringLiteral("sets no read scoreboard")), qPrintable(tip));
            } else {
                QVERIFY2(tip.contains(QStringLiteral("sets no write scoreboard")), qPrintable(tip));
            }
            ++covers;
        }
        QVERIFY(labels > 100);
        qInfo("%d labels, %d implicit-cover edges", labels, covers);
    }

    void refusalsUseTheVariantsAddresses_data() { addFontRows(); }

    // In a variant whose moves shifted instructions, a refusal and the stall menu's reasons name the
    // instruction by the address the listing shows for it, not ptxas' address.
    void refusalsUseTheVariantsAddresses()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        Fixture f;
        f.panel.setFont(font);
        QString error;
        QVERIFY2(f.open(m_cubin, QSize(1000, 600), &error), qPrintable(error));
        const DragCase c = findDragCase(f);
        QVERIFY2(c.found, "the SGEMM has a memory instruction with a legal move");
        QVERIFY(f.controller.apply(Edit::move(c.from, c.legal)).accepted);
        const Schedule& s = f.session.variantTree()->schedule();
        const auto& insts = f.session.variantTree()->analysis()->listing.instructions;
        const Position moved = c.legal;
        const InstrId orig = s.order[moved];
        // Not where ptxas put it: in the original (identity) order, position `moved` held InstrId `moved`.
        QVERIFY(orig.value() != moved.value());
        auto at = [](uint64_t offset) {
            return QStringLiteral(" at 0x%1").arg(offset, 4, 16, QLatin1Char('0'));
        };
        const QString opcode = QString::fromStdString(insts[orig.value()].opcode);
        const QString shown = opcode + at(uint64_t(moved.value()) * 16),
                      ptxas = opcode + at(insts[orig.value()].offset);
        QVERIFY(insts[orig.value()].control.stall != 0);
        const EditOutcome zero = f.controller.check(Edit::control(moved, 0, std::nullopt, std::nullopt));
        QVERIFY(!zero.accepted);
        QVERIFY2(zero.reason.contains(shown) && !zero.reason.contains(ptxas), qPrintable(zero.reason));
        bool sawReason = false;
        for (const StallChoice& choice : f.controller.stallChoices(moved))
            if (!choice.allowed && choice.reason.contains(opcode + QStringLiteral(" at 0x"))) {
                sawReason = true;
                QVERIFY2(choice.reason.contains(shown) && !choice.reason.contains(ptxas),
                         qPrintable(choice.reason));
            }
        QVERIFY(sawReason);
        // Every address a refusal names is one of a row of this variant holding that instruction.
        static const QRegularExpression named(QStringLiteral("([A-Z0-9_.]+) at 0x([0-9a-f]{4,})"));
        for (Position p : s.positions()) {
            const EditOutcome v = f.controller.check(Edit::control(p, 0, std::nullopt, std::nullopt));
            for (auto m = named.globalMatch(v.reason); m.hasNext();) {
                const auto hit = m.next();
                const Position q(uint32_t(hit.captured(2).toUInt(nullptr, 16) / 16));
                QVERIFY2(q < s.order.endIndex() &&
                             QString::fromStdString(insts[s.order[q].value()].opcode) == hit.captured(1),
                         qPrintable(v.reason));
            }
        }
    }

    void requiredLatencyIsTheCheckersFigure_data() { addFontRows(); }

    // The gutter's "Required" is the figure annotate --json states for the edge, with the same source,
    // and never above the distance ptxas left (ptxas' order is legal): on Triton attention's
    // IMAD.WIDE.U32 → LDG the tooltip said 5 and annotate L6. The SGEMM's ISETP → guard of an IADD3
    // needs 271 cycles because that is the least distance ptxas left for the pair, and says so.
    void requiredLatencyIsTheCheckersFigure()
    {
        QFETCH(QFont, font);
        for (const char* stem : {"attention_fwd", "sgemm_leakyrelu"}) {
            const QString cubin = test::sampleCubin(QString::fromLatin1(stem));
            SASSX_REQUIRE_SAMPLE(cubin);
            Fixture f;
            f.panel.setFont(font);
            QString error;
            QVERIFY2(f.open(cubin, QSize(1000, 600), &error), qPrintable(error));
            const auto& a = *f.session.variantTree()->analysis();
            static const QRegularExpression required(QStringLiteral("Required: (\\d+) cycle"));
            int bounded = 0, least = 0;
            for (uint32_t i = 0; i < a.listing.instructions.size(); ++i) {
                const nlohmann::json deps = instructionJson(a, InstrId(i))["deps"];
                const auto& in = a.deps.incoming(i);
                QCOMPARE(deps.size(), in.size());
                for (size_t k = 0; k < in.size(); ++k) {
                    const Dependency& d = a.deps.edges()[in[k]];
                    const QString tip = f.panel.gutter()->describeEdge(int(in[k]));
                    const auto m = required.match(tip);
                    if (!deps[k].contains("latency")) {
                        QVERIFY2(!m.hasMatch(), qPrintable(tip));
                        continue;
                    }
                    ++bounded;
                    const int latency = deps[k]["latency"].get<int>();
                    const std::string source = deps[k]["latency_source"].get<std::string>();
                    QVERIFY2(m.hasMatch() && m.captured(1).toInt() == latency,
                             qPrintable(QStringLiteral("%1 / annotate %2 (%3)")
                                            .arg(tip)
                                            .arg(latency)
                                            .arg(QString::fromStdString(source))));
                    QVERIFY2(latency <= d.distance, qPrintable(tip));
                    const char* words = source == "measured"      ? "measured on the GPU"
                                        : source == "table"       ? "latency table"
                                        : source == "ptxas_least" ? "least distance ptxas left"
                                                                  : "distance ptxas left";
                    QVERIFY2(tip.contains(QLatin1String(words)), qPrintable(tip));
                    if (source == "ptxas_least") ++least;
                    if (QLatin1String(stem) == QLatin1String("sgemm_leakyrelu") && d.kind == DepKind::Raw &&
                        a.listing.instructions[d.from].offset == 0x0850 &&
                        a.listing.instructions[i].offset == 0x1820) {
                        QCOMPARE(latency, 271);
                        QVERIFY2(tip.contains(QStringLiteral("least distance ptxas left for this pair in the "
                                                             "kernel, above the sm_90 latency table's")),
                                 qPrintable(tip));
                    }
                }
            }
            QVERIFY(bounded > 100);
            QVERIFY(least > 0);
        }
    }

    // Right-click selects the row under the pointer without scrolling: the menu opens beside it.
    void rightClickDoesNotScroll()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        Fixture f;
        QString error;
        QVERIFY2(f.open(m_cubin, QSize(1000, 500), &error), qPrintable(error));
        ListingView* view = f.view();
        view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum() / 2);
        // A row near the bottom of the viewport, where centring would scroll most.
        const int row = view->rowAt(view->viewport()->height() - 3 * view->rowHeight(0));
        QVERIFY(row >= 0);
        int instructionRow = row;
        while (!f.model()->positionOfRow(instructionRow))
            --instructionRow; // a block separator: the instruction above it
        const int before = view->verticalScrollBar()->value();
        const QPoint at = view->visualRect(f.model()->index(instructionRow, 2)).center();
        QTimer closer;
        bool menuShown = false;
        QObject::connect(&closer, &QTimer::timeout, [&] {
            if (QWidget* popup = QApplication::activePopupWidget()) {
                menuShown = true;
                popup->close();
            }
        });
        closer.start(20);
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, view->viewport()->mapToGlobal(at));
        QApplication::sendEvent(view->viewport(), &event);
        closer.stop();
        QVERIFY(menuShown);
        QCOMPARE(view->verticalScrollBar()->value(), before);
        QCOMPARE(view->currentIndex().row(), instructionRow);
        QCOMPARE(f.session.variantTree()->selectedInstruction(),
                 int(f.session.variantTree()
                         ->schedule()
                         .order[*f.model()->positionOfRow(instructionRow)]
                         .value()));
    }

    void navigationAndGutter()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        Fixture f;
        f.session.store()->setAutosaveInterval(0);
        f.panel.resize(1200, 900);
        f.panel.show();
        QVERIFY(test::openAndWait(f.session, m_cubin));
        // Find (regex).
        QVERIFY(f.panel.find(QStringLiteral("^\\s*EXIT|\\bEXIT\\b")));
        QCOMPARE(QString::fromStdString(
                     f.session.variantTree()
                         ->analysis()
                         ->listing.instructions[size_t(f.session.variantTree()->selectedInstruction())]
                         .baseOpcode),
                 QStringLiteral("EXIT"));
        QVERIFY(!f.panel.find(QStringLiteral("(unbalanced")));
        // "n of m": every FFMA in order, wrapping at the end and, backwards, at the start.
        int ffmas = 0;
        for (const auto& ins : f.session.variantTree()->analysis()->listing.instructions)
            ffmas += ins.baseOpcode == "FFMA";
        QVERIFY(ffmas > 2);
        f.session.variantTree()->setSelectedInstruction(0);
        QVERIFY(f.panel.find(QStringLiteral("\\bFFMA\\b")));
        QCOMPARE(f.panel.findStatus(), QStringLiteral("1 of %1").arg(ffmas));
        QVERIFY(f.panel.find(QStringLiteral("\\bFFMA\\b")));
        QCOMPARE(f.panel.findStatus(), QStringLiteral("2 of %1").arg(ffmas));
        QVERIFY(f.panel.find(QStringLiteral("\\bFFMA\\b"), false));
        QVERIFY(f.panel.find(QStringLiteral("\\bFFMA\\b"), false));
        QCOMPARE(f.panel.findStatus(), QStringLiteral("%1 of %1").arg(ffmas));
        QVERIFY(!f.panel.find(QStringLiteral("NO_SUCH_OPCODE")));
        QCOMPARE(f.panel.findStatus(), QStringLiteral("no match"));
        // Go to address.
        QVERIFY(f.view()->goToAddress(0x20));
        QCOMPARE(f.session.variantTree()->selectedInstruction(), 2);
        // Branch target and back.
        const auto& insts = f.session.variantTree()->analysis()->listing.instructions;
        auto branch = std::find_if(insts.begin(), insts.end(), [](const Instruction& i) {
            return i.branchTarget && i.baseOpcode == "BRA";
        });
        if (branch != insts.end()) {
            f.session.variantTree()->setSelectedInstruction(int(branch->index));
            QVERIFY(f.view()->followBranch());
            QCOMPARE(uint64_t(f.session.variantTree()->selectedInstruction()) * 16, *branch->branchTarget);
            QVERIFY(f.view()->goBack());
            QCOMPARE(f.session.variantTree()->selectedInstruction(), int(branch->index));
        }
        // Gutter: an instruction with producers gets arrows, each explained in words.
        const auto& deps = f.session.variantTree()->analysis()->deps;
        int withEdges = -1;
        for (uint32_t i = 0; i < insts.size() && withEdges < 0; ++i)
            if (!deps.incoming(i).empty() && !deps.outgoing(i).empty()) withEdges = int(i);
        QVERIFY(withEdges >= 0);
        f.session.variantTree()->setSelectedInstruction(withEdges);
        f.panel.gutter()->repaint();
        QCOMPARE(edgesDrawn(*f.panel.gutter()),
                 deps.incoming(uint32_t(withEdges)).size() + deps.outgoing(uint32_t(withEdges)).size());
        for (const auto& e : f.panel.gutter()->drawnEdges())
            QVERIFY(e.text.contains(QStringLiteral("cycle")));

        // A register pair feeding one instruction (a 64-bit address, a wide result) is one arrow whose
        // tooltip names both registers, not two identical arrows.
        int paired = -1;
        for (uint32_t i = 0; i < insts.size() && paired < 0; ++i) {
            const auto& in = deps.incoming(i);
            for (size_t x = 0; x < in.size() && paired < 0; ++x)
                for (size_t y = x + 1; y < in.size(); ++y)
                    if (deps.edges()[in[x]].from == deps.edges()[in[y]].from &&
                        deps.edges()[in[x]].kind == DepKind::Raw && deps.edges()[in[y]].kind == DepKind::Raw)
                        paired = int(i);
        }
        QVERIFY2(paired >= 0, "the sample has a register pair read by one instruction");
        f.session.variantTree()->setSelectedInstruction(paired);
        f.panel.gutter()->repaint();
        std::set<std::tuple<bool, int, int>> arrows;
        bool named = false;
        for (const auto& e : f.panel.gutter()->drawnEdges()) {
            const auto& d = deps.edges()[size_t(e.edge)];
            QVERIFY2(arrows.insert({e.producer, int(d.from), int(d.kind) * 100000 + e.distance}).second,
                     qPrintable(QStringLiteral("two identical arrows: %1").arg(e.text)));
            named =
                named || (!e.twins.empty() && e.text.contains(QStringLiteral("The same dependency on R")));
        }
        QVERIFY(named);
    }

    // A PPO run's policy is asked off the UI thread: the submenu opens at once with a placeholder and
    // fills when the advisor's job answers (it loads the policy and scores every legal action).
    void policySuggestionsArriveFromAJob()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QTemporaryDir tmp;
        Fixture f;
        QString error;
        QVERIFY2(f.open(cubin, QSize(1200, 900), &error), qPrintable(error));
        QVERIFY(
            f.session.store()->save(tmp.filePath(QStringLiteral("s.sassx.json")))); // outputs go beside it
        search::SearchConfig c;
        c.algorithm = search::Algorithm::Ppo;
        c.space = search::SearchSpace::Yield;
        c.budgetEvals = 24;
        c.seed = 1;
        EvaluatorOptions estimate;
        estimate.backend = sassx::eval::Backend::Estimate;
        QSignalSpy recorded(f.session.searchRuns(), &SearchRuns::searchRecorded);
        QSignalSpy failed(f.session.searchRuns()->search(), &SearchJob::failed);
        const QString refused = f.session.searchRuns()->startSearch(c, estimate);
        QVERIFY2(refused.isEmpty(), qPrintable(refused));
        QVERIFY(QTest::qWaitFor([&] { return !recorded.isEmpty() || !failed.isEmpty(); }, 120000));
        if (!failed.isEmpty() && failed.front().front().toString().contains(QStringLiteral("plug-in")))
            QSKIP(qPrintable(failed.front().front().toString()));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
        QVERIFY(f.session.searchRuns()->latestPolicyRun());

        // Right-click an instruction; in the menu, open Policy Suggestions.
        const int row = f.model()->rowOfPosition(Position(2));
        const QPoint at = f.rowPoint(row);
        QSignalSpy shown(f.view(), &ListingView::policySuggestionsShown);
        QStringList placeholder, answer;
        QTimer driver;
        QObject::connect(&driver, &QTimer::timeout, [&] {
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            if (!menu) return;
            driver.stop();
            QMenu* sub = nullptr;
            for (QAction* a : menu->actions())
                if (a->menu() && a->text() == QLatin1String("Policy Suggestions")) sub = a->menu();
            if (sub) {
                Q_EMIT sub->aboutToShow();
                for (QAction* a : sub->actions())
                    placeholder << a->text();
                (void)QTest::qWaitFor([&] { return !shown.isEmpty(); }, 60000);
                for (QAction* a : sub->actions())
                    answer << a->text();
            }
            menu->close();
        });
        driver.start(30);
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, f.view()->viewport()->mapToGlobal(at));
        QCoreApplication::sendEvent(f.view()->viewport(), &event);
        QCOMPARE(placeholder, QStringList{QStringLiteral("Asking the policy…")});
        QCOMPARE(shown.size(), 1);
        QVERIFY(!answer.isEmpty() && !answer.contains(QStringLiteral("Asking the policy…")));
        QVERIFY2(answer.front().contains(QLatin1Char('%')) ||
                     answer.front().startsWith(QStringLiteral("No legal edit")),
                 qPrintable(answer.join(QStringLiteral(" | "))));
    }

    // Two font families (the most different ones installed: the system's general font and its fixed
    // font, or one family at two sizes where only one exists), one small and one large: the labels'
    // placement is computed from the font in use, so it must hold for both.
    void gutterBundlesManyEdges_data()
    {
        QTest::addColumn<QFont>("font");
        auto [small, large] = test::twoFontFamilies();
        small.setPointSizeF(8);
        large.setPointSizeF(14);
        QTest::newRow(qPrintable(QStringLiteral("%1 8pt").arg(QFontInfo(small).family()))) << small;
        QTest::newRow(qPrintable(QStringLiteral("%1 14pt").arg(QFontInfo(large).family()))) << large;
    }

    // An instruction with many consumers: past kMaxArrows the rest fold into a bundle with a count
    // badge; hovering the badge shows every arrow; labels stay inside the gutter, beside the rows (not
    // the header), and apart from each other while there is room, in either font.
    void gutterBundlesManyEdges()
    {
        SASSX_REQUIRE_SAMPLE(m_cubin);
        QFETCH(QFont, font);
        Fixture f;
        f.session.store()->setAutosaveInterval(0);
        f.panel.setFont(font);
        f.view()->setFont(font);
        f.panel.resize(1200, 900);
        f.panel.show();
        QVERIFY(test::openAndWait(f.session, m_cubin));
        const auto& deps = f.session.variantTree()->analysis()->deps;
        const auto& insts = f.session.variantTree()->analysis()->listing.instructions;
        int busiest = -1;
        size_t most = 0;
        for (uint32_t i = 0; i < insts.size(); ++i) {
            const size_t n = deps.incoming(i).size() + deps.outgoing(i).size();
            if (n > most) most = n, busiest = int(i);
        }
        QVERIFY2(most > size_t(DependencyGutter::kMaxArrows) + 4, "the SGEMM has an LDS feeding many FFMAs");
        f.session.variantTree()->setSelectedInstruction(busiest);
        DependencyGutter* g = f.panel.gutter();
        g->repaint();
        const auto& drawn = g->drawnEdges();
        const auto& bundles = g->drawnBundles();
        QVERIFY(!bundles.empty());
        size_t folded = 0;
        for (const auto& b : bundles) {
            folded += b.edges.size();
            // The count is of arrows folded; a register pair's edges fold as one.
            const int arrows = b.text.section(QLatin1Char(' '), 0, 0).toInt();
            QVERIFY2(arrows > 0 && size_t(arrows) <= b.edges.size(), qPrintable(b.text));
            QVERIFY(b.text.startsWith(QStringLiteral("%1 more").arg(arrows)));
            QVERIFY(g->rect().contains(b.badge));
        }
        QCOMPARE(edgesDrawn(*g) + folded, most);
        QCOMPARE(drawn.size(), size_t(DependencyGutter::kMaxArrows));
        const int rowsTop = g->mapFromGlobal(f.view()->viewport()->mapToGlobal(QPoint(0, 0))).y();
        auto checkLabels = [&] {
            const auto& labels = g->drawnLabels();
            int used = 0;
            for (const QRect& r : labels) {
                QVERIFY2(g->rect().contains(r), "label inside the gutter");
                QVERIFY2(r.top() >= rowsTop, "label beside the rows, not the header");
                used += r.height();
            }
            if (used > f.view()->viewport()->height()) return; // more labels than room: overlap allowed
            for (size_t i = 0; i < labels.size(); ++i)
                for (size_t j = i + 1; j < labels.size(); ++j)
                    QVERIFY2(!labels[i].intersects(labels[j]), "labels do not tangle");
        };
        checkLabels();
        // Scrolled so that the selected row sits at the viewport's bottom edge: labels stay beside rows.
        f.view()->scrollTo(f.model()->index(f.model()->rowOfOriginal(InstrId(uint32_t(busiest))), 0),
                           QAbstractItemView::PositionAtBottom);
        g->repaint();
        checkLabels();
        f.view()->scrollTo(f.model()->index(f.model()->rowOfOriginal(InstrId(uint32_t(busiest))), 0),
                           QAbstractItemView::PositionAtTop);
        g->repaint();
        checkLabels();

        // Hover on a badge expands; leaving the gutter folds again.
        QTest::mouseMove(g, bundles.front().badge.center());
        QTRY_VERIFY(g->isExpanded());
        g->repaint();
        QCOMPARE(edgesDrawn(*g), most);
        QVERIFY(g->drawnBundles().empty());
        checkLabels();
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(g, &leave);
        QVERIFY(!g->isExpanded());
        g->repaint();
        QVERIFY(!g->drawnBundles().empty());
        // A click pins it; leaving then keeps it expanded.
        QTest::mouseClick(g, Qt::LeftButton, {}, g->drawnBundles().front().badge.center());
        QVERIFY(g->isExpanded());
        QCoreApplication::sendEvent(g, &leave);
        QVERIFY(g->isExpanded());
        g->setExpanded(false);
        QVERIFY(!g->isExpanded());
    }
};

QTEST_MAIN(TestListingEditing)
#include "test_listing_editing.moc"
