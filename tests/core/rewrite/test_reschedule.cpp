// Control codes derived for a new order (LegalityChecker::reschedule, docs/legality.md "Rescheduling"),
// stall decreases as control edits, and the measured timing-model cells the checker now reads.
#include "../sass/test_common.h"
#include "core/analysis/kernel_analysis.h"
#include "core/analysis/latency_table.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/legality.h"
#include "core/sass/listing.h"
#include "core/sass/nvdisasm.h"

#include <QtTest>

using namespace sassx;

namespace {

Control ctl(int stall, int yield = 1)
{
    Control c;
    c.stall = uint8_t(stall);
    c.yield = uint8_t(yield);
    return c;
}

std::shared_ptr<const KernelAnalysis> analyse(const std::vector<std::pair<std::string, Control>>& lines)
{
    auto table = LatencyTable::load(90);
    return KernelAnalysis::build(makeListing(lines, 90), table ? *table : LatencyTable{});
}

std::vector<std::shared_ptr<const KernelAnalysis>> sm90Kernels()
{
    std::vector<std::shared_ptr<const KernelAnalysis>> out;
    for (const QString& path : sampleCubins()) {
        if (!path.contains(QStringLiteral("sm_90"))) continue;
        auto cubin = Cubin::load(path.toStdString());
        if (!cubin) continue;
        auto listings = disassemble(*cubin);
        if (!listings) continue;
        for (auto& l : *listings)
            out.push_back(KernelAnalysis::build(std::move(l)));
    }
    return out;
}

} // namespace

class TestReschedule : public QObject
{
    Q_OBJECT
private slots:
    // A move that brings a reader next to its producer is refused as it is and made legal by raising the
    // producer's stall; the derived stall is one the rules accept.
    void moveNeedsARaisedStall()
    {
        auto a = analyse({{"IADD3 R2, R1, 0x1, RZ", ctl(1)},
                          {"IADD3 R7, R6, 0x1, RZ", ctl(5)},
                          {"IADD3 R3, R2, 0x1, RZ", ctl(5)},
                          {"IADD3 R9, R8, 0x1, RZ", ctl(5)}});
        LegalityChecker checker(a);
        Schedule s = Schedule::identity(*a);
        s.move(Position(1), Position(2));
        const auto plain = checker.check(s);
        QVERIFY(!plain.legal());
        QCOMPARE(plain.hazards.front().kind, HazardKind::Latency);
        const auto why = checker.reschedule(s, {0});
        QVERIFY2(!why, why ? why->c_str() : "");
        QVERIFY2(checker.check(s).legal(), checker.check(s).summary().c_str());
        QVERIFY(s.control[InstrId(0)].stall > 1);
        QVERIFY(checker.controlRules().valueRefusals(InstrId(0), s.control[InstrId(0)]).empty());
    }

    // A raise keeps ptxas' yield bit within 1-11; above 11 or with the other bit only pairs ptxas used.
    void stallRaiseRule()
    {
        auto a = analyse({{"IADD3 R2, R1, 0x1, RZ", ctl(2)}, {"IADD3 R3, R2, 0x1, RZ", ctl(4)}});
        const LegalityChecker checker(a);
        const ControlRules& rules = checker.controlRules();
        QVERIFY(!rules.stallRefusal(InstrId(0), ctl(9)));
        QVERIFY(rules.stallRefusal(InstrId(0), ctl(12, 1)));
        QVERIFY(rules.stallRefusal(InstrId(0), ctl(3, 0)));
        QVERIFY(rules.stallRefusal(InstrId(1), ctl(3))); // a decrease to a value ptxas never used
        QCOMPARE(int(*rules.leastAllowedStall(InstrId(0), 5, 1)), 5);
    }

