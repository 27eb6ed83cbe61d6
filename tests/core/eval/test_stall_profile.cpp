// Stall profiles without a GPU: the H100 samples of the SGEMM and RMSNorm samples (recorded by
// bench/eval/run_pcsample_device.sh, docs/results/pcsample-h100-2026-11-23.md) read back, summed per
// instruction and per reason; the sampling child's output parsed with library noise around it; the
// period choice at its edges; reason names turned into words.
#include "core/eval/stall_profile.h"

#include <QtTest>

#include <fstream>

using namespace sassx::eval;

namespace {

nlohmann::json fixture(const char* name)
{
    std::ifstream in(std::string(SASSX_STALLS_DIR "/") + name);
    return nlohmann::json::parse(in, nullptr, false);
}

} // namespace

class TestStallProfile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void words_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("word");
        QTest::addColumn<bool>("notIssued");
        QTest::addColumn<int>("reason"); // -1: a word this build does not know
        QTest::newRow("long sb") << "smsp__pcsamp_warps_issue_stalled_long_scoreboard"
                                 << "memory wait" << false << int(StallReason::LongScoreboard);
        QTest::newRow("long sb ni") << "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"
                                    << "memory wait" << true << int(StallReason::LongScoreboard);
        QTest::newRow("short sb") << "smsp__pcsamp_warps_issue_stalled_short_scoreboard"
                                  << "MIO wait" << false << int(StallReason::ShortScoreboard);
        QTest::newRow("wait") << "smsp__pcsamp_warps_issue_stalled_wait"
                              << "fixed latency" << false << int(StallReason::Wait);
        QTest::newRow("selected") << "smsp__pcsamp_warps_issue_stalled_selected"
                                  << "issuing" << false << int(StallReason::Selected);
        QTest::newRow("not selected") << "smsp__pcsamp_warps_issue_stalled_not_selected"
                                      << "not selected" << false << int(StallReason::NotSelected);
        QTest::newRow("unknown") << "smsp__pcsamp_warps_issue_stalled_future_thing"
                                 << "future_thing" << false << -1;
    }
    // A CUPTI name gives its word; the word names its reason (kStallWordNames) and back; the decisions
    // on samples read the reason: issue-side samples are no wait, scoreboard waits wait on a producer.
    void words()
    {
        QFETCH(QString, name);
        QFETCH(QString, word);
        QFETCH(bool, notIssued);
        QFETCH(int, reason);
        QCOMPARE(QString::fromStdString(stallWord(name.toStdString())), word);
        QCOMPARE(isNotIssuedReason(name.toStdString()), notIssued);
        QVERIFY(!stallWordMeaning(word.toStdString()).empty());
        const auto parsed = parseStallWord(word.toStdString());
        QCOMPARE(parsed ? int(*parsed) : -1, reason);
        if (!parsed) return;
        QCOMPARE(QString::fromStdString(stallWordName(*parsed)), word);
        QCOMPARE(isIssueSide(*parsed),
                 *parsed == StallReason::Selected || *parsed == StallReason::NotSelected);
        QCOMPARE(waitsOnScoreboard(*parsed),
                 *parsed == StallReason::LongScoreboard || *parsed == StallReason::ShortScoreboard);
    }

    // The recorded SGEMM profile: every sample on an aligned offset inside the kernel, per-instruction
    // sums equal to the kernel's count, the JSON round trip exact.
    void recordedProfile()
    {
        const auto j = fixture("sgemm_leakyrelu.h100.stalls.json");
        QVERIFY(j.is_object());
        auto p = stallProfileFromJson(j);
        QVERIFY2(p.ok(), p.ok() ? "" : p.message().c_str());
        QVERIFY(p->source.kind == sassx::eval::FigureKind::CuptiPcSampling);
        QVERIFY(p->source.device.find("H100") != std::string::npos);
        QCOMPARE(p->kernel, std::string("sgemm_leakyrelu"));
        QVERIFY(p->periodExponent >= 5 && p->periodExponent <= 31);
        QVERIFY(p->kernelSamples > 100000);
        const size_t instructions = 952; // the sample's code size / 16
        const auto byPos = stallsByPosition(*p, instructions);
        uint64_t sum = 0, notIssued = 0;
        for (const auto& s : byPos) {
            sum += s.samples;
            notIssued += s.notIssued;
            for (size_t i = 1; i < s.byWord.size(); ++i)
                QVERIFY(s.byWord[i - 1].second >= s.byWord[i].second);
        }
        QCOMPARE(sum, p->kernelSamples);
        QVERIFY(notIssued > 0 && notIssued < sum);
        uint64_t totals = 0;
        for (const auto& [word, n] : stallTotals(*p))
            totals += n;
        QCOMPARE(totals, sum);
        // The hottest instruction of the SGEMM is its loop's back branch, waiting at the barrier.
        size_t hottest = 0;
        for (size_t i = 0; i < byPos.size(); ++i)
            if (byPos[i].samples > byPos[hottest].samples) hottest = i;
        QCOMPARE(byPos[hottest].topWord(), std::string("barrier"));
        // A profile of other code does not fit a smaller kernel: its offsets are dropped, not wrapped.
        const auto small = stallsByPosition(*p, 10);
        uint64_t smallSum = 0;
        for (const auto& s : small)
            smallSum += s.samples;
        QVERIFY(smallSum < sum);
        auto again = stallProfileFromJson(toJson(*p));
        QVERIFY(again.ok());
        QCOMPARE(toJson(*again), toJson(*p));
    }

    void childOutput()
    {
        const auto profile = fixture("rmsnorm.h100.stalls.json");
        const std::string ok =
            "some library banner\n{\"status\":\"ok\",\"profile\":" + profile.dump() + "}\n";
        auto p = parsePcSampleOneshot(ok);
        QVERIFY2(p.ok(), p.ok() ? "" : p.message().c_str());
        QCOMPARE(p->kernel, std::string("rmsnorm"));
        auto failed =
            parsePcSampleOneshot("{\"status\":\"failed\",\"error\":\"CUPTI_ERROR_NOT_SUPPORTED (27)\"}\n");
        QVERIFY(!failed.ok());
        QVERIFY(failed.message().find("(27)") != std::string::npos);
        QVERIFY(!parsePcSampleOneshot("").ok());
        QVERIFY(!parsePcSampleOneshot("{not json\n").ok());
        QVERIFY(!parsePcSampleOneshot("{\"status\":\"ok\"}\n").ok());
        auto malformed =
            parsePcSampleOneshot("{\"status\":\"ok\",\"profile\":{\"pcs\":[{\"offset\":\"x\"}]}}");
        QVERIFY(!malformed.ok());
        QVERIFY(malformed.message().find('\n') == std::string::npos);
    }

    void period()
    {
        // 100 us at 1.98 GHz = 198,000 cycles on each of 132 SMs: 2^7 gives ~204k samples, 2^6 ~408k.
        // (The SGEMM of the H100 run, ~100 us, was sampled at 2^7.)
        QCOMPARE(choosePeriodExponent(100.0, 1980000, 132, 250000), 7);
        QCOMPARE(choosePeriodExponent(0.0, 1980000, 132), 5);
        QCOMPARE(choosePeriodExponent(1e12, 1980000, 132), 31);
        // At most one sample: 26.1M SM-cycles need a period of 2^25.
        QCOMPARE(choosePeriodExponent(100.0, 1980000, 132, 1), 25);
    }
};

QTEST_GUILESS_MAIN(TestStallProfile)
#include "test_stall_profile.moc"
