// The decode gate on real words: ptxas' own word passes, nvdisasm's rejections come back in its own
// words (Y0 with the Rb and Rc reuse flags of an FFMA is one, per bench/results/yield-semantics-
// h100-2026-11-22.md), flips it accepts pass, one batch per kernel serves every question, gates are
// shared per kernel, words whose reuse marks nvdisasm leaves out under Y0 are told apart from other
// instructions, and listings without words have no gate.
#include "test_common.h"

#include "core/cubin/cubin.h"
#include "core/sass/encoding_gate.h"
#include "core/sass/listing.h"
#include "core/sass/nvdisasm.h"

#include <QFileInfo>
#include <QtTest>

using namespace sassx;

namespace {

uint64_t withBits(uint64_t hi, int yield, int reuse)
{
    Control c = Control::decode(hi);
    c.yield = uint8_t(yield);
    c.reuse = uint8_t(reuse);
    return c.encode(hi);
}

} // namespace

class TestEncodingGate : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed: run ./run.sh to install the pinned wheel");
        if (sampleCubins().isEmpty()) QFAIL("no sample cubins were built (nvcc missing?)");
    }

    void normalisation()
    {
        QCOMPARE(normalisedDecode("FFMA R1, R2.reuse, R3, R4", 0x40, false),
                 std::string("FFMA R1, R2, R3, R4"));
        // A branch's absolute target is relative to its own address, so one encoding decoded at two
        // addresses normalises alike; other instructions keep their numbers.
        QCOMPARE(normalisedDecode("BRA 0x80", 0x40, true), normalisedDecode("BRA 0x1080", 0x1040, true));
        QVERIFY(normalisedDecode("BRA 0x80", 0x40, true) != normalisedDecode("BRA 0x90", 0x40, true));
        QCOMPARE(normalisedDecode("IADD3 R1, R1, 0x80, RZ", 0x40, false),
                 std::string("IADD3 R1, R1, 0x80, RZ"));
    }

    void samples_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& p : sampleCubins())
            QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p;
    }

    void decodesEditedWords_data() { samples_data(); }
    void decodesEditedWords()
    {
        QFETCH(QString, path);
        auto cubin = Cubin::load(path.toStdString());
        QVERIFY(cubin.ok());
        auto listings = disassemble(*cubin);
        QVERIFY(listings.ok());
        int accepted = 0, rejected = 0, rbRcY0 = 0;
        for (const auto& l : *listings) {
            auto gate = EncodingGate::forListing(l);
            QVERIFY(gate);
            // The same kernel asked again: the same gate, its batch decoded once.
            QCOMPARE(EncodingGate::forListing(l).get(), gate.get());
            for (uint32_t i = 0; i < l.instructions.size(); ++i) {
                const auto& ins = l.instructions[i];
                QVERIFY(!gate->refusal(i, ins.hi));
                for (int y = 0; y < 2; ++y)
                    for (int r = 0; r < 8; ++r) {
                        const uint64_t hi = withBits(ins.hi, y, r);
                        const auto why = gate->refusal(i, hi);
                        if (!why) {
                            ++accepted;
                            continue;
                        }
                        ++rejected;
                        QVERIFY2(why->find("nvdisasm") != std::string::npos, why->c_str());
                        // Y0 with the Rb and Rc flags of an FFMA is an undefined opex value.
                        if (ins.baseOpcode == "FFMA" && y == 0 && (r & 6) == 6 &&
                            why->find("undefined value") != std::string::npos)
                            ++rbRcY0;
                    }
            }
            const int runs = gate->decoderRuns();
            QVERIFY(runs >= 1);
            // Every yield x reuse word at ptxas' stall was in the batch: no decode on demand.
            (void)gate->refusal(0, withBits(l.instructions[0].hi, 1, 0));
            QCOMPARE(gate->decoderRuns(), runs);
        }
        QVERIFY(accepted > 0);
        QVERIFY(rejected > 0);
        bool ffma = false;
        for (const auto& l : *listings)
            for (const auto& ins : l.instructions)
                ffma = ffma || ins.baseOpcode == "FFMA";
        if (ffma) QVERIFY(rbRcY0 > 0);
        qInfo("%d edited words decode, %d do not (%d FFMA Y0 with Rb+Rc)", accepted, rejected, rbRcY0);
    }

    // Under Y0 nvdisasm leaves out the `.reuse` marks of words whose flags it prints under Y1: such a
    // word is SameReuseUnprinted, not another instruction. Every one has a Y1 twin that prints all its
    // flags, and ptxas' own flagged words are among them (the edit "yield cleared, reuse kept").
    void marksLeftOutUnderY0_data() { samples_data(); }
    void marksLeftOutUnderY0()
    {
        QFETCH(QString, path);
        auto cubin = Cubin::load(path.toStdString());
        QVERIFY(cubin.ok());
        auto listings = disassemble(*cubin);
        QVERIFY(listings.ok());
        int unprinted = 0, ptxasFlagsUnprinted = 0, other = 0;
        for (const auto& l : *listings) {
            auto gate = EncodingGate::forListing(l);
            QVERIFY(gate);
            for (uint32_t i = 0; i < l.instructions.size(); ++i) {
                const auto& ins = l.instructions[i];
                for (int r = 1; r < 8; ++r) {
                    const uint64_t y0 = withBits(ins.hi, 0, r);
                    const auto judged = gate->judge(i, y0);
                    if (judged.verdict == DecodeVerdict::Other) {
                        ++other;
                        QVERIFY(!judged.why.empty());
                        continue;
                    }
                    if (judged.verdict != DecodeVerdict::SameReuseUnprinted) continue;
                    ++unprinted;
                    QCOMPARE(int(gate->judge(i, withBits(ins.hi, 1, r)).verdict), int(DecodeVerdict::Same));
                    // refusal() still names it: only the class table may allow it (ControlRules).
                    const auto why = gate->refusal(i, y0);
                    QVERIFY(why && why->find("leaves out the marks under Y0") != std::string::npos);
                    if ((ins.control.yield & 1) && (ins.control.reuse & 7) == r) ++ptxasFlagsUnprinted;
                }
            }
        }
        qInfo("%d Y0 words with flags whose marks nvdisasm leaves out (%d with ptxas' own flags), %d refused",
              unprinted, ptxasFlagsUnprinted, other);
        bool flagged = false;
        for (const auto& l : *listings)
            for (const auto& ins : l.instructions)
                flagged = flagged || ((ins.control.yield & 1) && (ins.control.reuse & 7));
        if (flagged) QVERIFY(ptxasFlagsUnprinted > 0);
    }

    // A word outside the batch (a stall change and a reuse change at once) is decoded on demand.
    void decodesOnDemand()
    {
        const auto path = sampleCubins().front();
        auto cubin = Cubin::load(path.toStdString());
        QVERIFY(cubin.ok());
        auto listings = disassemble(*cubin);
        QVERIFY(listings.ok() && !listings->empty());
        const auto& l = listings->front();
        auto gate = EncodingGate::forListing(l);
        gate->prime();
        const int runs = gate->decoderRuns();
        Control c = l.instructions[0].control;
        c.stall = uint8_t(c.stall == 5 ? 6 : 5);
        c.reuse = uint8_t(c.reuse ^ 1);
        gate->refusal(0, c.encode(l.instructions[0].hi));
        QVERIFY(gate->decoderRuns() > runs);
    }

    void textListingsHaveNoGate()
    {
        auto l = makeListing({{"FFMA R1, R2, R3, R4", Control{.stall = 4, .yield = 1}}});
        QVERIFY(!EncodingGate::forListing(l));
    }
};

QTEST_GUILESS_MAIN(TestEncodingGate)
#include "test_encoding_gate.moc"