    // On every sm_90 sample: ptxas' order with derived codes keeps ptxas' stalls where its pairs stand
    // (the default derivation changes nothing); the minimal derivation is legal and lowers stalls; every
    // rescheduled target and every stall decrease offered passes the full check.
    void samplesStayLegal()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not found (set SASSX_NVDISASM): sample kernels cannot be read");
        const auto kernels = sm90Kernels();
        if (kernels.empty()) QSKIP("no sm_90 sample cubins in the build");
        int lowered = 0, targets = 0, decreases = 0;
        for (const auto& a : kernels) {
            LegalityChecker checker(a);
            std::vector<int> blocks;
            for (const auto& b : a->cfg.blocks)
                blocks.push_back(b.index);
            Schedule same = Schedule::identity(*a);
            QVERIFY2(!checker.reschedule(same, blocks), a->listing.kernel.c_str());
            for (InstrId i : same.instructions())
                QVERIFY2(same.control[i] == a->listing.instructions[i.value()].control,
                         a->listing.kernel.c_str());
            Schedule minimal = Schedule::identity(*a);
            const auto why = checker.reschedule(minimal, blocks, true);
            QVERIFY2(!why, (a->listing.kernel + ": " + why.value_or("")).c_str());
            QVERIFY2(checker.check(minimal).legal(), checker.check(minimal).summary().c_str());
            for (InstrId i : minimal.instructions())
                lowered += minimal.control[i].stall < a->listing.instructions[i.value()].control.stall;
            const Schedule identity = Schedule::identity(*a);
            int tried = 0;
            for (Position p = Position(0); p < identity.order.endIndex() && tried < 12; ++p) {
                const InstrId i = identity.order[p];
                if (!a->listing.instructions[i.value()].isMemory()) continue;
                ++tried;
                for (const auto& [to, s] : checker.rescheduler().rescheduledTargets(identity, p, 8)) {
                    const auto r = checker.check(s);
                    QVERIFY2(r.legal(), (a->listing.kernel + ": " + r.summary()).c_str());
                    QCOMPARE(s.positionOf()[i], to);
                    ++targets;
                }
            }
            for (const Edit& e : checker.legalControlEdits(identity, ControlSpace::Stall)) {
                QVERIFY(e.stall && !e.yield && !e.reuse);
                Schedule s = identity;
                QVERIFY(*e.stall < s.control[s.order[e.at]].stall);
                s.control[s.order[e.at]].stall = *e.stall;
                QVERIFY2(checker.check(s).legal(), checker.check(s).summary().c_str());
                ++decreases;
            }
        }
        QVERIFY(lowered > 0);
        QVERIFY(targets > 0);
        QVERIFY(decreases > 0);
    }

    // The sm_90 table carries measured cells, and a dependency of a measured key takes the cell as its
    // bound instead of ptxas' evidence.
    void measuredCellsReachTheGraph()
    {
        auto table = LatencyTable::load(90);
        QVERIFY2(table, table ? "" : table.message().c_str());
        QVERIFY(table->measuredCount() > 100);
        QVERIFY(table->measuredSource().find("bench/results/latency-sm90") != std::string::npos);
        QCOMPARE(table->measuredCell(LatencyKey::raw("FFMA", "FFMA", OperandRole::Reg)).value_or(0), 4);
        // the H200 FMUL→FMNMX lesson
        QCOMPARE(table->measuredCell(LatencyKey::raw("FFMA", "FMNMX", OperandRole::Reg)).value_or(0), 5);
        QVERIFY(!table->measuredCell(LatencyKey::raw("NOPE", "NOPE", OperandRole::Reg)));
        auto a = analyse({{"FFMA R2, R1, R4, R5", ctl(9)}, {"FFMA R3, R2, R4, R5", ctl(4)}});
        bool seen = false;
        for (const auto& d : a->deps.edges())
            if (d.kind == DepKind::Raw && d.from == 0 && d.to == 1) {
                QVERIFY(d.measured);
                QCOMPARE(d.requiredDistance(), 4); // below ptxas' 9
                seen = true;
            }
        QVERIFY(seen);
        QVERIFY(!LatencyTable::fromJson(R"({"measured":{"cells":{"RAW|A|B|reg":0}}})"));
        QVERIFY(!LatencyTable::fromJson(R"({"measured":{"cells":{"RAW|A|B|sideways":4}}})"));
    }

    void pairKeys_data()
    {
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        QTest::addColumn<QString>("key");
        QTest::newRow("alu to alu") << "IADD3 R2, R1, 0x1, RZ"
                                    << "LOP3.LUT R3, R2, 0x4, RZ, 0xc0, !PT"
                                    << "RAW|IADD3|LOP3|reg";
        QTest::newRow("address") << "IMAD.WIDE R4, R2, 0x4, R6"
                                 << "LDG.E R8, desc[UR4][R4.64]"
                                 << "RAW|IMAD.WIDE|LDG|addr";
        QTest::newRow("guard") << "ISETP.GE.AND P0, PT, R2, 0x4, PT"
                               << "@P0 IADD3 R3, R3, 0x1, RZ"
                               << "RAW|ISETP|IADD3|guard";
        QTest::newRow("write after read") << "IADD3 R3, R2, 0x1, RZ"
                                          << "LOP3.LUT R2, R7, 0x4, RZ, 0xc0, !PT"
                                          << "WAR|IADD3|LOP3|R";
    }
    void pairKeys()
    {
        QFETCH(QString, first);
        QFETCH(QString, second);
        QFETCH(QString, key);
        auto a = analyse({{first.toStdString(), ctl(4)}, {second.toStdString(), ctl(4)}});
        const auto keys = latencyPairKeys(a->listing.instructions[0], a->listing.instructions[1]);
        const auto parsed = LatencyKey::parse(key.toStdString());
        QVERIFY(parsed);
        QCOMPARE(parsed->name(), key.toStdString()); // the text form round-trips
        QVERIFY2(std::find(keys.begin(), keys.end(), *parsed) != keys.end(),
                 (keys.empty() ? std::string("none") : keys.front().name()).c_str());
    }
};

QTEST_GUILESS_MAIN(TestReschedule)
#include "test_reschedule.moc"
