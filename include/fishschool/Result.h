#pragma once

#include <expected>
#include <string>
#include <utility>

namespace fishschool {

/// A value or an error message for the user. Errors name what is wrong and what is allowed.
/// A class rather than an alias of std::expected so that it is [[nodiscard]] wherever it is
/// returned: a dropped error is a compile error under -Werror, not a silent change.
template <class T>
class [[nodiscard]] Result : public std::expected<T, std::string> {
  public:
    using Base = std::expected<T, std::string>;
    using Base::Base;
    Result(const Base& other) : Base(other) {}
    Result(Base&& other) : Base(std::move(other)) {}
};

/// The error branch of a Result: `return fail("key 'dt': must be > 0");`.
inline std::unexpected<std::string> fail(std::string message) {
    return std::unexpected<std::string>(std::move(message));
}

}  // namespace fishschool
