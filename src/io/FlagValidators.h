#pragma once

// CLI11 validators built on TextInput.h, so that every flag of the app and the CLI accepts and
// refuses the same text with the same message. Header-only: the core library does not link CLI11.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "TextInput.h"

namespace fishschool {

/// Refuses an empty value, so that `--config ""` is an error rather than "no config".
inline CLI::Validator nonEmpty() {
    return CLI::Validator(
        [](const std::string& value) -> std::string {
            return value.empty() ? std::string("an empty value is not allowed") : std::string();
        },
        "", "NONEMPTY");
}

/// A strict decimal whole number from `min` to `max` (TextInput.h's parseWholeNumber): CLI11 on
/// its own would read "0x10" as 16 and "" as 0.
inline CLI::Validator wholeNumber(std::int64_t min,
                                  std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
    return CLI::Validator(
        [min, max](const std::string& value) -> std::string {
            auto n = parseWholeNumber("", value, min, max);
            return n ? std::string() : n.error().message();
        },
        "", "WHOLE_NUMBER");
}

/// A finite decimal number from `min` to `max` (TextInput.h's parseFiniteNumber): CLI11 on its
/// own would take "nan", which passes every range check.
inline CLI::Validator finiteNumber(double min, double max) {
    return CLI::Validator(
        [min, max](const std::string& value) -> std::string {
            auto n = parseFiniteNumber("", value);
            if (!n) return n.error();
            if (*n < min || *n > max)
                return quote(value) + " is not allowed; must be a number from " +
                       formatNumber(min) + " to " + formatNumber(max);
            return std::string();
        },
        "", "NUMBER");
}

/// After `command` failed to parse `args` (the arguments after its name): the error naming the
/// first flag of them it does not know, with the flag it is a few letters from
/// (unknownFlagMessage), or nothing when it knows them all. A misspelt flag is what went wrong,
/// whatever CLI11 saw first ("--steps is required" for "--step 5").
inline std::optional<std::string> unknownFlagError(const CLI::App& command,
                                                   const std::vector<std::string_view>& args,
                                                   std::string_view helpCommand) {
    const auto unknown = firstUnknownFlag(args, [&](std::string_view name) {
        return command.get_option_no_throw(std::string(name)) != nullptr;
    });
    if (!unknown) return std::nullopt;
    std::vector<std::string> flags;
    for (const CLI::Option* option : command.get_options())
        if (option->get_name().starts_with("-")) flags.push_back(option->get_name());
    return unknownFlagMessage(*unknown, flags, helpCommand);
}

}  // namespace fishschool
