// StrongIndex, IndexVector and IndexRange (core/common/strong_index.h) on the schedule's two kinds of
// index (core/rewrite/schedule_index.h): the arithmetic, indexing only by the kind a vector is for,
// ranges that are empty or given backwards, hashing, and, at compile time, that neither kind converts
// into the other or from or into a plain number.

// QtTest first: moc (run with C++17 predefinitions) cannot parse <compare> when it is the first
// standard header it meets.
#include <QtTest>

#include "core/common/strong_index.h"
#include "core/rewrite/schedule_index.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace sassx;

namespace {

template <class A, class B>
concept EqualityComparable = requires(A a, B b)
{
    a == b;
};
template <class A, class B>
concept Ordered = requires(A a, B b)
{
    a < b;
};
template <class A, class B>
concept Subtractable = requires(A a, B b)
{
    a - b;
};
template <class A, class B>
concept Addable = requires(A a, B b)
{
    a + b;
};
template <class V, class I>
concept IndexableBy = requires(V v, I i)
{
    v[i];
};
template <class V, class I>
concept AtBy = requires(V v, I i)
{
    v.at(i);
};
template <class V, class I>
concept IterBy = requires(V v, I i)
{
    v.iter(i);
};

} // namespace

// Neither kind converts into the other, not even explicitly.
static_assert(!std::is_convertible_v<InstrId, Position>);
static_assert(!std::is_convertible_v<Position, InstrId>);
static_assert(!std::is_constructible_v<InstrId, Position>);
static_assert(!std::is_constructible_v<Position, InstrId>);
// A plain number becomes an index only explicitly, and an index a number only through value().
static_assert(!std::is_convertible_v<uint32_t, InstrId>);
static_assert(!std::is_convertible_v<uint32_t, Position>);
static_assert(!std::is_convertible_v<int, Position>);
static_assert(!std::is_convertible_v<InstrId, uint32_t>);
static_assert(!std::is_convertible_v<Position, uint32_t>);
static_assert(!std::is_convertible_v<Position, size_t>);
static_assert(!std::is_constructible_v<uint32_t, Position>);
static_assert(!std::is_constructible_v<uint32_t, InstrId>);
static_assert(std::is_constructible_v<Position, uint32_t>);
static_assert(std::is_constructible_v<InstrId, uint32_t>);
// Indices of two kinds do not compare, and an offset keeps the kind while a distance is a number.
static_assert(EqualityComparable<Position, Position> && Ordered<Position, Position>);
static_assert(!EqualityComparable<InstrId, Position>);
static_assert(!Ordered<InstrId, Position>);
static_assert(!EqualityComparable<Position, uint32_t>);
static_assert(!Ordered<Position, int>);
static_assert(!Subtractable<InstrId, Position>);
static_assert(!Subtractable<Position, InstrId>);
static_assert(!Addable<Position, Position>);
static_assert(std::is_same_v<decltype(Position(3) + 2), Position>);
static_assert(std::is_same_v<decltype(InstrId(3) - 2), InstrId>);
static_assert(std::is_same_v<decltype(Position(3) - Position(1)), int64_t>);
// A vector is indexed by its own kind only.
static_assert(IndexableBy<IndexVector<Position, InstrId>, Position>);
static_assert(!IndexableBy<IndexVector<Position, InstrId>, InstrId>);
static_assert(!IndexableBy<IndexVector<Position, InstrId>, uint32_t>);
static_assert(IndexableBy<IndexVector<InstrId, Position>, InstrId>);
static_assert(!IndexableBy<IndexVector<InstrId, Position>, Position>);
static_assert(!AtBy<IndexVector<InstrId, Position>, Position>);
static_assert(!AtBy<IndexVector<InstrId, Position>, size_t>);
static_assert(!IterBy<IndexVector<InstrId, Position>, Position>);
// The arithmetic works at compile time.
static_assert((Position(5) + 3).value() == 8);
static_assert(Position(5) - Position(8) == -3);
static_assert(Position() == Position(0));

