// Another cubin of a kernel as a variant (core/session/variant_import.h): each difference from the
// original judged by the kernel's checker, a hazard between two unchanged instructions charged to the
// change that caused it, and one-line errors for what is not a schedule of the same instructions.
#include "core/session/variant_import.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>

using namespace sassx;

namespace {

QString sample(const QString& name)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1").arg(name);
}

#define REQUIRE_FILE(path)                                                                                   \
    if (!QFileInfo::exists(path)) QSKIP(qPrintable(QStringLiteral("sample missing (no nvcc?): ") + (path)))

bool oneLine(const std::string& message)
{
    return !message.empty() && message.find('\n') == std::string::npos;
}

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return bool(out);
}

} // namespace

class TestVariantImport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    std::shared_ptr<const KernelWorkspace> m_kernel;

    std::string tmp(const char* name) const { return m_tmp.filePath(QLatin1String(name)).toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const QString cubin = sample(QStringLiteral("rmsnorm.sm_90.cubin"));
        REQUIRE_FILE(cubin);
        auto ws = Workspace::open(cubin.toStdString());
        QVERIFY2(ws, ws ? "" : ws.message().c_str());
        auto k = (*ws)->kernel();
        QVERIFY2(k, k ? "" : k.message().c_str());
        m_kernel = *k;
    }

    // ptxas' own order: nothing to judge, legal.
    void originalHasNoDifferences()
    {
        if (!m_kernel) QSKIP("no rmsnorm sample");
        const CheckerVerdict v = judgeDifferences(*m_kernel, Schedule::identity(m_kernel->analysis()));
        QVERIFY(v.differences.empty() && v.legal());
        QCOMPARE(v.text(), std::string("checker: no differences to judge\n"));
    }

    // A stall lowered between a producer and its consumer: the checker's hazard names those two, which
    // did not change; the verdict charges it to the stall, with the checker's sentence, and to nothing
    // else.
    void hazardBetweenUnchangedInstructionsIsCharged()
    {
        if (!m_kernel) QSKIP("no rmsnorm sample");
        const KernelAnalysis& a = m_kernel->analysis();
        const uint32_t n = uint32_t(a.listing.instructions.size());
        for (uint32_t i = 0; i < n; ++i) {
            if (a.listing.instructions[i].control.stall < 2) continue;
            // ptxas' order: instruction i is at position i.
            const InstrId id(i);
            const std::vector<Edit> edits{Edit::control(Position(i), 1, std::nullopt, std::nullopt)};
            const LegalityReport report = m_kernel->check(edits);
            if (report.legal() || report.hazards.front().kind != HazardKind::Latency) continue;
            const Hazard& h = report.hazards.front();
            if (h.first == id || h.second == id) continue;
            auto s = m_kernel->schedule(edits);
            QVERIFY(s);
            const CheckerVerdict v = judgeDifferences(*m_kernel, *s);
            QCOMPARE(v.differences.size(), size_t(1));
            QCOMPARE(v.differences[0].instruction.value(), i);
            QVERIFY(v.otherRefusals.empty());
            QVERIFY(std::find(v.differences[0].refusals.begin(), v.differences[0].refusals.end(),
                              h.message) != v.differences[0].refusals.end());
            QVERIFY(!v.legal());
            QVERIFY2(v.text().starts_with("checker: 0 of 1 differences legal; refused:\n  "),
                     v.text().c_str());
            QVERIFY(v.text().find(": refused: " + h.message) != std::string::npos);
            const nlohmann::json j = v.toJson();
            QCOMPARE(j["legal"].get<bool>(), false);
            QCOMPARE(j["refused"][0]["instruction"].get<uint32_t>(), i);
            return;
        }
        QSKIP("no stall of rmsnorm guards a distance between two other instructions");
    }

    // A legal export imports as edits that replay it; a scoreboard change is judged (refused), but is no
    // variant; another compile of the words, a truncated file and another kernel are one line each.
    void importsAndRefusals()
    {
        if (!m_kernel) QSKIP("no rmsnorm sample");
        const KernelAnalysis& a = m_kernel->analysis();
        const Schedule identity = Schedule::identity(a);
        const auto moves = m_kernel->legalMoves(identity, false);
        QVERIFY(!moves.empty());
        auto moved = m_kernel->schedule({Edit::move(moves.back().first, moves.back().second)});
        QVERIFY(moved);
        auto bytes = m_kernel->write(*moved);
        QVERIFY(bytes && writeFile(tmp("moved.cubin"), *bytes));
        auto imported = importSchedule(*m_kernel, tmp("moved.cubin"), {});
        QVERIFY2(imported, imported ? "" : imported.message().c_str());
        QCOMPARE(imported->label, std::string("moved.cubin"));
        QVERIFY(imported->verdict.legal());
        auto replayed = m_kernel->schedule(imported->edits);
        QVERIFY(replayed && m_kernel->write(*replayed).value() == *bytes);

        // A write barrier changed: the checker refuses it in its own words; no edit can hold it.
        Schedule sb = identity;
        InstrId changed(0);
        while (changed < sb.control.endIndex() && sb.control[changed].wbar == kNoBarrier)
            ++changed;
        QVERIFY(changed < sb.control.endIndex());
        sb.control[changed].wbar = uint8_t((sb.control[changed].wbar + 1) % 6);
        auto sbBytes = m_kernel->write(sb);
        QVERIFY(sbBytes && writeFile(tmp("scoreboard.cubin"), *sbBytes));
        const CheckerVerdict sbVerdict = judgeInput(*m_kernel, tmp("scoreboard.cubin"), {});
        QVERIFY(!sbVerdict.legal());
        QCOMPARE(sbVerdict.differences.size(), size_t(1));
        QVERIFY(!sbVerdict.differences[0].refusals.empty());
        QVERIFY(sbVerdict.differences[0].refusals.front().find("scoreboard fields are not editable") !=
                std::string::npos);
        auto sbImport = importSchedule(*m_kernel, tmp("scoreboard.cubin"), {});
        QVERIFY(!sbImport && oneLine(sbImport.message()));
        QVERIFY2(sbImport.message().find("scoreboard fields") != std::string::npos,
                 sbImport.message().c_str());

        // One operand bit of one word flipped: not the same instructions; the error names where.
        std::vector<uint8_t> other = *bytes;
        const auto& text =
            m_kernel->cubin().sectionData(m_kernel->cubin().findKernel(m_kernel->name())->textSection);
        const auto at = std::search(other.begin(), other.end(), text.begin(), text.begin() + 32);
        QVERIFY(at != other.end());
        *(at + 16) ^= 0x01; // the low word of the second instruction, which the move did not touch
        QVERIFY(writeFile(tmp("other.cubin"), other));
        auto otherImport = importSchedule(*m_kernel, tmp("other.cubin"), {});
        QVERIFY(!otherImport && oneLine(otherImport.message()));
        QVERIFY2(otherImport.message().find("the word at 0x0010") != std::string::npos,
                 otherImport.message().c_str());
        QVERIFY(!judgeInput(*m_kernel, tmp("other.cubin"), {}).unjudged.empty());

        std::vector<uint8_t> truncated(bytes->begin(), bytes->begin() + std::ptrdiff_t(bytes->size() / 3));
        QVERIFY(writeFile(tmp("truncated.cubin"), truncated));
        auto t = importSchedule(*m_kernel, tmp("truncated.cubin"), {});
        QVERIFY(!t && oneLine(t.message()));
        const QString sgemm = sample(QStringLiteral("sgemm_leakyrelu.sm_90.cubin"));
        if (QFileInfo::exists(sgemm)) {
            auto foreign = importSchedule(*m_kernel, sgemm.toStdString(), {});
            QVERIFY(!foreign && oneLine(foreign.message()));
            QVERIFY2(foreign.message().find("no kernel rmsnorm") != std::string::npos,
                     foreign.message().c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestVariantImport)
#include "test_variant_import.moc"
