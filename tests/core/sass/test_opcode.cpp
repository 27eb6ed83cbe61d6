// The typed opcode table (core/sass/opcode.h): every row round-trips through its name, unknown names are
// read conservatively, and every instruction of every sample kernel gets its row from parsing.
#include "core/cubin/cubin.h"
#include "core/sass/listing.h"
#include "core/sass/nvdisasm.h"
#include "test_common.h"

#include <QtTest>

#include <map>
#include <set>

using namespace sassx;

namespace {

std::vector<Op> allOps()
{
    std::vector<Op> ops;
#define SASSX_TEST_OP(name, cls, latency, flags) ops.push_back(Op::name);
    SASSX_OPCODES(SASSX_TEST_OP)
#undef SASSX_TEST_OP
    return ops;
}

} // namespace

class TestOpcode : public QObject
{
    Q_OBJECT
private slots:
    void rowsRoundTrip()
    {
        std::set<std::string_view> names;
        for (Op op : allOps()) {
            const OpcodeInfo& row = opcodeInfo(op);
            QCOMPARE(row.op, op);
            QVERIFY2(names.insert(row.name).second, qPrintable("twice: " + QString(row.name.data())));
            QCOMPARE(describeOpcode(row.name).op, op);
            QCOMPARE(opcodeName(op), row.name);
            // A row the operand tables know has a class of its own; one they do not is opaque.
            QVERIFY2(row.known() == (row.cls != InstrClass::Other), row.name.data());
        }
        QVERIFY(names.size() > 200);
    }

    void propertiesOfKnownOpcodes_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<uint>("flag");
        QTest::addColumn<bool>("has");
        auto row = [](const char* n, uint32_t f, bool has) {
            QTest::newRow(qPrintable(QString("%1 %2").arg(n).arg(f))) << QString(n) << uint(f) << has;
        };
        row("STG", kNoDest, true);
        row("LDG", kNoDest, false);
        row("ISETP", kSetsPredicates, true);
        row("PLOP3", kSetsPredicates, true);
        row("FCHK", kSetsPredicates, true);
        row("IADD3", kSetsPredicates, false);
        row("BRA", kEndsUnconditionally, true);
        row("CALL", kEndsUnconditionally, false);
        row("BRX", kIndirect, true);
        row("BSSY", kBranchTarget, true);
        row("CAL", kNotInTables, true);
        row("HGMMA", kWarpgroupMma, true);
        row("HMMA", kWarpgroupMma, false);
        row("DEPBAR", kOrdersAsync, true);
        row("UTMALDG", kCopyEngine, true);
        row("LDGSTS", kCopyEngine, false);
    }

    void propertiesOfKnownOpcodes()
    {
        QFETCH(QString, name);
        QFETCH(uint, flag);
        QFETCH(bool, has);
        const std::string n = name.toStdString();
        const OpcodeInfo row = describeOpcode(n);
        QVERIFY(row.op != Op::Unknown);
        QCOMPARE(row.is(flag), has);
    }

    // Names outside the table (an opcode newer than it, or a full mnemonic by mistake) are opaque,
    // variable latency, and keep what their spelling implies.
    void unknownOpcodesAreOpaque_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<uint>("flags");
        QTest::newRow("new opcode") << "FROBNICATE" << uint(kNotInTables);
        QTest::newRow("full mnemonic") << "FFMA.FTZ" << uint(kNotInTables);
        QTest::newRow("empty") << "" << uint(kNotInTables);
        QTest::newRow("a new SETP") << "XSETP" << uint(kNotInTables | kSetsPredicates);
        QTest::newRow("a new GMMA") << "ZGMMA" << uint(kNotInTables | kWarpgroupMma);
    }

    void unknownOpcodesAreOpaque()
    {
        QFETCH(QString, name);
        QFETCH(uint, flags);
        const std::string n = name.toStdString();
        const OpcodeInfo row = describeOpcode(n);
        QCOMPARE(row.op, Op::Unknown);
        QCOMPARE(uint(row.flags), flags);
        QVERIFY(!row.known());
        QCOMPARE(row.cls, InstrClass::Other);
        QCOMPARE(row.latency, Latency::Variable);
    }

    // Every instruction nvdisasm prints for the samples carries its row, looked up once at parsing; the
    // samples' opcodes are all in the table (a new one shows up here by name).
    void sampleInstructionsCarryTheirRow()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed: run ./run.sh to install the pinned wheel");
        const QStringList cubins = sampleCubins();
        if (cubins.isEmpty()) QFAIL("no sample cubins were built (nvcc missing?)");
        std::map<std::string, int> unknown;
        size_t seen = 0;
        for (const QString& path : cubins) {
            auto cubin = Cubin::load(path.toStdString());
            QVERIFY2(cubin, qPrintable(path));
            auto listings = disassemble(*cubin);
            QVERIFY2(listings, qPrintable(path));
            for (const auto& listing : *listings)
                for (const Instruction& ins : listing.instructions) {
                    ++seen;
                    const OpcodeInfo row = describeOpcode(ins.baseOpcode);
                    QCOMPARE(ins.op, row.op);
                    QCOMPARE(ins.opFlags, row.flags);
                    QCOMPARE(ins.opaque, !row.known());
                    if (ins.op == Op::Unknown)
                        ++unknown[ins.baseOpcode];
                    else
                        QCOMPARE(opcodeName(ins.op), std::string_view(ins.baseOpcode));
                }
        }
        QVERIFY(seen > 1000);
        // Known and left opaque on purpose: ENDCOLLECTIVE closes a warp-collective section (ptxas emits it
        // in sm_90 code); as a wall nothing moves across it, which is the sound reading.
        unknown.erase("ENDCOLLECTIVE");
        QString list;
        for (const auto& [name, n] : unknown)
            list += QString(" %1 (%2)").arg(QString::fromStdString(name)).arg(n);
        QVERIFY2(unknown.empty(), qPrintable("opcodes the table lacks:" + list));
    }
};

QTEST_GUILESS_MAIN(TestOpcode)
#include "test_opcode.moc"
