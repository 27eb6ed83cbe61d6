// The legality checker on hand-made sequences (one per hazard class, including the implicit
// scoreboard coverage cases observed on an H100, sass-notes §1) and on every sample kernel.
#include "../sass/test_common.h"
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/block_positions.h"
#include "core/rewrite/legality.h"
#include "core/sass/listing.h"
#include "core/sass/nvdisasm.h"

#include <QtTest>

#include <random>

using namespace sassx;

namespace {

Control ctl(int stall, int wbar = 7, int rbar = 7, int wait = 0, int yield = 1)
{
    Control c;
    c.stall = uint8_t(stall);
    c.wbar = uint8_t(wbar);
    c.rbar = uint8_t(rbar);
    c.wait = uint8_t(wait);
    c.yield = uint8_t(yield);
    return c;
}

using Lines = std::vector<std::pair<std::string, Control>>;

std::shared_ptr<const KernelAnalysis> analyse(const Lines& lines)
{
    auto table = LatencyTable::load(90);
    auto listing = makeListing(lines, 90);
    // Hand-made instructions carry no encoding: give the register fields the common layout (Ra bits
    // 24-31, Rb 32-39, Rc 64-71 hold the first three source operands when they are registers), which
    // the reuse rule reads.
    for (auto& ins : listing.instructions)
        for (int k = 0; k < 3; ++k) {
            if (ins.operands.size() <= size_t(k + 1)) break;
            const auto& op = ins.operands[size_t(k + 1)];
            if (op.kind != Operand::Kind::Register || !op.reg || op.reg->file != RegFile::R) continue;
            const uint64_t r = op.reg->index & 0xFF;
            if (k == 0) ins.lo |= r << 24;
            if (k == 1) ins.lo |= r << 32;
            if (k == 2) ins.hi |= r;
        }
    return KernelAnalysis::build(std::move(listing), table ? *table : LatencyTable{});
}

} // namespace

Q_DECLARE_METATYPE(Lines)
Q_DECLARE_METATYPE(std::vector<Edit>)

