// Candidate (core/eval/candidate.h): the original, whole bytes, or a schedule whose cubin is written on
// demand, once, however many copies and threads ask.
#include "core/eval/candidate.h"

#include <QtTest>

#include <atomic>
#include <thread>

using namespace sassx;
using namespace sassx::eval;

class TestCandidate : public QObject
{
    Q_OBJECT
private slots:
    void originalHasNoBytesOfItsOwn()
    {
        const Candidate c;
        QVERIFY(c.isOriginal());
        QVERIFY(Candidate::original().isOriginal());
        auto b = c.bytes();
        QVERIFY(b);
        QVERIFY((*b)->empty()); // the protocol's "the baseline"
        QVERIFY(!c.schedule());
        QVERIFY(!c.analysis());
    }

    void bytesAreThemselves()
    {
        const Candidate c = Candidate::fromBytes({1, 2, 3});
        QVERIFY(!c.isOriginal());
        auto b = c.bytes();
        QVERIFY(b);
        QCOMPARE(**b, (std::vector<uint8_t>{1, 2, 3}));
        QVERIFY(!c.schedule());
    }

    void writtenOnceForEveryCopyAndThread()
    {
        std::atomic<int> writes{0};
        const Candidate c = Candidate::fromSchedule(nullptr, nullptr, [&writes] {
            ++writes;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return Result<std::vector<uint8_t>>(std::vector<uint8_t>{7, 8});
        });
        QCOMPARE(writes.load(), 0); // nothing is written until a backend asks
        std::vector<Candidate> copies(8, c);
        std::vector<std::thread> threads;
        std::atomic<int> right{0};
        for (const Candidate& k : copies)
            threads.emplace_back([&k, &right] {
                auto b = k.bytes();
                if (b && **b == std::vector<uint8_t>{7, 8}) ++right;
            });
        for (auto& t : threads)
            t.join();
        QCOMPARE(writes.load(), 1);
        QCOMPARE(right.load(), 8);
    }

    void aRefusedWriteIsTheWritersSentence()
    {
        int writes = 0;
        const Candidate c = Candidate::fromSchedule(nullptr, nullptr, [&writes] {
            ++writes;
            return Result<std::vector<uint8_t>>(makeError("instruction 12 cannot be encoded"));
        });
        for (int i = 0; i < 2; ++i) {
            auto b = c.bytes();
            QVERIFY(!b);
            QCOMPARE(b.message(), std::string("instruction 12 cannot be encoded"));
        }
        QCOMPARE(writes, 1); // a refusal is remembered, not retried
        QVERIFY(!Candidate::fromSchedule(nullptr, nullptr, {}).bytes());
    }
};

QTEST_GUILESS_MAIN(TestCandidate)
#include "test_candidate.moc"
