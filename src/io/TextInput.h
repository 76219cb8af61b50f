#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/Messages.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

// Parsing of what users type (flags, panel fields), shared by the CLI, the app and its panel so
// that the same text is accepted or refused everywhere with the same message. Values in messages
// are quoted and formatted as core/Messages.h says.

/// A whole number in decimal, from `min` to `max`: digits with an optional leading '-', nothing
/// else (no spaces, '+', hex, exponent or fraction). "-0" is 0, as in a JSON config. The error
/// names `what` and the range, e.g.
/// "--steps: '0x10' is not allowed; must be a whole number from 0 to 9223372036854775807".
[[nodiscard]] Result<std::int64_t> parseWholeNumber(std::string_view what, std::string_view text,
                                                    std::int64_t min, std::int64_t max);
/// The same for an unsigned 64-bit value (a seed): from 0 to 2^64 - 1 ("-0" too).
[[nodiscard]] Result<std::uint64_t> parseUnsigned64(std::string_view what, std::string_view text);

/// A finite decimal number ("2", "-0.5", "1e-3"), nothing else (no "+1", "0x10", "nan"); a
/// number beyond the double range, or too close to 0 for one (1e-400), is an error that says
/// so. The error names `what`.
Result<double> parseFiniteNumber(std::string_view what, std::string_view text);

/// Splits "a,b,c" into its items. An empty item ("a,,b", a trailing comma) or an empty list is an
/// error that names `what`, e.g. the flag.
[[nodiscard]] Result<std::vector<std::string>> splitList(std::string_view what,
                                                         std::string_view text);

/// Each item of a comma-separated list read by parseOne(item), a Result<T>; the first item it
/// refuses is the error.
template <class ParseOne>
[[nodiscard]] auto parseList(std::string_view what, std::string_view text, ParseOne&& parseOne)
    -> Result<std::vector<typename decltype(parseOne(std::string_view{}))::value_type>> {
    auto items = splitList(what, text);
    if (!items) return fail(items.error());
    std::vector<typename decltype(parseOne(std::string_view{}))::value_type> values;
    for (const std::string& item : *items) {
        auto value = parseOne(item);
        if (!value) return fail(value.error());
        values.push_back(*value);
    }
    return values;
}

/// One fish count: a whole number from `min` to kMaxFishCount; the error names `what`.
[[nodiscard]] Result<std::int64_t> parseFishCount(std::string_view what, std::string_view text,
                                                  std::int64_t min = 0);
[[nodiscard]] Result<std::vector<std::int64_t>> parseFishCounts(std::string_view what,
                                                                std::string_view text,
                                                                std::int64_t min = 0);

/// A neighbour search as a flag names it; the error names `flag` and the allowed names.
[[nodiscard]] Result<NeighborSearch> parseNeighborSearchFlag(std::string_view flag,
                                                             std::string_view text);
/// A comma-separated list of neighbour searches.
[[nodiscard]] Result<std::vector<NeighborSearch>> parseNeighborSearchList(std::string_view flag,
                                                                          std::string_view text);

/// The first argument of `args` that is a flag ("--name", "--name=value" or "-n"; "-4" and
/// "-inf" are values) whose name `isKnown` refuses; nothing once "--" ends the flags. How a misspelt
/// flag is named before the errors it causes downstream ("--steps is required" for "--step").
[[nodiscard]] std::optional<std::string> firstUnknownFlag(
    const std::vector<std::string_view>& args,
    const std::function<bool(std::string_view)>& isKnown);

/// "unknown flag '--sate-out'; did you mean --state-out? (see fishschool-cli simulate --help)":
/// the closest of `flags` when it is a few letters away, else only where to find them.
[[nodiscard]] std::string unknownFlagMessage(std::string_view flag,
                                             const std::vector<std::string>& flags,
                                             std::string_view helpCommand);

}  // namespace fishschool
