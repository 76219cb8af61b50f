#include "TextInput.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace fishschool {

namespace {

/// "what: message", or the message alone where the caller (e.g. CLI11) names the flag itself.
std::string named(std::string_view what, const std::string& message) {
    return what.empty() ? message : std::string(what) + ": " + message;
}

/// Decimal digits with an optional leading '-' and nothing else; from_chars alone would take
/// "5x" as far as it reads and leaves no room for a range in the message.
template <class Int>
bool readDecimal(std::string_view text, Int& value) {
    const std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
        return false;
    // "-0" is 0 for every whole number, signed or not, as a JSON config reads it.
    if (digits.find_first_not_of('0') == std::string_view::npos) {
        value = 0;
        return true;
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<std::int64_t> parseWholeNumber(std::string_view what, std::string_view text,
                                      std::int64_t min, std::int64_t max) {
    std::int64_t n = 0;
    if (!readDecimal(text, n) || n < min || n > max)
        return fail(named(what, quote(text) + " is not allowed; must be a whole number from " +
                                    std::to_string(min) + " to " + std::to_string(max)));
    return n;
}

Result<std::uint64_t> parseUnsigned64(std::string_view what, std::string_view text) {
    std::uint64_t n = 0;
    if (!readDecimal(text, n))
        return fail(named(what, quote(text) + " is not allowed; must be a whole number from 0 to " +
                                    std::to_string(std::numeric_limits<std::uint64_t>::max())));
    return n;
}

Result<double> parseFiniteNumber(std::string_view what, std::string_view text) {
    double value = 0.0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    const std::string refused = named(what, quote(text) + " is not allowed; ");
    if (!text.empty() && error == std::errc::result_out_of_range && stop == end) {
        // Out of range either way: too large, or too small to be told from 0 (strtod says which).
        const bool large = std::fabs(std::strtod(std::string(text).c_str(), nullptr)) >= 1.0;
        return fail(refused + (large ? "it is beyond the range of a double (about 1.8e308)"
                                     : "it is too close to 0 for a double (2.2e-308 in size "
                                       "at least); give 0 or a number further from 0"));
    }
    if (text.empty() || error != std::errc() || stop != end || !std::isfinite(value))
        return fail(refused + "must be a finite decimal number");
    return value;
}

Result<std::vector<std::string>> splitList(std::string_view what, std::string_view text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item =
            text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
        if (item.empty())
            return fail(std::string(what) + ": " + quote(text) +
                        " has an empty item; give comma-separated values");
        items.emplace_back(item);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return items;
}

Result<std::int64_t> parseFishCount(std::string_view what, std::string_view text,
                                    std::int64_t min) {
    auto n = parseWholeNumber(what, text, min, kMaxFishCount);
    if (!n)
        return fail(std::string(what) + ": " + quote(text) +
                    " is not allowed; fishCount must be a whole number from " +
                    std::to_string(min) + " to " + std::to_string(kMaxFishCount));
    return n;
}

Result<std::vector<std::int64_t>> parseFishCounts(std::string_view what, std::string_view text,
                                                  std::int64_t min) {
    return parseList(what, text,
                     [&](std::string_view item) { return parseFishCount(what, item, min); });
}

Result<NeighborSearch> parseNeighborSearchFlag(std::string_view flag, std::string_view text) {
    if (const auto search = parseEnum<NeighborSearch>(text)) return *search;
    return fail(std::string(flag) + ": " + quote(text) +
                " is not allowed; must be all-pairs or grid");
}

Result<std::vector<NeighborSearch>> parseNeighborSearchList(std::string_view flag,
                                                            std::string_view text) {
    return parseList(flag, text,
                     [&](std::string_view item) { return parseNeighborSearchFlag(flag, item); });
}

std::optional<std::string> firstUnknownFlag(const std::vector<std::string_view>& args,
                                            const std::function<bool(std::string_view)>& isKnown) {
    for (const std::string_view arg : args) {
        if (arg == "--") break;
        // "--name" or "-n": "-4", "-inf" and "-" are values.
        const bool longFlag = arg.size() > 2 && arg.starts_with("--");
        const bool shortFlag =
            arg.size() == 2 && arg[0] == '-' &&
            ((arg[1] >= 'a' && arg[1] <= 'z') || (arg[1] >= 'A' && arg[1] <= 'Z'));
        if (!longFlag && !shortFlag) continue;
        const std::string_view name = arg.substr(0, arg.find('='));
        if (!isKnown(name)) return std::string(name);
    }
    return std::nullopt;
}

std::string unknownFlagMessage(std::string_view flag, const std::vector<std::string>& flags,
                               std::string_view helpCommand) {
    // Levenshtein distance, one row at a time.
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<std::size_t> row(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (std::size_t i = 1; i <= a.size(); ++i) {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                const std::size_t above = row[j];
                row[j] = std::min(
                    {row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0u : 1u)});
                diagonal = above;
            }
        }
        return row[b.size()];
    };
    // A flag of the command is meant when it is at most a third of its letters away.
    const std::string_view typed = flag.substr(0, 64);
    const std::string* closest = nullptr;
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (const std::string& candidate : flags) {
        const std::size_t d = distance(typed, candidate);
        if (d < best) {
            best = d;
            closest = &candidate;
        }
    }
    std::string message = "unknown flag " + quote(flag);
    if (closest && best * 3 <= closest->size()) message += "; did you mean " + *closest + "?";
    return message + " (see " + std::string(helpCommand) + " --help)";
}

}  // namespace fishschool
