// core/rewrite/arch_support: which architectures may be edited and why not, per family and on the
// committed Blackwell samples (samples/blackwell); and the CUDA 13 MBARRIER_INSTR_OFFSETS records of the
// tcgen05 GEMM, read as offsets the writer can follow.
#include "core/cubin/cubin.h"
#include "core/rewrite/arch_support.h"

#include <QDir>
#include <QtTest>

using namespace sassx;

namespace {

const QString kDir = QStringLiteral(SASSX_SOURCE_DIR "/samples/blackwell");

std::string blackwellRefusal(const std::string& arch)
{
    return arch + ": no measured latency/yield/reuse evidence for Blackwell (bench/blackwell/run_device.sh "
                  "has not run on a Blackwell GPU); edits are off";
}

} // namespace

class TestArchSupport : public QObject
{
    Q_OBJECT
private slots:
    void decisions()
    {
        for (int sm : {100, 101, 103, 110, 120, 121}) {
            const std::string arch = "sm_" + std::to_string(sm);
            QCOMPARE(archFamily(sm), ArchFamily::Blackwell);
            const ArchDecision edit = archSupport(sm, arch, ArchCapability::Edit);
            QVERIFY(!edit.allowed);
            QCOMPARE(edit.reason, blackwellRefusal(arch));
            QVERIFY(archSupport(sm, arch, ArchCapability::View).allowed);
            const ArchDecision estimate = archSupport(sm, arch, ArchCapability::Estimate);
            QVERIFY(estimate.allowed);
            QCOMPARE(estimate.evidence, ArchEvidence::Table); // never a measurement
            QCOMPARE(archSupport(sm, arch, ArchCapability::Measure).evidence, ArchEvidence::None);
        }
        const ArchDecision hopper = archSupport(90, "sm_90a", ArchCapability::Edit);
        QVERIFY(hopper.allowed);
        QCOMPARE(hopper.evidence, ArchEvidence::Measured);
        for (int sm : {80, 86, 89}) {
            const ArchDecision edit = archSupport(sm, "sm_" + std::to_string(sm), ArchCapability::Edit);
            QVERIFY(edit.allowed);
            QCOMPARE(edit.evidence, ArchEvidence::Table);
        }
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

QTEST_GUILESS_MAIN(TestArchSupport)
#include "test_arch_support.moc"
