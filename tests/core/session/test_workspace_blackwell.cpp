// The workspace on a Blackwell sample (samples/blackwell): every path that edits refuses with the one
// line of editRefusal (core/analysis/arch_model.h), while the original schedule still writes byte for
// byte; a Hopper sample keeps its edits.
#include "core/session/kernel_edits.h"
#include "core/session/workspace.h"

#include <QtTest>

using namespace sassx;

namespace {

const std::string kRefusal = "sm_100a: no measured latency/yield/reuse evidence for Blackwell "
                             "(bench/blackwell/run_device.sh has not run on a Blackwell GPU); edits are off";

} // namespace

class TestWorkspaceBlackwell : public QObject
{
    Q_OBJECT
private slots:
    void editsRefused()
    {
        auto ws = Workspace::open(SASSX_SOURCE_DIR "/samples/blackwell/bw_attention.sm_100a.cubin");
        QVERIFY2(ws.ok(), ws.ok() ? "" : ws.message().c_str());
        auto k = (*ws)->kernel();
        QVERIFY2(k.ok(), k.ok() ? "" : k.message().c_str());
        const KernelWorkspace& kernel = **k;
        QCOMPARE(kernel.editRefusal(), kRefusal);
        QCOMPARE(kernel.immovableReason(), kRefusal);
        QCOMPARE(kernel.notices(), std::vector<std::string>{kRefusal});

        const Schedule identity = Schedule::identity(kernel.analysis());
        QVERIFY(kernel.legalMoves(identity, false).empty());
        QVERIFY(legalControlEdits(kernel, identity, ControlSpace::All).empty());
        const PatternEdits interleave = interleaveEdits(kernel, identity);
        QVERIFY(interleave.edits.empty());
        QCOMPARE(interleave.refused, std::vector<std::string>{kRefusal});
        const auto why = kernel.whyImmovable(identity, Position(10));
        QVERIFY(why);
        QCOMPARE(why->message, kRefusal);

        // A move inside a block: structurally fine, refused with the line.
        const auto& blockOf = kernel.analysis().cfg.blockOf;
        uint32_t from = 0;
        while (from + 1 < blockOf.size() && blockOf[from] != blockOf[from + 1])
            ++from;
        QVERIFY(from + 1 < blockOf.size());
        // ptxas' order: instruction `from` is at position `from`.
        const std::vector<Edit> move{Edit::move(Position(from), Position(from + 1))};
        const LegalityReport report = kernel.check(move);
        QVERIFY(!report.legal());
        QCOMPARE(report.hazards.front().message, kRefusal);
        QCOMPARE(report.hazards.front().kind, HazardKind::Wall);
        QVERIFY(kernel.check({}).legal());

        // The writer: the original schedule writes the original bytes; an edited one is refused, however
        // it was made.
        auto original = kernel.write(identity);
        QVERIFY2(original.ok(), original.ok() ? "" : original.message().c_str());
        QVERIFY(*original == kernel.cubin().bytes());
        auto moved = kernel.schedule(move);
        QVERIFY2(moved.ok(), moved.ok() ? "" : moved.message().c_str());
        auto written = kernel.write(*moved);
        QVERIFY(!written.ok());
        QCOMPARE(written.message(), kRefusal);
        Schedule stalled = identity;
        stalled.control[InstrId(from)].stall = uint8_t(stalled.control[InstrId(from)].stall + 1);
        auto controlWritten = kernel.write(stalled);
        QVERIFY(!controlWritten.ok());
        QCOMPARE(controlWritten.message(), kRefusal);
    }

    // The same calls on a Hopper sample still edit: the refusal is the architecture's, not the code's.
    void hopperStillEdits()
    {
        const QString path = QStringLiteral(SASSX_SAMPLES_DIR "/rmsnorm.sm_90.cubin");
        if (!QFileInfo::exists(path)) QSKIP("sample rmsnorm.sm_90.cubin not built (no nvcc)");
        auto ws = Workspace::open(path.toStdString());
        QVERIFY(ws.ok());
        auto k = (*ws)->kernel();
        QVERIFY2(k.ok(), k.ok() ? "" : k.message().c_str());
        QVERIFY((*k)->editRefusal().empty());
        QVERIFY(!(*k)->legalMoves(Schedule::identity((*k)->analysis()), false).empty());
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceBlackwell)
#include "test_workspace_blackwell.moc"
