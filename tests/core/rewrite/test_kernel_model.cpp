// The checker's parts over one immutable kernel model (kernel_model.h): walls make a new model and
// leave the old one as it was; the schedule checker, the move/edit enumerator and the rescheduler built
// on one model agree (what one offers the other accepts); the stall floor they share.
#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/kernel_model.h"
#include "core/rewrite/legality.h"
#include "core/rewrite/move_enumerator.h"
#include "core/rewrite/rescheduler.h"
#include "core/rewrite/schedule_checker.h"
#include "core/sass/listing.h"

#include <QtTest>

#include <algorithm>

using namespace sassx;

namespace {

Control ctl(int stall)
{
    Control c;
    c.stall = uint8_t(stall);
    c.yield = 1;
    return c;
}

// One block of independent and dependent integer work, then EXIT (a wall).
std::shared_ptr<const KernelModel> model()
{
    auto a = KernelAnalysis::build(makeListing({{"IADD3 R2, R1, 0x1, RZ", ctl(2)},
                                                {"IADD3 R7, R6, 0x1, RZ", ctl(5)},
                                                {"IADD3 R3, R2, 0x1, RZ", ctl(5)},
                                                {"IADD3 R9, R8, 0x1, RZ", ctl(5)},
                                                {"LOP3.LUT R10, R11, 0x4, RZ, 0xc0, !PT", ctl(5)},
                                                {"EXIT", ctl(5)}},
                                               90));
    return std::make_shared<const KernelModel>(a);
}

} // namespace

class TestKernelModel : public QObject
{
    Q_OBJECT
private slots:
    // A wall added later is a new model: the old model and the parts built on it are unchanged.
    void wallsMakeANewModel()
    {
        const auto plain = model();
        const auto walled = plain->withWalls({{InstrId(3), "its offset is not rewritten"}});
        QVERIFY(!plain->isWall(InstrId(3)));
        QVERIFY(walled->isWall(InstrId(3)));
        QCOMPARE(walled->wallReasonOf(InstrId(3)), std::string("its offset is not rewritten"));
        QVERIFY(walled->isWall(InstrId(5))); // EXIT stays a wall in both
        QVERIFY(plain->isWall(InstrId(5)));
        QCOMPARE(&walled->analysis(), &plain->analysis()); // the analysis is shared, not copied
        Schedule s = Schedule::identity(plain->analysis());
        s.move(Position(4), Position(1)); // LOP3 across IADD3 R9 (position 3)
        QVERIFY(ScheduleChecker(plain).check(s).legal());
        const auto r = ScheduleChecker(walled).check(s);
        QVERIFY(!r.legal());
        QCOMPARE(r.hazards.front().kind, HazardKind::Wall);
        QVERIFY(r.summary().find("its offset is not rewritten") != std::string::npos);
        const auto before =
            MoveEnumerator(plain).legalTargets(Schedule::identity(plain->analysis()), Position(4));
        const auto after =
            MoveEnumerator(walled).legalTargets(Schedule::identity(plain->analysis()), Position(4));
        QVERIFY(std::find(before.begin(), before.end(), Position(1)) != before.end());
        QVERIFY(std::find(after.begin(), after.end(), Position(1)) == after.end());
        // The handle adds walls the same way.
        LegalityChecker handle(std::make_shared<KernelAnalysis>(plain->analysis()));
        handle.addWalls({{InstrId(3), "its offset is not rewritten"}});
        QVERIFY(handle.isWall(InstrId(3)));
        QVERIFY(!handle.check(s).legal());
    }

    // What the enumerator and the rescheduler offer over one model, the checker over it accepts.
    void partsAgree()
    {
        const auto m = model();
        const ScheduleChecker checker(m);
        const MoveEnumerator enumerator(m);
        const Rescheduler rescheduler(m);
        const Schedule identity = Schedule::identity(m->analysis());
        QVERIFY(checker.check(identity).legal());
        const auto moves = enumerator.legalMoves(identity, false);
        QVERIFY(!moves.empty());
        for (const auto& [from, to] : moves) {
            Schedule s = identity;
            s.move(from, to);
            QVERIFY2(checker.check(s).legal(), checker.check(s).summary().c_str());
            QVERIFY(MoveEnumerator::MoveTester(enumerator, identity).legal(from, to));
        }
        // A move the enumerator refuses (the reader next to its producer) the checker refuses too, and
        // the rescheduler makes it legal with derived stalls.
        QVERIFY(!MoveEnumerator::MoveTester(enumerator, identity).legal(Position(1), Position(2)));
        Schedule late = identity;
        late.move(Position(1), Position(2));
        QVERIFY(!checker.check(late).legal());
        const auto replay = rescheduler.rescheduledMove(identity, Position(1), Position(2));
        QVERIFY2(replay, replay ? "" : replay.message().c_str());
        QVERIFY(checker.check(replay->second).legal());
        QVERIFY(checker.check(replay->first).legal());
        for (const Edit& e : enumerator.legalControlEdits(identity, ControlSpace::All)) {
            QVERIFY(checker.check(std::vector<Edit>{e}).legal());
        }
    }

    // The stall floor: none at the block's end, on a wall or before one; else the least the rules allow.
    void stallFloor()
    {
        const auto m = model();
        const Schedule s = Schedule::identity(m->analysis());
        QVERIFY(!m->stallFloor(s, Position(5))); // EXIT: a wall
        QVERIFY(!m->stallFloor(s, Position(4))); // issued right before the wall
        const auto floor = m->stallFloor(s, Position(1));
        QVERIFY(floor);
        QCOMPARE(*floor, *m->controlRules().leastAllowedStall(InstrId(1), 1, 1));
        QVERIFY(*floor <= s.control[InstrId(1)].stall);
    }
};

QTEST_GUILESS_MAIN(TestKernelModel)
#include "test_kernel_model.moc"
