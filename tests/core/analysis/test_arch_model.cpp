// The per-architecture interface (ArchModel): which table each architecture takes, how its figures are
// labelled and where they come from, the Blackwell tables derived from Mesa NAK's published figures,
// and the typed latency keys the measured cells are read with.
#include "core/analysis/arch_model.h"
#include "core/analysis/kernel_analysis.h"
#include "core/analysis/latency_key.h"
#include "core/analysis/required_latency.h"
#include "core/sass/listing.h"

#include <QtTest>

using namespace sassx;

namespace {

Control ctl(int stall)
{
    Control c;
    c.stall = uint8_t(stall);
    c.yield = 1;
    return c;
}

// The table figure of `first` → `second` (second reads first's result) on architecture sm.
std::optional<int> figure(int sm, const std::string& first, const std::string& second, const Reg& reg,
                          bool guard = false)
{
    const auto listing = makeListing({{first, ctl(4)}, {second, ctl(4)}}, sm);
    return ArchModel::forSm(sm)->latencies().rawLatency(listing.instructions[0], listing.instructions[1], reg,
                                                        guard);
}

Reg r(uint16_t i)
{
    return {RegFile::R, i};
}

} // namespace

class TestArchModel : public QObject
{
    Q_OBJECT
private slots:
    // Hopper's measured cells and class figures are the ones sm_90.json has always had.
    void hopperMeasuredRowsUnchanged()
    {
        auto arch = ArchModel::forSm(90);
        QCOMPARE(arch->sm(), 90);
        QCOMPARE(arch->latencyOrigin(), FigureOrigin::Measured);
        QCOMPARE(arch->controlRulesOrigin(), FigureOrigin::Measured);
        const auto& t = arch->latencies();
        QCOMPARE(t.arch(), std::string("sm_90"));
        QVERIFY(t.label().empty());
        QVERIFY(t.measuredCount() > 100);
        QCOMPARE(t.measuredCell(LatencyKey::raw("FFMA", "FFMA", OperandRole::Reg)).value_or(0), 4);
        QCOMPARE(t.measuredCell(LatencyKey::raw("FMUL", "FMNMX", OperandRole::Reg)).value_or(0), 5);
        QCOMPARE(t.measuredCell(LatencyKey::raw("IMAD.WIDE", "STG", OperandRole::Addr)).value_or(0), 2);
        QCOMPARE(t.measuredCell(LatencyKey::raw("HFMA2.MMA", "HFMA2.MMA", OperandRole::Reg)).value_or(0), 8);
        QCOMPARE(figure(90, "FFMA R2, R1, R4, R5", "FFMA R3, R2, R4, R5", r(2)).value_or(0), 4);
        QCOMPARE(figure(90, "IMAD R2, R1, R4, R5", "IMAD R3, R2, R4, R5", r(2)).value_or(0), 6);
        QCOMPARE(figure(90, "ISETP.GE.AND P0, PT, R2, 0x4, PT", "@P0 IADD3 R3, R3, 0x1, RZ",
                        Reg{RegFile::P, 0}, true)
                     .value_or(0),
                 13);
        // The analysis of an sm_90 kernel takes the same model.
        auto a = KernelAnalysis::build(makeListing({{"FFMA R2, R1, R4, R5", ctl(9)}}, 90));
        QCOMPARE(a->arch.get(), arch.get());
    }

    // sm_100 takes NAK's B100 figures as NVIDIA provided them, labelled a table's, never measured.
    void blackwellDataCentreTable()
    {
        for (int sm : {100, 101, 103, 110}) {
            auto arch = ArchModel::forSm(sm);
            QCOMPARE(arch->sm(), sm);
            QCOMPARE(arch->latencyOrigin(), FigureOrigin::Table);
            QCOMPARE(arch->controlRulesOrigin(), FigureOrigin::Borrowed);
            QCOMPARE(arch->latencies().arch(), std::string("sm_100"));
            QCOMPARE(arch->latencies().measuredCount(), size_t(0));
            QVERIFY(arch->latencyLabel().starts_with("table: NAK sm100"));
        }
        QCOMPARE(figure(100, "FFMA R2, R1, R4, R5", "FFMA R3, R2, R4, R5", r(2)).value_or(0), 4);
        QCOMPARE(
            figure(100, "IADD3 R2, R1, 0x1, RZ", "LOP3.LUT R3, R2, 0x4, RZ, 0xc0, !PT", r(2)).value_or(0), 4);
        QCOMPARE(figure(100, "IADD3 R2, R1, 0x1, RZ", "FFMA R3, R2, R4, R5", r(2)).value_or(0), 5);
        QCOMPARE(figure(100, "FFMA R2, R1, R4, R5", "IADD3 R3, R2, 0x1, RZ", r(2)).value_or(0), 5);
        QCOMPARE(figure(100, "HFMA2.MMA R2, R1, R4, R5", "HFMA2.MMA R3, R2, R4, R5", r(2)).value_or(0), 8);
        QCOMPARE(figure(100, "ISETP.GE.AND P0, PT, R2, 0x4, PT", "@P0 IADD3 R3, R3, 0x1, RZ",
                        Reg{RegFile::P, 0}, true)
                     .value_or(0),
                 13);
    }

