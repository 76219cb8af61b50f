#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Result.h"
#include "SimParams.h"

namespace fishschool {

// Parsing of what users type (flags, panel fields), shared by the CLI, the app and its panel so
// that the same text is accepted or refused everywhere with the same message.

/// `text` as a message may show it: control characters, escape sequences and bytes that are not
/// UTF-8 written as `\n`, `\x1b`, ..., so that no input reaches the terminal raw; cut to at most
/// `maxChars` characters (with "...") so that a huge input never makes a huge message.
std::string printable(std::string_view text, std::size_t maxChars);

/// `text` in single quotes for an error message, as printable() writes it: the one way a value a
/// user gave is quoted, e.g. "'0x10'", "'ab\x1b[31m'", "'aaaa...' (120000 characters)".
std::string quote(std::string_view text, std::size_t maxChars = 40);

/// The longest error line the programs print (the values it quotes are cut shorter).
inline constexpr std::size_t kMaxMessageChars = 400;
/// Prints "error: MESSAGE" on stderr, as printable() writes it and at most kMaxMessageChars
/// long: the last guard for text that came from elsewhere (CLI11, the system) into a message.
void printError(std::string_view message);
/// printError, then kExitBadInput: the flags or the files they name (ExitStatus.h).
int badInput(std::string_view message);
/// printError, then kExitInternal: a failure of this machine, not of the input.
int internalFailure(std::string_view message);

/// A number as messages and the phase CSV write it: the fewest digits (at most 9) that read back
/// as the same float, whole numbers up to 2^24 in full: "0.05", "1000000", "1e+14",
/// "3.4028235e+38".
std::string formatNumber(double value);
/// A point as messages write it: "(x, y, z)", each as formatNumber.
std::string formatPoint(const glm::vec3& p);

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

/// The environment variable that lowers the GPU's storage buffer limit (docs/robustness.md).
inline constexpr const char* kGpuMaxBufferBytesVariable = "FISHSCHOOL_GPU_MAX_BUFFER_BYTES";
/// Its value: unset, or a whole number of bytes from 1 to 2^63 - 1 in plain digits. Checked by
/// both programs before they run (exit status 2), and read by the GPU backend.
Result<std::optional<std::int64_t>> gpuMaxBufferBytes();

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

/// Checks, before a long run, that `path` could be written: its folder exists and is writable,
/// the file system takes its name (not too long), and no folder, device, FIFO or socket is in
/// its place (a rename would replace it with a regular file). The error names `what` and the
/// path. OutputFiles (OutputFiles.h) checks every output of a run with it.
[[nodiscard]] Result<void> checkOutputPath(std::string_view what, const std::string& path);

/// An input file a command reads: its flag and path (empty: not given).
struct NamedInput {
    std::string_view flag;
    std::string_view path;
};
/// Refuses an output path that is the same file as one of `inputs` (by identity, so another
/// spelling or a link is caught too), so that writing can never replace an input, e.g.
/// "--state-out: 'c.json' is the same file as --config; give another path".
[[nodiscard]] Result<void> checkNotAnInput(std::string_view flag, const std::string& path,
                                           std::initializer_list<NamedInput> inputs);

}  // namespace fishschool
