// Dependency facts on hand-made sequences: widths, carries, scoreboard edges, implicit coverage,
// memory disjointness, cross-block waits, CFG loops and liveness.
#include "core/analysis/kernel_analysis.h"
#include "core/sass/listing.h"

#include <QtTest>

using namespace sassx;

namespace {

Control ctl(int stall, int wbar = 7, int rbar = 7, int wait = 0)
{
    Control c;
    c.stall = uint8_t(stall);
    c.wbar = uint8_t(wbar);
    c.rbar = uint8_t(rbar);
    c.wait = uint8_t(wait);
    c.yield = 1;
    return c;
}

using Lines = std::vector<std::pair<std::string, Control>>;

std::shared_ptr<const KernelAnalysis> analyse(const Lines& lines)
{
    return KernelAnalysis::build(makeListing(lines, 90), LatencyTable{});
}

bool hasEdge(const KernelAnalysis& a, uint32_t from, uint32_t to, DepKind kind, const char* reg = nullptr)
{
    for (const auto& e : a.deps.edges())
        if (e.from == from && e.to == to && e.kind == kind && (!reg || (e.hasReg && e.reg.name() == reg)))
            return true;
    return false;
}

QStringList names(const RegList& l)
{
    QStringList s;
    for (const auto& r : l)
        s << QString::fromStdString(r.name());
    return s;
}

} // namespace

