// Which words of a recorded parameter buffer are device pointers: a plain pointer, pointers inside a
// by-value struct (FlashAttention's params), scalars that look like addresses but are none, null
// pointers, aliases (two parameters into one allocation), and layouts that do not fit the buffer.
#include "core/inject/param_classifier.h"

#include <QtTest>

#include <cstring>

using namespace sassx;
using namespace sassx::inject;

namespace {

// Three allocations as a driver would report them.
const std::vector<AllocationRange> kAllocations{
    {0x7f0000000000ull, 0x10000}, {0x7f0000200000ull, 0x400}, {0x300000000ull, 0x200000}};

std::optional<AllocationRange> query(uint64_t address)
{
    for (const AllocationRange& r : kAllocations)
        if (address >= r.base && address < r.base + r.size) return r;
    return std::nullopt;
}

void put64(std::vector<uint8_t>& buf, size_t at, uint64_t v)
{
    if (buf.size() < at + 8) buf.resize(at + 8);
    std::memcpy(buf.data() + at, &v, 8);
}

void put32(std::vector<uint8_t>& buf, size_t at, uint32_t v)
{
    if (buf.size() < at + 4) buf.resize(at + 4);
    std::memcpy(buf.data() + at, &v, 4);
}

} // namespace

class TestParamClassifier : public QObject
{
    Q_OBJECT

private slots:
    void plainPointersAndScalars()
    {
        // kernel(float* x, float* y, int n, float alpha): the usual elementwise signature.
        std::vector<uint8_t> buf;
        put64(buf, 0, 0x7f0000000100ull);
        put64(buf, 8, 0x300000000ull);
        put32(buf, 16, 4096);
        put32(buf, 20, 0x3f800000);
        const std::vector<KernelParam> layout{{0, 0, 8}, {1, 8, 8}, {2, 16, 4}, {3, 20, 4}};
        auto c = classifyParams(buf, layout, query);
        QVERIFY2(c, c ? "" : c.message().c_str());
        QCOMPARE(c->params.size(), size_t(4));
        QVERIFY(c->params[0].isPointer());
        QCOMPARE(c->params[0].pointers[0].offset, uint64_t(0x100));
        QVERIFY(c->params[1].isPointer());
        QVERIFY(!c->params[2].isPointer() && c->params[2].pointers.empty());
        QCOMPARE(c->params[3].bytes, (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f}));
        QCOMPARE(c->allocations.size(), size_t(2));
    }

    void pointersInsideStruct()
    {
        // One 96-byte struct: q, k, v, o pointers, then strides and sizes, then two more pointers.
        std::vector<uint8_t> buf(96, 0);
        put64(buf, 0, 0x7f0000000000ull);
        put64(buf, 8, 0x7f0000004000ull);
        put64(buf, 16, 0x7f0000008000ull);
        put64(buf, 24, 0x300000040ull);
        put64(buf, 32, 128);  // a stride
        put32(buf, 40, 2048); // seqlen
        put32(buf, 44, 16);   // heads
        put64(buf, 48, 0);    // a null pointer (no dropout mask)
        put64(buf, 56, 0x7f0000200010ull);
        put64(buf, 64, 0x7f00deadbeefull); // an address the driver does not know
        put64(buf, 88, 0x7f000000fff8ull);
        const std::vector<KernelParam> layout{{0, 0, 96}};
        auto c = classifyParams(buf, layout, query);
        QVERIFY2(c, c ? "" : c.message().c_str());
        const ClassifiedParam& p = c->params[0];
        QVERIFY(!p.isPointer());
        std::vector<uint32_t> at;
        for (const EmbeddedPointer& e : p.pointers)
            at.push_back(e.at);
        QCOMPARE(at, (std::vector<uint32_t>{0, 8, 16, 24, 56, 88}));
        // q, k, v and the last pointer are one allocation (slices of one segment): recorded once
        QCOMPARE(c->allocations.size(), size_t(3));
        QCOMPARE(p.pointers[1].allocation, p.pointers[0].allocation);
        QCOMPARE(p.pointers[1].offset, uint64_t(0x4000));
        QCOMPARE(p.pointers[5].offset, uint64_t(0xfff8));
        QCOMPARE(p.bytes, buf); // the bytes stay exactly as passed
    }

    void scalarsThatLookLikePointers_data()
    {
        QTest::addColumn<quint64>("value");
        QTest::addColumn<bool>("pointer");
        QTest::newRow("inside an allocation") << quint64(0x7f0000000008ull) << true;
        QTest::newRow("one past the end") << quint64(0x7f0000010000ull) << false;
        QTest::newRow("between allocations") << quint64(0x7f0000100000ull) << false;
        QTest::newRow("small integer") << quint64(4096) << false;
        QTest::newRow("negative int64") << quint64(~0ull) << false;
        QTest::newRow("double 1.0") << quint64(0x3ff0000000000000ull) << false;
        QTest::newRow("zero") << quint64(0) << false;
    }

    void scalarsThatLookLikePointers()
    {
        QFETCH(quint64, value);
        QFETCH(bool, pointer);
        std::vector<uint8_t> buf;
        put64(buf, 0, value);
        auto c = classifyParams(buf, {{0, 0, 8}}, query);
        QVERIFY(c);
        QCOMPARE(c->params[0].isPointer(), pointer);
        QCOMPARE(c->allocations.size(), size_t(pointer ? 1 : 0));
    }

    void aliasesShareOneAllocation()
    {
        // An in-place kernel: dX and dY are the same pointer; a view points 64 bytes in.
        std::vector<uint8_t> buf;
        put64(buf, 0, 0x7f0000200000ull);
        put64(buf, 8, 0x7f0000200000ull);
        put64(buf, 16, 0x7f0000200040ull);
        auto c = classifyParams(buf, {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}}, query);
        QVERIFY(c);
        QCOMPARE(c->allocations.size(), size_t(1));
        QCOMPARE(c->params[2].pointers[0].offset, uint64_t(64));
    }

    void unalignedWordsAreNotRead()
    {
        // A 12-byte struct at offset 4: its only 8-aligned word is bytes 4..12 of the struct.
        std::vector<uint8_t> buf(16, 0);
        put64(buf, 4, 0x7f0000000000ull); // misaligned in the bank: not a pointer a kernel could hold
        put64(buf, 8, 0);
        auto c = classifyParams(buf, {{0, 0, 4}, {1, 4, 12}}, query);
        QVERIFY(c);
        QVERIFY(c->params[1].pointers.empty());
    }

    void perParameterValues()
    {
        // kernelParams: one pointer per parameter value
        uint64_t x = 0x300000100ull;
        int32_t n = 7;
        std::vector<std::span<const uint8_t>> values{{reinterpret_cast<const uint8_t*>(&x), 8},
                                                     {reinterpret_cast<const uint8_t*>(&n), 4}};
        auto c = classifyParams(values, {{0, 0, 8}, {1, 8, 4}}, query);
        QVERIFY(c);
        QVERIFY(c->params[0].isPointer());
        QCOMPARE(c->params[1].bytes, (std::vector<uint8_t>{7, 0, 0, 0}));
    }

    void refusals_data()
    {
        QTest::addColumn<int>("bufferSize");
        QTest::addColumn<int>("paramSize");
        QTest::addColumn<QString>("says");
        QTest::newRow("past the buffer") << 8 << 16 << "lies past the 8-byte parameter buffer";
        QTest::newRow("size 0") << 8 << 0 << "has size 0";
    }

    void refusals()
    {
        QFETCH(int, bufferSize);
        QFETCH(int, paramSize);
        QFETCH(QString, says);
        std::vector<uint8_t> buf(size_t(bufferSize), 0);
        auto c = classifyParams(buf, {{0, 0, uint32_t(paramSize)}}, query);
        QVERIFY(!c);
        QVERIFY2(c.message().find(says.toStdString()) != std::string::npos, c.message().c_str());
        QVERIFY(c.message().find('\n') == std::string::npos);
        auto v = classifyParams(std::vector<std::span<const uint8_t>>{}, {{0, 0, 8}}, query);
        QVERIFY(!v);
        QVERIFY2(v.message().find("passed 0 parameter values, the kernel takes 1") != std::string::npos,
                 v.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestParamClassifier)
#include "test_param_classifier.moc"