class TestLegality : public QObject
{
    Q_OBJECT
private slots:
    void handmade_data()
    {
        QTest::addColumn<Lines>("lines");
        QTest::addColumn<std::vector<Edit>>("edits");
        QTest::addColumn<int>("expectedKind"); // -1 legal
        QTest::addColumn<QString>("reasonContains");

        // sass-notes §1: the first LDS has no scoreboard; the consumer's wait on SB0 (set by the
        // second LDS) covers it only because same-pipe loads complete in order.
        Lines lds = {{"LDS.128 R16, [R2]", ctl(1)},
                     {"LDS.128 R20, [R4]", ctl(2, 0)},
                     {"IADD3 R6, R6, 0x1, RZ", ctl(4)},
                     {"FFMA R28, R16, R20, R28", ctl(4, 7, 7, 0b1)}};
        QTest::newRow("lds implicit write coverage")
            << lds << std::vector<Edit>{Edit::move(Position(0), Position(1))}
            << int(HazardKind::ImplicitCoverage) << "without its own scoreboard";
        QTest::newRow("lds independent move is legal")
            << lds << std::vector<Edit>{Edit::move(Position(2), Position(1))} << -1 << "";
        // A wait 1 cycle after the instruction that sets its scoreboard may pass before the scoreboard is
        // counted (flash attention on an H200: a SHFL swapped next to its waiting FMNMX gave wrong maxima).
        QTest::newRow("wait right after the scoreboard is set")
            << lds
            << std::vector<Edit>{Edit::move(Position(2), Position(1)),
                                 Edit::control(Position(2), uint8_t(1), std::nullopt, std::nullopt)}
            << int(HazardKind::Scoreboard) << "needs 2 cycles to see the scoreboard";

        // One address register read by two LDGSTS on different read SBs: the overwrite needs both waits
        // (Triton GEMM on an H200: LOP3 R19 moved above the wait on SB5 gave misaligned addresses).
        Lines twoSbs = {{"LDGSTS.E.BYPASS.128 [R19], desc[UR14][R24.64]", ctl(2, 7, 2)},
                        {"LDGSTS.E.BYPASS.128 [R19+0x800], desc[UR14][R28.64]", ctl(2, 7, 3)},
                        {"CS2R R34, SRZ", ctl(2, 7, 7, 0b100)},
                        {"CS2R R36, SRZ", ctl(2, 7, 7, 0b1000)},
                        {"LOP3.LUT R19, R7, 0x40, R22, 0xfe, !PT", ctl(1)}};
        QTest::newRow("overwrite needs every read scoreboard's wait")
            << twoSbs << std::vector<Edit>{Edit::move(Position(4), Position(3))}
            << int(HazardKind::Scoreboard) << "R19";

        // Loads read their address after issue too (attention_fwd on an H100: SHF R4 moved above the wait
        // on SB1 that covers the earlier LDG's read of R4 through a later LDG's read scoreboard faulted
        // with a misaligned address; docs/results/rescheduled-h100-2026-11-23.md).
        Lines loadRead = {{"LDG.E.128 R32, desc[UR42][R4.64]", ctl(2, 4)},
                          {"LDG.E.128 R40, desc[UR42][R18.64]", ctl(4, 4, 1)},
                          {"S2UR UR4, SR_CgaCtaId", ctl(1, 1)},
                          {"LOP3.LUT R3, R14, 0x4, RZ, 0xc0, !PT", ctl(2, 7, 7, 0b10)},
                          {"SHF.R.S32.HI R4, RZ, 0x3, R14", ctl(2)}};
        QTest::newRow("overwrite of a load's address waits for its read coverage")
            << loadRead << std::vector<Edit>{Edit::move(Position(4), Position(3))}
            << int(HazardKind::Scoreboard) << "only safe after the scoreboard wait";

        // Uniform operands are read after issue: a UMOV 1 cycle after a UIADD3 that reads the same UR gave
        // wrong results on an H200, and ptxas never placed that pair closer than 3 cycles here.
        Lines uniformWar = {{"UIADD3 UR10, UP1, UR5, 0x2000080, URZ", ctl(1)},
                            {"IMAD.X R101, RZ, RZ, R101, P5", ctl(2)},
                            {"UMOV UR5, URZ", ctl(1)},
                            {"UIADD3.X UR9, UR5, 0x40000040, URZ, UP1, !UPT", ctl(2)}};
        QTest::newRow("write-after-read distance ptxas never went below")
            << uniformWar << std::vector<Edit>{Edit::move(Position(2), Position(1))}
            << int(HazardKind::Latency) << "least distance ptxas left";

        // Read-scoreboard coverage: the LDGSTS reading R20 sets no read SB; the overwrite of R20 waits on
        // the next LDGSTS's read SB. Swapping those two gave wrong output on an H100.
        Lines ldgsts = {{"LDGSTS.E.BYPASS.128 [R7], desc[UR14][R16.64]", ctl(4, 7, 2)},
                        {"LDGSTS.E.BYPASS.128 [R9], desc[UR14][R20.64]", ctl(4, 7, 7)},
                        {"LDGSTS.E.BYPASS.128 [R11], desc[UR14][R22.64]", ctl(4, 7, 3)},
                        {"IADD3 R20, P0, R20, 0x40, RZ", ctl(4, 7, 7, 0b1000)}};
        QTest::newRow("ldgsts implicit read coverage")
            << ldgsts << std::vector<Edit>{Edit::move(Position(1), Position(2))}
            << int(HazardKind::ImplicitCoverage) << "read asynchronously";

        Lines raw = {{"IADD3 R2, R3, 0x1, RZ", ctl(6)},
                     {"LOP3.LUT R5, R2, 0xff, RZ, 0xc0, !PT", ctl(6)},
                     {"IADD3 R9, R9, 0x1, RZ", ctl(6)}};
        QTest::newRow("raw") << raw << std::vector<Edit>{Edit::move(Position(1), Position(0))}
                             << int(HazardKind::Register) << "R2 is written by";
        QTest::newRow("independent swap")
            << raw << std::vector<Edit>{Edit::move(Position(2), Position(1))} << -1 << "";

        Lines wide = {{"LDG.E.64 R4, desc[UR6][R2.64]", ctl(1, 2)},
                      {"IADD3 R9, R9, 0x1, RZ", ctl(6)},
                      {"FADD R7, R5, 1", ctl(4, 7, 7, 0b100)}};
        QTest::newRow("64-bit destination is two registers")
            << wide << std::vector<Edit>{Edit::move(Position(2), Position(0))} << int(HazardKind::Register)
            << "R5";

        Lines carry = {{"IADD3 R2, P0, R3, R4, RZ", ctl(6)},
                       {"IADD3 R8, R8, 0x1, RZ", ctl(6)},
                       {"IADD3.X R5, R6, R7, RZ, P0, !PT", ctl(6)}};
        QTest::newRow("carry predicate") << carry << std::vector<Edit>{Edit::move(Position(2), Position(0))}
                                         << int(HazardKind::Register) << "P0";

        Lines latency = {{"IADD3 R2, R3, 0x1, RZ", ctl(6)}, {"IADD3 R5, R2, 0x1, RZ", ctl(1)}};
        QTest::newRow("stall value ptxas never used on the opcode")
            << latency
            << std::vector<Edit>{Edit::control(Position(0), uint8_t(3), std::nullopt, std::nullopt)}
            << int(HazardKind::Structure) << "never used a stall of 3";
        // A raise within 1-11 keeping ptxas' yield only delays the next issue, and nvdisasm decodes it on
        // every sample instruction (bench/results/latency-sm90-2026-11-23.md).
        QTest::newRow("stall raise within 1-11")
            << latency
            << std::vector<Edit>{Edit::control(Position(0), uint8_t(9), std::nullopt, std::nullopt)} << -1
            << "";
        // Stall and yield form one value: S12 appears only with Y0 here, so S12 on a Y1 FADD is refused
        // (it changed rmsnorm's results on an H200).
        Lines stallYield = {{"FADD R1, R2, R3", ctl(12, 7, 7, 0, 0)},
                            {"FADD R4, R5, R6", ctl(1, 7, 7, 0, 1)},
                            {"FADD R7, R8, R9", ctl(1, 7, 7, 0, 1)}};
        QTest::newRow("stall value ptxas used only with the other yield")
            << stallYield
            << std::vector<Edit>{Edit::control(Position(1), uint8_t(12), std::nullopt, std::nullopt)}
            << int(HazardKind::Structure) << "with Y1";
        QTest::newRow("lowered stall breaks latency")
            << latency
            << std::vector<Edit>{Edit::control(Position(0), uint8_t(1), std::nullopt, std::nullopt)}
            << int(HazardKind::Latency) << "needs";

        // (Two loads reading one address register keep their order: each reads it after issue, and what
        // covers the later read covers the earlier only while it stays earlier.)
        Lines mem = {{"LDS R3, [R7+0x4]", ctl(2, 1)},
                     {"STS [R7], R2", ctl(1, 7, 0)},
                     {"IADD3 R9, R9, 0x1, RZ", ctl(1)},
                     {"LDS R4, [R7]", ctl(1, 2)},
                     {"LDS R5, [R8]", ctl(2, 3)}}; // ptxas' closest LDS pair: 1 cycle apart
        QTest::newRow("store then load of the same address")
            << mem << std::vector<Edit>{Edit::move(Position(3), Position(1))} << int(HazardKind::MemoryOrder)
            << "same memory";
        QTest::newRow("provably disjoint offsets")
            << mem << std::vector<Edit>{Edit::move(Position(0), Position(1))} << -1 << "";
        // Conflicting accesses keep ptxas' distance: memory completes after issue (an LDSM brought from 28
        // to 9 cycles before a conflicting STS gave wrong attention output on an H200).
        QTest::newRow("conflicting accesses brought closer")
            << mem << std::vector<Edit>{Edit::move(Position(2), Position(3))} << int(HazardKind::Latency)
            << "completes after issue";

        Lines wall = {{"LDS R3, [R7]", ctl(1, 1)},
                      {"BAR.SYNC.DEFER_BLOCKING 0x0", ctl(6)},
                      {"LDS R4, [R8]", ctl(1, 2)},
                      {"IADD3 R9, R9, 0x1, RZ", ctl(1)}};
        QTest::newRow("barrier is a wall") << wall << std::vector<Edit>{Edit::move(Position(2), Position(0))}
                                           << int(HazardKind::Wall) << "BAR";

        Lines spacing = {{"LDGSTS.E.BYPASS.128 [R7], desc[UR14][R16.64]", ctl(2, 7, 2)},
                         {"IMAD.MOV.U32 R9, RZ, RZ, R11", ctl(2)},
                         {"LDGSTS.E.BYPASS.128 [R13], desc[UR14][R18.64]", ctl(2, 7, 3)},
                         {"IADD3 R30, R30, 0x1, RZ", ctl(2)}};
        QTest::newRow("issue spacing") << spacing << std::vector<Edit>{Edit::move(Position(2), Position(1))}
                                       << int(HazardKind::IssueSpacing) << "never placed them closer";

        Lines sbwait = {{"LDG.E R4, desc[UR6][R2.64]", ctl(1, 2)},
                        {"IADD3 R9, R9, 0x1, RZ", ctl(4, 7, 7, 0b100)},
                        {"FADD R7, R4, 1", ctl(4)}};
        QTest::newRow("consumer relies on an earlier wait")
            << sbwait << std::vector<Edit>{Edit::move(Position(2), Position(1))}
            << int(HazardKind::Scoreboard) << "scoreboard wait";

        // Yield flips (docs/legality.md, control edits): within stalls 1..11 the issue gap is the stall
        // count under either bit, so a flip changes no distance; above 11 it shortens the gap.
        auto yieldEdit = [](Position at, int yield) {
            return std::vector<Edit>{Edit::control(at, std::nullopt, uint8_t(yield), std::nullopt)};
        };
        Lines yields = {{"FADD R1, R2, R3", ctl(13, 7, 7, 0, 0)},
                        {"FADD R4, R5, R6", ctl(1, 7, 7, 0, 1)},
                        {"FADD R7, R8, R9", ctl(2, 7, 7, 0, 0)},
                        {"IADD3 R10, R10, 0x1, RZ", ctl(2)},
                        {"NOP", ctl(0, 7, 7, 0, 0)},
                        {"NOP", ctl(1, 7, 7, 0, 1)},
                        {"BAR.SYNC.DEFER_BLOCKING 0x0", ctl(6, 7, 7, 0, 1)},
                        {"BAR.SYNC.DEFER_BLOCKING 0x0", ctl(6, 7, 7, 0, 0)}};
        QTest::newRow("yield flip with stall 1") << yields << yieldEdit(Position(1), 0) << -1 << "";
        QTest::newRow("yield flip with stall 2") << yields << yieldEdit(Position(2), 1) << -1 << "";
        QTest::newRow("yield flip with stall 13")
            << yields << yieldEdit(Position(0), 1) << int(HazardKind::Structure)
            << "with stall 13 > 11 the yield bit changes the issue gap (13 cycles with Y0, 1 with Y1; "
               "docs/sass-facts.md, control bits)";
        QTest::newRow("yield flip with stall 0")
            << yields << yieldEdit(Position(4), 1) << int(HazardKind::Structure)
            << "with stall 0 the yield bit changes the issue gap";
        // ptxas' habits no longer decide: the class table (IADD3: fixed-latency ALU, measured) and the
        // decode gate do (a listing built from text has no words to decode).
        QTest::newRow("yield value ptxas never used on the opcode")
            << yields << yieldEdit(Position(3), 0) << -1 << "";
        QTest::newRow("yield flip on a barrier")
            << yields << yieldEdit(Position(6), 0) << int(HazardKind::Structure) << "it is a wall";
        // Stall and yield changed together: the stall part keeps the observed-pair rule, the yield part
        // the stall <= 11 rule.
        QTest::newRow("stall and yield to a pair ptxas used")
            << yields << std::vector<Edit>{Edit::control(Position(1), uint8_t(2), uint8_t(0), std::nullopt)}
            << -1 << "";
        QTest::newRow("stall and yield to a pair ptxas never used")
            << yields << std::vector<Edit>{Edit::control(Position(1), uint8_t(3), uint8_t(0), std::nullopt)}
            << int(HazardKind::Structure) << "never used a stall of 3 with Y0";
        QTest::newRow("stall above 11 with a flipped yield")
            << yields << std::vector<Edit>{Edit::control(Position(1), uint8_t(13), uint8_t(0), std::nullopt)}
            << int(HazardKind::Structure) << "with stall 13 > 11";
        // ptxas' own re-arm of a scoreboard 1 cycle after a yielding (Y0) wait on it is trusted only while
        // the waiter yields; adding a yield only delays the warp. The yield bit of variable-latency
        // instructions stays (measured on fixed-latency ones only).
        Lines shortWait = {{"LDS R4, [R2]", ctl(2, 0, 7, 0, 1)},
                           {"IADD3 R9, R9, 0x1, RZ", ctl(4)},
                           {"FADD R5, R4, 1", ctl(1, 7, 7, 0b1, 0)},
                           {"LDS R6, [R3]", ctl(2, 0, 7, 0, 0)},
                           {"FADD R7, R6, 1", ctl(4, 7, 7, 0b1, 1)}};
        QTest::newRow("yield removed under a 1-cycle scoreboard re-arm")
            << shortWait << yieldEdit(Position(2), 1) << int(HazardKind::Scoreboard)
            << "yields as ptxas made it";
        QTest::newRow("yield added on a waiter") << shortWait << yieldEdit(Position(4), 0) << -1 << "";
        // LDS is a measured class (bench/results/yield-classes-h200-2026-11-26.md); S2R's gap is not.
        QTest::newRow("yield flip on a measured variable-latency class")
            << shortWait << yieldEdit(Position(0), 0) << -1 << "";
        Lines classes = {{"S2R R0, SR_TID.X", ctl(2, 0, 7, 0, 1)},
                         {"LDS R4, [R2]", ctl(1, 1, 7, 0, 0)},
                         {"IADD3 R9, R9, 0x1, RZ", ctl(4)},
                         {"FADD R5, R4, R0", ctl(4, 7, 7, 0b11, 1)}};
        QTest::newRow("yield flip on a class whose gap was not measured")
            << classes << yieldEdit(Position(0), 0) << int(HazardKind::Structure) << "its issue gap";
        QTest::newRow("Y0 to Y1 at stall 1 on a load")
            << classes << yieldEdit(Position(1), 1) << int(HazardKind::Structure) << "at stall 1, Y1 issues";

        // Reuse flags: clearing is always legal; setting needs the next instruction to read the same
        // register in the same slot's field (ControlRules::reuseRefusal). ptxas' own flags on the first
        // two pairs show FFMA's Ra and Rb fields hold registers in this kernel.
        auto reuseEdit = [](Position at, int mask) {
            return Edit::control(at, std::nullopt, std::nullopt, uint8_t(mask));
        };
        Control ra = ctl(1), rb = ctl(1);
        ra.reuse = 0b1;
        rb.reuse = 0b10;
        Lines reuse = {{"FFMA R30, R31.reuse, R32, R33", ra},           // 0
                       {"FFMA R34, R31, R35, R36", ctl(1)},             // 1
                       {"FFMA R37, R38, R39.reuse, R40", rb},           // 2
                       {"FFMA R41, R42, R39, R43", ctl(1)},             // 3
                       {"FFMA R1, R2, R3, R4", ctl(1)},                 // 4
                       {"FFMA R5, R2, R6, R7", ctl(1)},                 // 5
                       {"FFMA R8, R9, R6, R10", ctl(1)},                // 6
                       {"@P0 FFMA R11, R9, R12, R13", ctl(1)},          // 7
                       {"FFMA R14, R9, R12, R15", ctl(4)},              // 8
                       {"FFMA R9, R9, R12, R16", ctl(4)},               // 9
                       {"FFMA R17, R9, R12, R18", ctl(1)},              // 10
                       {"FFMA R20, R21, R22, R23", ctl(1)},             // 11
                       {"LDG.E R24, desc[UR6][R21.64]", ctl(1, 0)},     // 12
                       {"FADD R44, R45, R46", ctl(1)},                  // 13
                       {"FFMA R25, R26, R27, R28", ctl(1)},             // 14
                       {"FFMA R50, R26, R51, R52", ctl(1, 7, 7, 0, 0)}, // 15
                       {"FFMA R53, R26, R54, R55", ctl(1)}};            // 16
        QTest::newRow("reuse cleared") << reuse << std::vector<Edit>{reuseEdit(Position(0), 0)} << -1 << "";
        QTest::newRow("reuse set on a shared Ra")
            << reuse << std::vector<Edit>{reuseEdit(Position(4), 0b1)} << -1 << "";
        QTest::newRow("reuse set on a shared Rb")
            << reuse << std::vector<Edit>{reuseEdit(Position(5), 0b10)} << -1 << "";
        QTest::newRow("reuse set on an operand the next one does not read")
            << reuse << std::vector<Edit>{reuseEdit(Position(4), 0b10)} << int(HazardKind::Reuse)
            << "operand slot 1 (Rb) needs the next instruction to read R3 in the same slot";
        QTest::newRow("reuse set on a slot ptxas never flagged on the form")
            << reuse << std::vector<Edit>{reuseEdit(Position(4), 0b100)} << int(HazardKind::Reuse)
            << "is not known to name a register field";
        QTest::newRow("reuse set on the reserved slot")
            << reuse << std::vector<Edit>{reuseEdit(Position(4), 0b1000)} << int(HazardKind::Reuse)
            << "slot 3";
        QTest::newRow("reuse set on a predicated instruction")
            << reuse << std::vector<Edit>{reuseEdit(Position(7), 0b1)} << int(HazardKind::Reuse)
            << "predicated";
        QTest::newRow("reuse set on a register the instruction overwrites")
            << reuse << std::vector<Edit>{reuseEdit(Position(9), 0b1)} << int(HazardKind::Reuse)
            << "itself overwrites";
        QTest::newRow("reuse set before a memory instruction")
            << reuse << std::vector<Edit>{reuseEdit(Position(11), 0b1)} << int(HazardKind::Reuse)
            << "needs a fixed-latency ALU/FMA operation next";
        QTest::newRow("reuse set before another form")
            << reuse << std::vector<Edit>{reuseEdit(Position(13), 0b1)} << int(HazardKind::Reuse)
            << "needs the next instruction to be another FADD";
        // Reuse flags with Y0 on FFMA: measured (bench/results/yield-classes-h200-2026-11-26.md).
        QTest::newRow("reuse set on a yielding instruction")
            << reuse << std::vector<Edit>{reuseEdit(Position(15), 0b1)} << -1 << "";
        QTest::newRow("reuse set on the block's last instruction")
            << reuse << std::vector<Edit>{reuseEdit(Position(16), 0b1)} << int(HazardKind::Reuse)
            << "no next instruction";
        // ptxas never pairs reuse flags with Y0, but the pairing was measured on FFMA.
        QTest::newRow("yield flip keeping reuse flags")
            << reuse << std::vector<Edit>{Edit::control(Position(0), std::nullopt, uint8_t(0), std::nullopt)}
            << -1 << "";
        QTest::newRow("yield flip dropping reuse flags")
            << reuse << std::vector<Edit>{Edit::control(Position(0), std::nullopt, uint8_t(0), uint8_t(0))}
            << -1 << "";
        // A flag set after a move is judged in the order it will be written; one set before a move is
        // cleared by the reuse fix-up that follows every move.
        QTest::newRow("reuse set after a move that changed the next instruction")
            << reuse << std::vector<Edit>{Edit::move(Position(6), Position(5)), reuseEdit(Position(4), 0b1)}
            << int(HazardKind::Reuse) << "needs the next instruction to read R2";
        QTest::newRow("reuse set before a move is cleared by the fix-up")
            << reuse << std::vector<Edit>{reuseEdit(Position(4), 0b1), Edit::move(Position(6), Position(5))}
            << -1 << "";
    }

