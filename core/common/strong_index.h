#pragma once
// An index that knows what it indexes (heaptrack's Index<Base>): two kinds of index never convert into
// each other or from a bare integer, so a position cannot be used where an instruction is meant. The
// integer is reached only through value(), which marks the place where a conversion is intended.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace sassx {

template <class Tag> class StrongIndex
{
public:
    constexpr StrongIndex() = default;
    constexpr explicit StrongIndex(uint32_t v) : m_value(v) {}

    constexpr uint32_t value() const { return m_value; }

    // Spelled out rather than a defaulted <=>: <compare> as the first standard header trips moc.
    friend constexpr bool operator==(StrongIndex a, StrongIndex b) { return a.m_value == b.m_value; }
    friend constexpr bool operator!=(StrongIndex a, StrongIndex b) { return a.m_value != b.m_value; }
    friend constexpr bool operator<(StrongIndex a, StrongIndex b) { return a.m_value < b.m_value; }
    friend constexpr bool operator<=(StrongIndex a, StrongIndex b) { return a.m_value <= b.m_value; }
    friend constexpr bool operator>(StrongIndex a, StrongIndex b) { return a.m_value > b.m_value; }
    friend constexpr bool operator>=(StrongIndex a, StrongIndex b) { return a.m_value >= b.m_value; }

    constexpr StrongIndex& operator++()
    {
        ++m_value;
        return *this;
    }
    constexpr StrongIndex& operator--()
    {
        --m_value;
        return *this;
    }
    constexpr StrongIndex operator++(int)
    {
        StrongIndex old = *this;
        ++m_value;
        return old;
    }
    constexpr StrongIndex operator--(int)
    {
        StrongIndex old = *this;
        --m_value;
        return old;
    }
    // An offset keeps the kind: the position two after a position is a position.
    constexpr StrongIndex operator+(int64_t d) const { return StrongIndex(uint32_t(int64_t(m_value) + d)); }
    constexpr StrongIndex operator-(int64_t d) const { return StrongIndex(uint32_t(int64_t(m_value) - d)); }
    constexpr StrongIndex& operator+=(int64_t d) { return *this = *this + d; }
    constexpr StrongIndex& operator-=(int64_t d) { return *this = *this - d; }
    // The distance between two indices of one kind is a plain number.
    constexpr int64_t operator-(StrongIndex o) const { return int64_t(m_value) - int64_t(o.m_value); }

private:
    uint32_t m_value = 0;
};

// first, first+1, …, last-1 as indices of one kind, for range-for.
template <class Index> class IndexRange
{
public:
    class iterator
    {
    public:
        using value_type = Index;
        using difference_type = std::ptrdiff_t;
        using iterator_category = std::forward_iterator_tag;
        using pointer = const Index*;
        using reference = Index;
        iterator() = default;
        explicit iterator(Index i) : m_i(i) {}
        Index operator*() const { return m_i; }
        iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        iterator operator++(int)
        {
            iterator old = *this;
            ++m_i;
            return old;
        }
        bool operator==(const iterator&) const = default;

    private:
        Index m_i;
    };
    IndexRange(Index first, Index last) : m_first(first), m_last(last < first ? first : last) {}
    iterator begin() const { return iterator(m_first); }
    iterator end() const { return iterator(m_last); }
    size_t size() const { return size_t(m_last - m_first); }
    bool empty() const { return m_first == m_last; }

private:
    Index m_first, m_last;
};

template <class Index> IndexRange<Index> indexRange(uint32_t count)
{
    return IndexRange<Index>(Index(0), Index(count));
}

template <class Index> IndexRange<Index> indexRange(Index first, Index last)
{
    return IndexRange<Index>(first, last);
}

// A vector that is indexed by one kind of index only.
template <class Index, class T> class IndexVector
{
public:
    using value_type = T;
    using iterator = typename std::vector<T>::iterator;
    using const_iterator = typename std::vector<T>::const_iterator;

    IndexVector() = default;
    explicit IndexVector(size_t n, const T& v = T()) : m_v(n, v) {}
    explicit IndexVector(std::vector<T> v) : m_v(std::move(v)) {}
    IndexVector(std::initializer_list<T> v) : m_v(v) {}

    // std::vector's own reference types, so that IndexVector<Index, bool> works too.
    using reference = typename std::vector<T>::reference;
    using const_reference = typename std::vector<T>::const_reference;

    reference operator[](Index i) { return m_v[i.value()]; }
    const_reference operator[](Index i) const { return m_v[i.value()]; }
    reference at(Index i) { return m_v.at(i.value()); }
    const_reference at(Index i) const { return m_v.at(i.value()); }

    size_t size() const { return m_v.size(); }
    bool empty() const { return m_v.empty(); }
    void resize(size_t n) { m_v.resize(n); }
    void resize(size_t n, const T& v) { m_v.resize(n, v); }
    void reserve(size_t n) { m_v.reserve(n); }
    void clear() { m_v.clear(); }
    void push_back(const T& v) { m_v.push_back(v); }
    void push_back(T&& v) { m_v.push_back(std::move(v)); }
    reference back() { return m_v.back(); }
    const_reference back() const { return m_v.back(); }
    reference front() { return m_v.front(); }
    const_reference front() const { return m_v.front(); }

    iterator begin() { return m_v.begin(); }
    iterator end() { return m_v.end(); }
    const_iterator begin() const { return m_v.begin(); }
    const_iterator end() const { return m_v.end(); }
    // The iterator at an index, for the std algorithms.
    iterator iter(Index i) { return m_v.begin() + i.value(); }
    const_iterator iter(Index i) const { return m_v.begin() + i.value(); }

    // Every valid index, in order.
    IndexRange<Index> indices() const { return indexRange<Index>(uint32_t(m_v.size())); }
    // The index one past the last.
    Index endIndex() const { return Index(uint32_t(m_v.size())); }

    // The plain vector, for serialisation and code that is not about this kind of index.
    const std::vector<T>& raw() const { return m_v; }
    std::vector<T>& raw() { return m_v; }

    bool operator==(const IndexVector&) const = default;

private:
    std::vector<T> m_v;
};

} // namespace sassx

template <class Tag> struct std::hash<sassx::StrongIndex<Tag>>
{
    size_t operator()(sassx::StrongIndex<Tag> i) const noexcept { return std::hash<uint32_t>()(i.value()); }
};
