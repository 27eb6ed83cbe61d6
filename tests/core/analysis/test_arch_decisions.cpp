// What sassx may do with each architecture's cubins and on what evidence (ArchModel::decide), per
// family and on the committed Blackwell samples (samples/blackwell), with the one-line reasons the front
// ends show; and the CUDA 13 MBARRIER_INSTR_OFFSETS records of the tcgen05 GEMM, read as offsets the
// writer can follow.
#include "core/analysis/arch_model.h"
#include "core/cubin/cubin.h"

#include <QDir>
#include <QtTest>

using namespace sassx;

Q_DECLARE_METATYPE(ArchCapability)
Q_DECLARE_METATYPE(FigureOrigin)

namespace {

const QString kDir = QStringLiteral(SASSX_SOURCE_DIR "/samples/blackwell");

std::string blackwellRefusal(const std::string& arch)
{
    return arch + ": no measured latency/yield/reuse evidence for Blackwell (bench/blackwell/run_device.sh "
                  "has not run on a Blackwell GPU); edits are off";
}

} // namespace

class TestArchDecisions : public QObject
{
    Q_OBJECT
private slots:
    // Each capability of each family, with its evidence and its sentence: Hopper on measurements,
    // Ampere, Ada and architectures without a file of their own on tables, Blackwell (every sm_10x,
    // sm_11x and sm_12x, with a table or without) viewed and estimated from tables and never edited.
    void decisions_data()
    {
        QTest::addColumn<int>("sm");
        QTest::addColumn<ArchCapability>("capability");
        QTest::addColumn<bool>("allowed");
        QTest::addColumn<FigureOrigin>("evidence");
        QTest::addColumn<QString>("reason"); // after "sm_XX"
        using C = ArchCapability;
        using O = FigureOrigin;
        const QString pinned = QStringLiteral(" decodes with the pinned nvdisasm");
        const QString sm80Estimate = QStringLiteral(": latencies from the sm_80-family table");
        const QString sm80Edit = QStringLiteral(": ptxas' own distances and the sm_80-family table");
        const QString worker = QStringLiteral(": the worker runs it on a GPU of its architecture");
        QTest::newRow("sm_90 view") << 90 << C::View << true << O::Measured << pinned;
        QTest::newRow("sm_90 estimate") << 90 << C::Estimate << true << O::Measured
                                        << QStringLiteral(": latencies measured on an H100/H200");
        QTest::newRow("sm_90 edit") << 90 << C::Edit << true << O::Measured
                                    << QStringLiteral(
                                           ": latency, yield and reuse rules measured on an H100/H200");
        QTest::newRow("sm_90 measure") << 90 << C::Measure << true << O::Measured << worker;
        for (int sm : {80, 86, 87, 89, 75, 0}) {
            QTest::addRow("sm_%d view", sm) << sm << C::View << true << O::Measured << pinned;
            QTest::addRow("sm_%d estimate", sm) << sm << C::Estimate << true << O::Table << sm80Estimate;
            QTest::addRow("sm_%d edit", sm) << sm << C::Edit << true << O::Table << sm80Edit;
            QTest::addRow("sm_%d measure", sm) << sm << C::Measure << true << O::None << worker;
        }
        for (int sm : {100, 101, 102, 103, 110, 120, 121, 129}) {
            QTest::addRow("sm_%d view", sm)
                << sm << C::View << true << O::Table
                << QStringLiteral(" decodes with nvdisasm 12.8 or newer (sm_103/110/121 "
                                  "need 13.1); control bits have the Hopper layout");
            QTest::addRow("sm_%d estimate", sm)
                << sm << C::Estimate << true << O::Table
                << QStringLiteral(
                       ": latencies from a NAK-derived table, labelled as a table, not a measurement");
            QTest::addRow("sm_%d edit", sm)
                << sm << C::Edit << false << O::None << QString::fromStdString(blackwellRefusal(""));
            QTest::addRow("sm_%d measure", sm)
                << sm << C::Measure << true << O::None
                << QStringLiteral(": the worker runs it on a Blackwell GPU; none has "
                                  "been lent, so nothing is measured yet");
        }
    }
    void decisions()
    {
        QFETCH(int, sm);
        QFETCH(ArchCapability, capability);
        QFETCH(bool, allowed);
        QFETCH(FigureOrigin, evidence);
        QFETCH(QString, reason);
        const std::string arch = "sm_" + std::to_string(sm);
        const ArchDecision d = ArchModel::forSm(sm)->decide(capability, arch);
        QCOMPARE(d.allowed, allowed);
        QCOMPARE(d.evidence, evidence);
        QCOMPARE(d.reason, arch + reason.toStdString());
    }