    void handmade()
    {
        QFETCH(Lines, lines);
        QFETCH(std::vector<Edit>, edits);
        QFETCH(int, expectedKind);
        QFETCH(QString, reasonContains);
        auto a = analyse(lines);
        LegalityChecker checker(a);
        QVERIFY2(checker.check(Schedule::identity(*a)).legal(),
                 checker.check(Schedule::identity(*a)).summary().c_str());
        auto report = checker.check(edits);
        if (expectedKind < 0) {
            QVERIFY2(report.legal(), report.summary().c_str());
            return;
        }
        QVERIFY2(!report.legal(), "expected the checker to refuse this edit");
        bool found = false;
        for (const auto& h : report.hazards)
            found = found || (int(h.kind) == expectedKind &&
                              QString::fromStdString(h.message).contains(reasonContains));
        QVERIFY2(found, report.summary().c_str());
    }

    // A flagged instruction may lose its neighbours (docs/legality.md, "Reuse flags"): the reuse fix-up
    // clears a flag whose partner no longer follows, and a flag kept where the next instruction does not
    // read that register through that slot is refused.
    void reuseFlagsFollowTheirPartner()
    {
        Control r = ctl(1);
        r.reuse = 1;
        Lines lines = {{"FFMA R45, R26.reuse, R12, R45", r},
                       {"FFMA R38, R26, R15, R38", ctl(1)},
                       {"FFMA R54, R27, R12, R54", ctl(1)},
                       {"IADD3 R9, R9, 0x1, RZ", ctl(1)}};
        auto a = analyse(lines);
        LegalityChecker checker(a);
        const auto fix = [&](Schedule& s) { checker.fixReuse(s); };
        auto report = checker.check({Edit::move(Position(2), Position(1))});
        QVERIFY2(report.legal(), report.summary().c_str());
        auto split = applyEdits(*a, {Edit::move(Position(2), Position(1))}, fix);
        QVERIFY(split);
        QCOMPARE(int(split->control[InstrId(0)].reuse), 0);
        auto stale = applyEdits(*a, {Edit::move(Position(2), Position(1))});
        QVERIFY(stale);
        auto refused = checker.check(*stale);
        QVERIFY(!refused.legal());
        QCOMPARE(int(refused.hazards.front().kind), int(HazardKind::Reuse));
        // A new predecessor leaves the pair and its flag alone.
        auto before = applyEdits(*a, {Edit::move(Position(3), Position(0))}, fix);
        QVERIFY(before);
        QCOMPARE(int(before->control[InstrId(0)].reuse), 1);
        QVERIFY(checker.check(*before).legal());
        // Clearing the flag in place is legal (it only drops a cache hint).
        QVERIFY(checker.check({Edit::control(Position(0), std::nullopt, std::nullopt, uint8_t(0))}).legal());
        // Every FFMA here carries Y1; Y0 is still allowed (measured class; the decode gate has no words
        // to check in a listing built from text).
        auto flip = checker.check({Edit::control(Position(1), std::nullopt, uint8_t(0), std::nullopt)});
        QVERIFY2(flip.legal(), flip.summary().c_str());
    }

