#pragma once

#include <expected>
#include <string>

namespace fishschool {

/// A value or an error message for the user. Errors name what is wrong and what is allowed.
template <class T>
using Result = std::expected<T, std::string>;

/// The error branch of a Result: `return fail("key 'dt': must be > 0");`.
inline std::unexpected<std::string> fail(std::string message) {
    return std::unexpected<std::string>(std::move(message));
}

}  // namespace fishschool