class TestStrongIndex : public QObject
{
    Q_OBJECT
private slots:
    // An offset in either direction, its inverse, the distance back, and the compound forms.
    void offsets_data()
    {
        QTest::addColumn<uint>("start");
        QTest::addColumn<int>("offset");
        QTest::addColumn<uint>("result");
        QTest::newRow("none") << 7u << 0 << 7u;
        QTest::newRow("forward") << 0u << 3 << 3u;
        QTest::newRow("backward") << 10u << -4 << 6u;
        QTest::newRow("back to zero") << 4u << -4 << 0u;
        QTest::newRow("near the top") << 4294967290u << 5 << 4294967295u;
    }
    void offsets()
    {
        QFETCH(uint, start);
        QFETCH(int, offset);
        QFETCH(uint, result);
        const Position p(start);
        QCOMPARE((p + offset).value(), result);
        QCOMPARE((Position(result) - offset).value(), start);
        QCOMPARE(Position(result) - p, int64_t(offset));
        QCOMPARE(p - Position(result), -int64_t(offset));
        Position q = p;
        q += offset;
        QCOMPARE(q.value(), result);
        q -= offset;
        QCOMPARE(q.value(), start);
        InstrId i(start);
        i += offset;
        QCOMPARE(i.value(), result);
    }

    void increments()
    {
        InstrId i(5);
        QCOMPARE((i++).value(), 5u);
        QCOMPARE(i.value(), 6u);
        QCOMPARE((++i).value(), 7u);
        QCOMPARE((i--).value(), 7u);
        QCOMPARE(i.value(), 6u);
        QCOMPARE((--i).value(), 5u);
        QCOMPARE(Position().value(), 0u);
    }

    // Indices of one kind order as their numbers do.
    void comparisons_data()
    {
        QTest::addColumn<uint>("a");
        QTest::addColumn<uint>("b");
        QTest::newRow("equal") << 4u << 4u;
        QTest::newRow("less") << 2u << 9u;
        QTest::newRow("greater") << 9u << 2u;
        QTest::newRow("zero and the top") << 0u << 4294967295u;
    }
    void comparisons()
    {
        QFETCH(uint, a);
        QFETCH(uint, b);
        const Position x(a), y(b);
        QCOMPARE(x == y, a == b);
        QCOMPARE(x != y, a != b);
        QCOMPARE(x < y, a < b);
        QCOMPARE(x <= y, a <= b);
        QCOMPARE(x > y, a > b);
        QCOMPARE(x >= y, a >= b);
        QCOMPARE(std::max(x, y).value(), std::max(a, b));
    }