    // A Blackwell part without a table of its own has no figures, yet is refused as its family is.
    void blackwellWithoutTable()
    {
        auto arch = ArchModel::forSm(102);
        QCOMPARE(arch->latencyOrigin(), FigureOrigin::None);
        QVERIFY(arch->latencies().isEmpty());
        QCOMPARE(arch->tableSm(), 102);
    }

    void blackwellSamples_data()
    {
        QTest::addColumn<QString>("path");
        const QDir dir(kDir);
        for (const QString& f : dir.entryList({"*.cubin"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << dir.filePath(f);
    }

    // Every sample opens, names its architecture, carries capmerc code beside .text, and is refused.
    void blackwellSamples()
    {
        QFETCH(QString, path);
        auto cubin = Cubin::load(path.toStdString());
        QVERIFY2(cubin.ok(), cubin.ok() ? "" : cubin.message().c_str());
        const std::string arch = QFileInfo(path).completeBaseName().section('.', 1).toStdString();
        QCOMPARE(cubin->archName(), arch);
        QVERIFY(cubin->smVersion() >= 100);
        QCOMPARE(cubin->kernels().size(), size_t(1));
        const std::vector<std::string> merc = mercSections(*cubin);
        const std::string capmerc = ".nv.capmerc.text." + cubin->kernels().front().name;
        QVERIFY2(std::find(merc.begin(), merc.end(), capmerc) != merc.end(), capmerc.c_str());
        QCOMPARE(editRefusal(*cubin), blackwellRefusal(arch));
    }

    // CUDA 13 writes MBARRIER_INSTR_OFFSETS as {offset, 0xff, 0, kind} records: the offsets are the first
    // words, inside the code, at instruction boundaries, and their file offsets point at those words.
    void mbarrierRecords()
    {
        auto cubin = Cubin::load((kDir + "/bw_gemm_tcgen05.sm_100a.cubin").toStdString());
        QVERIFY2(cubin.ok(), cubin.ok() ? "" : cubin.message().c_str());
        const Kernel& k = cubin->kernels().front();
        const InstrOffsetList* list = nullptr;
        for (const InstrOffsetList& l : k.instrOffsets)
            if (l.attribute == nvinfo::MBARRIER_INSTR_OFFSETS) list = &l;
        QVERIFY(list);
        QCOMPARE(list->offsets.size(), size_t(3));
        const auto& bytes = cubin->bytes();
        auto u32 = [&](uint64_t at) {
            return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 | uint32_t(bytes[at + 2]) << 16 |
                   uint32_t(bytes[at + 3]) << 24;
        };
        for (size_t i = 0; i < list->offsets.size(); ++i) {
            QVERIFY(list->offsets[i] < k.codeSize);
            QCOMPARE(list->offsets[i] % 16, 0u);
            QCOMPARE(u32(list->fileOffsets[i]), list->offsets[i]);
            QCOMPARE(u32(list->fileOffsets[i] + 4), 0xffu);
        }
    }
};

QTEST_GUILESS_MAIN(TestArchDecisions)
#include "test_arch_decisions.moc"