class TestDependencyGraph : public QObject
{
    Q_OBJECT
private slots:
    void semantics_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("defs");
        QTest::addColumn<QStringList>("uses");
        QTest::newRow("ldg 128") << "LDG.E.128 R4, desc[UR6][R2.64+0x10]"
                                 << QStringList{"R4", "R5", "R6", "R7"}
                                 << QStringList{"R2", "R3", "UR6", "UR7"};
        QTest::newRow("imad wide") << "IMAD.WIDE R2, R5, 0x4, R8" << QStringList{"R2", "R3"}
                                   << QStringList{"R5", "R8", "R9"};
        QTest::newRow("carry out") << "IADD3 R2, P0, P1, R3, R4, RZ" << QStringList{"R2", "P0", "P1"}
                                   << QStringList{"R3", "R4"};
        QTest::newRow("carry in") << "IADD3.X R5, R6, R7, RZ, P0, !PT" << QStringList{"R5"}
                                  << QStringList{"R6", "R7", "P0"};
        QTest::newRow("setp") << "@!P2 ISETP.GE.AND P0, PT, R5, UR4, PT" << QStringList{"P0"}
                              << QStringList{"R5", "UR4", "P2"};
        QTest::newRow("store") << "STS.64 [R7+0x8], R4" << QStringList{} << QStringList{"R4", "R5", "R7"};
        QTest::newRow("hmma") << "HMMA.16816.F32 R16, R4, R8, R16" << QStringList{"R16", "R17", "R18", "R19"}
                              << QStringList{"R4", "R5", "R6", "R7", "R8", "R9", "R16", "R17", "R18", "R19"};
        QTest::newRow("ldsm x4") << "LDSM.16.M88.4 R8, [R93+0x1000]" << QStringList{"R8", "R9", "R10", "R11"}
                                 << QStringList{"R93"};
        QTest::newRow("ldgsts") << "LDGSTS.E.BYPASS.128 [R7], desc[UR14][R16.64]" << QStringList{}
                                << QStringList{"R7", "R16", "R17", "UR14", "UR15"};
        // nvdisasm 13.0's JSON prints shared loads without the comma (seen on the H100 machine's
        // toolkit, docs/results/pcsample-h100-2026-11-23.md): the destination must not be lost.
        QTest::newRow("lds glued (nvdisasm 13.0)")
            << "LDS.128 R36[R97]" << QStringList{"R36", "R37", "R38", "R39"} << QStringList{"R97"};
        QTest::newRow("ldsm glued (nvdisasm 13.0)")
            << "LDSM.16.M88.4 R8[R93+0x1000]" << QStringList{"R8", "R9", "R10", "R11"} << QStringList{"R93"};
        QTest::newRow("lop3 with predicate")
            << "LOP3.LUT P0, R2, R3, 0xff, RZ, 0xc0, !PT" << QStringList{"P0", "R2"} << QStringList{"R3"};
        QTest::newRow("double") << "DFMA R2, R4, R6, R8" << QStringList{"R2", "R3"}
                                << QStringList{"R4", "R5", "R6", "R7", "R8", "R9"};
    }

    void semantics()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, defs);
        QFETCH(QStringList, uses);
        auto ins = makeInstruction(text.toStdString(), ctl(1));
        auto sorted = [](QStringList l) {
            l.sort();
            return l;
        };
        QCOMPARE(sorted(names(ins.defs)), sorted(defs));
        QCOMPARE(sorted(names(ins.uses)), sorted(uses));
        QVERIFY(!ins.opaque);
    }

    void unknownOpcodeIsOpaqueWall()
    {
        auto a = analyse({{"FOOBAR R2, R3", ctl(1)}, {"IADD3 R4, R4, 0x1, RZ", ctl(1)}});
        QVERIFY(a->listing.instructions[0].opaque);
        QVERIFY(a->facts[0].wall);
        QVERIFY(QString::fromStdString(a->facts[0].wallReason).contains("not in sassx's operand tables"));
    }

    void implicitCoverage()
    {
        auto a = analyse({{"LDS.128 R16, [R2]", ctl(1)},
                          {"LDS.128 R20, [R4]", ctl(1, 0)},
                          {"FFMA R28, R16, R20, R28", ctl(4, 7, 7, 0b1)}});
        QVERIFY(hasEdge(*a, 0, 1, DepKind::ImplicitCover, "R16"));
        QVERIFY(hasEdge(*a, 1, 2, DepKind::SbProducer));
        QVERIFY(hasEdge(*a, 0, 2, DepKind::Raw, "R16"));
        QVERIFY(!a->deps.unresolved()[2]);
    }

    // The wait on a load's own write scoreboard proves its address was read (RMSNorm's pattern: two
    // LDGs without read scoreboards, their address register overwritten after both data waits).
    void ownWriteScoreboardCoversAddressRead()
    {
        auto a = analyse({{"LDG.E.128 R4, desc[UR6][R12.64]", ctl(4, 2)},
                          {"LDG.E.128 R8, desc[UR6][R12.64+0x1000]", ctl(1, 3)},
                          {"FADD R20, R4, 1", ctl(4, 7, 7, 0b100)},
                          {"FADD R21, R8, 1", ctl(4, 7, 7, 0b1000)},
                          {"IADD3 R12, R20, R21, RZ", ctl(4)}});
        QVERIFY(!a->deps.unresolved()[4]);
        QVERIFY(!hasEdge(*a, 0, 1, DepKind::ImplicitCover)); // each has its own cover: free to swap
        QVERIFY(hasEdge(*a, 0, 2, DepKind::SbProducer));
        QVERIFY(hasEdge(*a, 2, 4, DepKind::SbConsumer, "R12"));
        QVERIFY(hasEdge(*a, 3, 4, DepKind::SbConsumer, "R12"));
        for (const auto& e : a->deps.edges())
            if (e.kind == DepKind::War && e.to == 4) QVERIFY2(!e.hasDistanceBound(), "covered: order only");
    }

    void overwriteBeforeOwnWaitIsPinned()
    {
        auto a = analyse({{"LDG.E.128 R4, desc[UR6][R12.64]", ctl(4, 2)},
                          {"IADD3 R12, R12, 0x10, RZ", ctl(4)},
                          {"FADD R20, R4, 1", ctl(4, 7, 7, 0b100)}});
        QVERIFY(a->deps.unresolved()[1]);
        QVERIFY(QString::fromStdString(a->deps.unresolvedReason(1)).contains("R12"));
    }

    // A later load of the same in-order pipe may load into the address register an earlier load reads
    // (RMSNorm: LDG R8, [R12]; LDG R12, [R12+0x1000]) while they keep their order.
    void samePipeLoadOverwritesAddress()
    {
        auto a = analyse({{"LDG.E.128 R8, desc[UR6][R12.64]", ctl(4, 3)},
                          {"LDG.E.128 R12, desc[UR6][R12.64+0x1000]", ctl(1, 4)},
                          {"FADD R20, R8, R12", ctl(4, 7, 7, 0b11000)}});
        QVERIFY(!a->deps.unresolved()[1]);
        QVERIFY(hasEdge(*a, 0, 1, DepKind::ImplicitCover, "R12"));
        // A shared-memory load is another pipe: no such guarantee.
        auto b = analyse({{"LDG.E.128 R8, desc[UR6][R12.64]", ctl(4, 3)},
                          {"LDS R12, [R2]", ctl(1, 4)},
                          {"FADD R20, R8, R12", ctl(4, 7, 7, 0b11000)}});
        QVERIFY(b->deps.unresolved()[1]);
    }

    // Two stores without scoreboards reading one address register keep their order only if something
    // can overwrite the register after them: not before an EXIT.
    void implicitReadersBeforeExitAreFree()
    {
        auto a = analyse({{"STG.E desc[UR6][R2.64], R4", ctl(4)},
                          {"STG.E desc[UR6][R2.64+0x4], R5", ctl(4)},
                          {"EXIT", ctl(5)}});
        QVERIFY(!hasEdge(*a, 0, 1, DepKind::ImplicitCover));
        auto b = analyse({{"STG.E desc[UR6][R2.64], R4", ctl(4)},
                          {"STG.E desc[UR6][R2.64+0x4], R5", ctl(4, 7, 1)},
                          {"IADD3 R9, R9, 0x1, RZ", ctl(4, 7, 7, 0b10)},
                          {"IADD3 R2, R2, 0x1, RZ", ctl(4)},
                          {"EXIT", ctl(5)}});
        QVERIFY(hasEdge(*b, 0, 1, DepKind::ImplicitCover, "R2"));
        QVERIFY(!b->deps.unresolved()[3]);
    }

    void waitCoversLaterReader()
    {
        auto a = analyse({{"LDG.E R4, desc[UR6][R2.64]", ctl(1, 2)},
                          {"IADD3 R9, R9, 0x1, RZ", ctl(4, 7, 7, 0b100)},
                          {"FADD R7, R4, 1", ctl(4)}});
        QVERIFY(hasEdge(*a, 0, 1, DepKind::SbProducer));
        QVERIFY(hasEdge(*a, 1, 2, DepKind::SbConsumer, "R4"));
    }

    void uncoveredReadIsPinned()
    {
        // A variable-latency result read with no wait at all: the model cannot explain it, so it pins.
        auto a = analyse({{"LDG.E R4, desc[UR6][R2.64]", ctl(1, 2)}, {"FADD R7, R4, 1", ctl(4)}});
        QVERIFY(a->deps.unresolved()[1]);
        QVERIFY(QString::fromStdString(a->deps.unresolvedReason(1)).contains("R4"));
    }

    void memoryDisjointness()
    {
        auto a = analyse({{"STS [R7], R2", ctl(1)},
                          {"LDS R3, [R7+0x4]", ctl(1, 1)},
                          {"IADD3 R7, R7, 0x4, RZ", ctl(6)},
                          {"LDS R4, [R7]", ctl(1, 2)}});
        QVERIFY(!hasEdge(*a, 0, 1, DepKind::Memory)); // same base, disjoint bytes
        QVERIFY(hasEdge(*a, 0, 3, DepKind::Memory));  // base redefined in between: cannot prove
    }

    void loopsAndLiveness()
    {
        auto a = analyse({{"MOV R2, RZ", ctl(1)},
                          {"IADD3 R2, R2, 0x1, RZ", ctl(6)},
                          {"ISETP.GE.AND P0, PT, R2, 0x10, PT", ctl(13)},
                          {"@!P0 BRA 0x10", ctl(5)},
                          {"EXIT", ctl(5)}});
        QCOMPARE(int(a->cfg.blocks.size()), 3);
        QVERIFY(a->cfg.blocks[1].isLoopHeader);
        QCOMPARE(a->cfg.blocks[1].loopDepth, 1);
        QCOMPARE(a->cfg.blocks[2].loopDepth, 0);
        QVERIFY(a->liveness.blockLiveIn[1].test(Reg{RegFile::R, 2}.key()));
        QCOMPARE(a->facts[4].liveGpr, 0);
    }
};

QTEST_GUILESS_MAIN(TestDependencyGraph)
#include "test_dependency_graph.moc"