    // sm_120 takes the same figures with NAK's padding for the desktop parts: one cycle more.
    void blackwellDesktopTable()
    {
        for (int sm : {120, 121}) {
            auto arch = ArchModel::forSm(sm);
            QCOMPARE(arch->latencyOrigin(), FigureOrigin::Table);
            QCOMPARE(arch->controlRulesOrigin(), FigureOrigin::Borrowed);
            QCOMPARE(arch->latencies().arch(), std::string("sm_120"));
            QVERIFY(arch->latencyLabel().starts_with("table: NAK sm120_instr_latencies"));
        }
        QCOMPARE(figure(120, "FFMA R2, R1, R4, R5", "FFMA R3, R2, R4, R5", r(2)).value_or(0), 5);
        QCOMPARE(
            figure(120, "IADD3 R2, R1, 0x1, RZ", "LOP3.LUT R3, R2, 0x4, RZ, 0xc0, !PT", r(2)).value_or(0), 5);
        QCOMPARE(figure(120, "FFMA R2, R1, R4, R5", "IADD3 R3, R2, 0x1, RZ", r(2)).value_or(0), 6);
        QCOMPARE(figure(120, "HFMA2.MMA R2, R1, R4, R5", "HFMA2.MMA R3, R2, R4, R5", r(2)).value_or(0), 9);
        QCOMPARE(figure(120, "ISETP.GE.AND P0, PT, R2, 0x4, PT", "@P0 IADD3 R3, R3, 0x1, RZ",
                        Reg{RegFile::P, 0}, true)
                     .value_or(0),
                 14);
    }

    // A dependency bounded by a Blackwell table figure says so in words: a table's, named after NAK.
    void blackwellFigureReadsAsATable()
    {
        auto a = KernelAnalysis::build(
            makeListing({{"FFMA R2, R1, R4, R5", ctl(5)}, {"FFMA R3, R2, R4, R5", ctl(4)}}, 120));
        QCOMPARE(a->arch->sm(), 120);
        bool seen = false;
        for (const auto& d : a->deps.edges())
            if (d.kind == DepKind::Raw && d.from == 0 && d.to == 1) {
                QVERIFY(!d.measured);
                const auto req = requiredLatency(*a, d);
                QCOMPARE(req.source, LatencySource::Table);
                QCOMPARE(req.cycles, 5);
                const auto text = latencySourceText(*a, d, req);
                QVERIFY2(text.find("table: NAK sm120_instr_latencies") != std::string::npos, text.c_str());
                QVERIFY(text.find("measured") == std::string::npos);
                seen = true;
            }
        QVERIFY(seen);
    }

    // Ampere and Ada keep their tables; an architecture without a file has no figures at all.
    void otherArchitectures()
    {
        for (int sm : {80, 86, 89}) {
            auto arch = ArchModel::forSm(sm);
            QCOMPARE(arch->latencyOrigin(), FigureOrigin::Table);
            QCOMPARE(arch->controlRulesOrigin(), FigureOrigin::Borrowed);
            QCOMPARE(arch->latencies().arch(), "sm_" + std::to_string(sm));
        }
        auto unknown = ArchModel::forSm(75);
        QCOMPARE(unknown->latencyOrigin(), FigureOrigin::None);
        QVERIFY(unknown->latencies().isEmpty());
        QVERIFY(!figure(75, "FFMA R2, R1, R4, R5", "FFMA R3, R2, R4, R5", r(2)));
        QCOMPARE(ArchModel::forSm(90).get(), ArchModel::forSm(90).get()); // loaded once
        QCOMPARE(std::string(figureOriginName(FigureOrigin::Table)), std::string("table"));
    }

    // Latency keys are typed; their text form is parsed and written only at the edges, both ways.
    void keyText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("raw") << "RAW|IMAD|LOP3|reg" << true;
        QTest::newRow("raw address") << "RAW|IMAD.WIDE|LDG|addr" << true;
        QTest::newRow("war") << "WAR|IADD3|LOP3|R" << true;
        QTest::newRow("waw uniform") << "WAW|UIADD3|UMOV|UR" << true;
        QTest::newRow("scoreboard") << "SB|LDG|FFMA" << true;
        QTest::newRow("spacing") << "SPACE|LDS" << true;
        QTest::newRow("unknown role") << "RAW|IMAD|LOP3|sideways" << false;
        QTest::newRow("unknown file") << "WAR|IADD3|LOP3|Q" << false;
        QTest::newRow("short") << "RAW|IMAD|reg" << false;
        QTest::newRow("empty part") << "RAW||LOP3|reg" << false;
        QTest::newRow("unknown category") << "XYZ|A|B|reg" << false;
    }
    void keyText()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        const auto key = LatencyKey::parse(text.toStdString());
        QCOMPARE(bool(key), valid);
        if (key) QCOMPARE(key->name(), text.toStdString());
    }
};

QTEST_GUILESS_MAIN(TestArchModel)
#include "test_arch_model.moc"