    // Indexing, at() (bounds-checked), indices(), endIndex() and raw() over vectors of several sizes.
    void indexVector_data()
    {
        QTest::addColumn<int>("size");
        QTest::newRow("empty") << 0;
        QTest::newRow("one") << 1;
        QTest::newRow("several") << 6;
    }
    void indexVector()
    {
        QFETCH(int, size);
        IndexVector<InstrId, int> v(size_t(size), -1);
        QCOMPARE(v.size(), size_t(size));
        QCOMPARE(v.empty(), size == 0);
        QCOMPARE(v.endIndex(), InstrId(uint32_t(size)));
        std::vector<uint32_t> seen;
        for (InstrId i : v.indices()) {
            v[i] = int(i.value()) * 10;
            seen.push_back(i.value());
        }
        std::vector<uint32_t> want(static_cast<size_t>(size));
        for (size_t k = 0; k < want.size(); ++k)
            want[k] = uint32_t(k);
        QCOMPARE(seen, want);
        QCOMPARE(v.indices().size(), size_t(size));
        for (int k = 0; k < size; ++k) {
            QCOMPARE(v.raw()[size_t(k)], k * 10);
            QCOMPARE(v.at(InstrId(uint32_t(k))), k * 10);
        }
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, (void)v.at(v.endIndex()));
        v.push_back(99);
        QCOMPARE(v[v.endIndex() - 1], 99);
        QCOMPARE(v.back(), 99);
    }

    // iter() gives the std algorithms the place of an index: Schedule::move as a rotation.
    void iterRotates_data()
    {
        QTest::addColumn<uint>("from");
        QTest::addColumn<uint>("to");
        QTest::addColumn<std::vector<uint32_t>>("order");
        QTest::newRow("down") << 1u << 4u << std::vector<uint32_t>{0, 2, 3, 4, 1, 5};
        QTest::newRow("up") << 4u << 1u << std::vector<uint32_t>{0, 4, 1, 2, 3, 5};
        QTest::newRow("in place") << 3u << 3u << std::vector<uint32_t>{0, 1, 2, 3, 4, 5};
        QTest::newRow("whole vector") << 0u << 5u << std::vector<uint32_t>{1, 2, 3, 4, 5, 0};
    }
    void iterRotates()
    {
        QFETCH(uint, from);
        QFETCH(uint, to);
        QFETCH(std::vector<uint32_t>, order);
        IndexVector<Position, InstrId> v;
        for (uint32_t k = 0; k < 6; ++k)
            v.push_back(InstrId(k));
        const Position f(from), t(to);
        if (f < t)
            std::rotate(v.iter(f), v.iter(f + 1), v.iter(t + 1));
        else if (f > t)
            std::rotate(v.iter(t), v.iter(f), v.iter(f + 1));
        std::vector<uint32_t> got;
        for (InstrId i : v)
            got.push_back(i.value());
        QCOMPARE(got, order);
        QVERIFY(v.iter(v.endIndex()) == v.end());
        QVERIFY(std::find(v.begin(), v.end(), InstrId(order[2])) == v.iter(Position(2)));
    }

    // A range visits first, first + 1, ... up to last; an empty range and one given backwards visit nothing.
    void ranges_data()
    {
        QTest::addColumn<uint>("first");
        QTest::addColumn<uint>("last");
        QTest::addColumn<std::vector<uint32_t>>("visited");
        QTest::newRow("forward") << 2u << 5u << std::vector<uint32_t>{2, 3, 4};
        QTest::newRow("one") << 7u << 8u << std::vector<uint32_t>{7};
        QTest::newRow("empty") << 3u << 3u << std::vector<uint32_t>{};
        QTest::newRow("reversed") << 6u << 2u << std::vector<uint32_t>{};
        QTest::newRow("reversed from zero") << 1u << 0u << std::vector<uint32_t>{};
    }
    void ranges()
    {
        QFETCH(uint, first);
        QFETCH(uint, last);
        QFETCH(std::vector<uint32_t>, visited);
        const auto r = indexRange(Position(first), Position(last));
        std::vector<uint32_t> got;
        for (Position p : r)
            got.push_back(p.value());
        QCOMPARE(got, visited);
        QCOMPARE(r.size(), visited.size());
        QCOMPARE(r.empty(), visited.empty());
        QCOMPARE(r.begin() == r.end(), visited.empty());
        QCOMPARE(size_t(std::distance(r.begin(), r.end())), visited.size());
        const auto counted = indexRange<InstrId>(uint32_t(visited.size()));
        QCOMPARE(counted.size(), visited.size());
        if (!visited.empty()) QCOMPARE(*counted.begin(), InstrId(0));
    }

    // std::hash of an index is the hash of its number, so indices key unordered containers.
    void hashing_data()
    {
        QTest::addColumn<uint>("value");
        QTest::newRow("zero") << 0u;
        QTest::newRow("small") << 12u;
        QTest::newRow("top") << 4294967295u;
    }
    void hashing()
    {
        QFETCH(uint, value);
        QCOMPARE(std::hash<Position>()(Position(value)), std::hash<uint32_t>()(value));
        QCOMPARE(std::hash<InstrId>()(InstrId(value)), std::hash<uint32_t>()(value));
        std::unordered_set<InstrId> set{InstrId(value), InstrId(value), InstrId(value + 1)};
        QCOMPARE(set.size(), size_t(2));
        QCOMPARE(set.count(InstrId(value)), size_t(1));
        std::unordered_map<Position, int> map;
        ++map[Position(value)];
        ++map[Position(value)];
        QCOMPARE(map.at(Position(value)), 2);
    }

    // At the edges both kinds are plain numbers: JSON and to_string.
    void edges()
    {
        const nlohmann::json j = {Position(12), InstrId(9)};
        QCOMPARE(j.dump(), std::string("[12,9]"));
        QCOMPARE(j[0].get<Position>(), Position(12));
        QCOMPARE(j[1].get<InstrId>(), InstrId(9));
        QCOMPARE(to_string(Position(12)), std::string("12"));
        QCOMPARE(to_string(InstrId(9)), std::string("9"));
    }
};

QTEST_GUILESS_MAIN(TestStrongIndex)
#include "test_strong_index.moc"
