#pragma once

#include <expected>
#include <string>
#include <utility>

namespace fishschool {

/// What an error was caused by: what decides the exit status of a program (2 for bad input, 1
/// otherwise) and the exception Python raises (ValueError, OSError, RuntimeError).
enum class ErrorKind {
    BadInput,  ///< a value, a flag, a file's content or a path the user gave
    System,    ///< a file or the machine: a full disk, a GPU out of memory or lost
    Internal,  ///< the program itself: a guarantee of a step broken
};

/// An error for the user: its message, which names what is wrong and what is allowed, and its
/// kind. It is the message as a string, so that it reads and joins as one.
class Error : public std::string {
  public:
    Error() = default;
    Error(std::string message, ErrorKind kind = ErrorKind::BadInput)
        : std::string(std::move(message)), kind_(kind) {}
    ErrorKind kind() const { return kind_; }
    const std::string& message() const { return *this; }
    /// The same error with `context` before its message ("--trajectory: ").
    Error prefixed(const std::string& context) const { return Error(context + *this, kind_); }

  private:
    ErrorKind kind_ = ErrorKind::BadInput;
};

/// A value or an error (Error) for the user. A class rather than an alias of std::expected so
/// that it is [[nodiscard]] wherever it is returned: a dropped error is a compile error under
/// -Werror, not a silent change.
template <class T>
class [[nodiscard]] Result : public std::expected<T, Error> {
  public:
    using Base = std::expected<T, Error>;
    using Base::Base;
    Result(const Base& other) : Base(other) {}
    Result(Base&& other) : Base(std::move(other)) {}
};

/// The error branch of a Result: `return fail("key 'dt': must be > 0");` (bad input), or with
/// its kind, `fail(message, ErrorKind::System)`.
inline std::unexpected<Error> fail(std::string message, ErrorKind kind = ErrorKind::BadInput) {
    return std::unexpected<Error>(Error(std::move(message), kind));
}
/// An error passed on as it is, its kind kept.
inline std::unexpected<Error> fail(Error error) {
    return std::unexpected<Error>(std::move(error));
}

}  // namespace fishschool