    void repairRaisesStall()
    {
        Lines lines = {{"IADD3 R2, R3, 0x1, RZ", ctl(6)}, {"IADD3 R5, R2, 0x1, RZ", ctl(1)}};
        auto a = analyse(lines);
        LegalityChecker checker(a);
        auto s = applyEdits(*a, {Edit::control(Position(0), uint8_t(1), std::nullopt, std::nullopt)});
        QVERIFY(s.ok());
        QVERIFY(!checker.check(*s).legal());
        QVERIFY(checker.rescheduler().repairLatencies(*s));
        QVERIFY(checker.check(*s).legal());
        QVERIFY(s->control[InstrId(0)].stall >= 6);
    }

    void samples_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& p : sampleCubins())
            QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p;
    }

    // ptxas' own schedule is legal under the model, and every move legalTargets offers passes a full
    // check (the fast path and the full check agree).
    void samples()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed");
        QFETCH(QString, path);
        auto cubin = Cubin::load(path.toStdString());
        QVERIFY(cubin.ok());
        auto listings = disassemble(*cubin);
        QVERIFY(listings.ok());
        std::mt19937 rng(1234);
        for (auto& l : *listings) {
            auto a = KernelAnalysis::build(std::move(l));
            LegalityChecker checker(a);
            auto identity = Schedule::identity(*a);
            auto report = checker.check(identity);
            QVERIFY2(report.legal(), (a->listing.kernel + ": " + report.summary()).c_str());
            int offered = 0;
            for (Position p : identity.positions()) {
                const InstrId i = identity.order[p];
                if (!a->listing.instructions[i.value()].isMemory()) continue;
                auto fast = checker.legalTargets(identity, p);
                for (Position t : fast) {
                    ++offered;
                    auto r = checker.check({Edit::move(p, t)});
                    QVERIFY2(r.legal(), r.summary().c_str());
                }
                // The fast path misses nothing the full check would allow.
                std::vector<Position> full;
                CheckOptions stop;
                stop.stopAtFirst = true;
                for (Position t : positionsOf(blockOfPosition(a->cfg, p)))
                    if (t != p && checker.check({Edit::move(p, t)}, stop).legal()) full.push_back(t);
                QCOMPARE(fast, full);
            }
            qInfo("%s: %d legal single memory moves", a->listing.kernel.c_str(), offered);
        }
    }
};

QTEST_GUILESS_MAIN(TestLegality)
#include "test_legality.moc"
