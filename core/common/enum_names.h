#pragma once
// One table of names per enum, read both ways: a typed value inside the program, its stable name only at
// the edges (command-line options, JSON, the worker protocol, session files). Each vocabulary header
// (core/eval/backend.h, figure_kind.h, …) declares its table and a parse/name pair over these helpers,
// so a name is spelled once and an unknown one is refused the same way everywhere.
#include "core/common/result.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sassx {

template <class E> struct EnumName
{
    E value;
    std::string_view name;
};

template <class E, std::size_t N>
constexpr std::optional<E> parseEnum(const std::array<EnumName<E>, N>& table, std::string_view text)
{
    for (const EnumName<E>& e : table)
        if (e.name == text) return e.value;
    return std::nullopt;
}

// A value missing from its table is a programming error; its name reads "?" rather than crashing.
template <class E, std::size_t N>
constexpr std::string_view enumName(const std::array<EnumName<E>, N>& table, E value)
{
    for (const EnumName<E>& e : table)
        if (e.value == value) return e.name;
    return "?";
}

// The names in table order, for a command-line option's list of choices.
template <class E, std::size_t N>
std::vector<std::string> enumNameList(const std::array<EnumName<E>, N>& table)
{
    std::vector<std::string> names;
    for (const EnumName<E>& e : table)
        names.emplace_back(e.name);
    return names;
}

// "auto, gpu or estimate": the accepted names, for help texts and errors.
template <class E, std::size_t N> std::string enumChoices(const std::array<EnumName<E>, N>& table)
{
    std::string s;
    for (std::size_t i = 0; i < N; ++i) {
        if (i > 0) s += i + 1 == N ? " or " : ", ";
        s += table[i].name;
    }
    return s;
}

// The parsed value, or the one-line error "<what> must be auto, gpu or estimate (not 'x')".
template <class E, std::size_t N>
Result<E> parseEnumOrError(const std::array<EnumName<E>, N>& table, std::string_view text,
                           std::string_view what)
{
    if (auto v = parseEnum(table, text)) return *v;
    return makeError(std::string(what) + " must be " + enumChoices(table) + " (not '" + std::string(text) +
                     "')");
}

} // namespace sassx
