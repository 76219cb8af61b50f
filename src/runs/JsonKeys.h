#pragma once

// The checks an ensemble file and a fit file make of their keys, with the same words: a key's
// place in the file and what it must be.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/Messages.h"
#include "fishschool/Result.h"

namespace fishschool::json_keys {

// Ordered: keys keep the order the file writes them (an ensemble's axes vary in it).
using Json = nlohmann::ordered_json;

/// "SOURCE: key 'KEY': ", the start of a message about a key.
inline std::string where(const std::string& source, const std::string& key) {
    return source + ": key " + quote(key, 80) + ": ";
}

/// `value` as a whole number from min to max, else an error naming the key and the range.
inline Result<std::int64_t> wholeNumberKey(const Json& value, const std::string& source,
                                           const std::string& key, std::int64_t min,
                                           std::int64_t max) {
    const std::string range =
        "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
    if (!value.is_number_integer())
        return fail(where(source, key) + "must be " + range + ", got " + quote(value.dump()));
    // nlohmann holds a number >= 0 as unsigned: both ends are checked in either form.
    const bool inRange = value.is_number_unsigned()
                             ? value.get<std::uint64_t>() <= std::uint64_t(max) &&
                                   (min <= 0 || value.get<std::uint64_t>() >= std::uint64_t(min))
                             : value.get<std::int64_t>() >= min && value.get<std::int64_t>() <= max;
    if (!inRange)
        return fail(where(source, key) + quote(value.dump()) + " is not allowed; must be " + range);
    return value.get<std::int64_t>();
}

/// `value` as a number, else an error naming the key.
inline Result<double> numberKey(const Json& value, const std::string& source,
                                const std::string& key) {
    if (!value.is_number())
        return fail(where(source, key) + "must be a number, got " + quote(value.dump()));
    return value.get<double>();
}

}  // namespace fishschool::json_keys
