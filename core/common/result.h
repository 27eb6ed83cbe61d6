#pragma once
// Error values instead of exceptions at layer boundaries: bad input (hostile cubins, missing tools)
// must reach the user as a sentence, never as a crash.
#include <string>
#include <utility>
#include <variant>

namespace sassx {

struct Error
{
    std::string message;
};

inline Error makeError(std::string message)
{
    return Error{std::move(message)};
}

template <class T> class [[nodiscard]] Result
{
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_value(std::move(error)) {}

    bool ok() const { return m_value.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_value); }
    const T& value() const& { return std::get<0>(m_value); }
    T&& value() && { return std::get<0>(std::move(m_value)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(m_value); }
    const std::string& message() const { return error().message; }

private:
    std::variant<T, Error> m_value;
};

struct Ok
{
};
using Status = Result<Ok>;

} // namespace sassx
