#include "TextInput.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

#include "ExitStatus.h"
#include "SimParams.h"

namespace fishschool {

namespace {

/// The length of the well-formed UTF-8 sequence at the start of `text` that is not a control
/// character (C1 controls such as U+009B are escape sequences too), or 0.
std::size_t printableUtf8Length(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(0);
    std::size_t length = 0;
    if (lead >= 0xC2 && lead <= 0xDF)
        length = 2;
    else if (lead >= 0xE0 && lead <= 0xEF)
        length = 3;
    else if (lead >= 0xF0 && lead <= 0xF4)
        length = 4;
    if (length == 0 || text.size() < length) return 0;
    for (std::size_t i = 1; i < length; ++i)
        if ((byte(i) & 0xC0) != 0x80) return 0;
    // Overlong forms, UTF-16 surrogates and values past U+10FFFF are not UTF-8.
    if ((lead == 0xE0 && byte(1) < 0xA0) || (lead == 0xED && byte(1) > 0x9F) ||
        (lead == 0xF0 && byte(1) < 0x90) || (lead == 0xF4 && byte(1) > 0x8F))
        return 0;
    if (lead == 0xC2 && byte(1) <= 0x9F) return 0;  // U+0080 to U+009F: C1 controls
    return length;
}

/// printable() without its "... (N characters)": the characters shown, and whether all were.
std::pair<std::string, bool> escapedPrefix(std::string_view text, std::size_t maxChars) {
    std::string out;
    std::size_t shown = 0;  // characters shown so far: a UTF-8 character counts as one
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::string_view piece = text.substr(i, 1);  // the bytes this character takes
        std::size_t width = 1;
        char escaped[8] = "";
        if (c == '\n' || c == '\t' || c == '\r') {
            std::snprintf(escaped, sizeof escaped, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
        } else if (c >= 0x80) {
            if (const std::size_t n = printableUtf8Length(text.substr(i)))
                piece = text.substr(i, n);
            else
                std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
        } else if (c < 0x20 || c == 0x7F) {
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
        }
        if (escaped[0] != '\0') width = std::strlen(escaped);
        if (shown + width > maxChars) break;
        out.append(escaped[0] != '\0' ? std::string_view(escaped) : piece);
        shown += width;
        i += piece.size();
    }
    return {out, i == text.size()};
}

}  // namespace

std::string printable(std::string_view text, std::size_t maxChars) {
    auto [shown, whole] = escapedPrefix(text, maxChars);
    if (whole) return shown;
    return shown.append("... (").append(std::to_string(text.size())).append(" characters)");
}

std::string quote(std::string_view text, std::size_t maxChars) {
    const auto [shown, whole] = escapedPrefix(text, maxChars);
    if (whole) return "'" + shown + "'";
    // The count outside the quotes: it is not part of the value.
    return "'" + shown + "...' (" + std::to_string(text.size()) + " characters)";
}

void printError(std::string_view message) {
    // Room for "error: " and printable()'s "... (N characters)".
    const std::string line = "error: " + printable(message, kMaxMessageChars - 40) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
}

int badInput(std::string_view message) {
    printError(message);
    return kExitBadInput;
}

int internalFailure(std::string_view message) {
    printError(message);
    return kExitInternal;
}

std::string formatNumber(double value) {
    char text[40];
    if (value == 0.0) value = 0.0;  // -0 shows as 0: it is the same value everywhere here
    if (!std::isfinite(value)) {
        std::snprintf(text, sizeof text, "%g", value);
        return text;
    }
    // Whole numbers in full ("1000000", not "1e+06"), as a user types them, while a float holds
    // them exactly (2^24); beyond that the float's exact value would show digits nobody typed.
    if (std::nearbyint(value) == value && std::fabs(value) <= 16777216.0) {
        std::snprintf(text, sizeof text, "%.0f", value);
        return text;
    }
    // The simulation's numbers are floats: the fewest digits (at most 9) that read back as the
    // same float, so 0.05f prints as "0.05", not "0.0500000007". Beyond a float's range (a double
    // such as 1e300 or 1e-300), the fewest that read back as the same double.
    constexpr double kFloatMax = std::numeric_limits<float>::max();
    const bool asFloat = std::fabs(value) <= kFloatMax && (value == 0.0 || float(value) != 0.0f);
    const int maxDigits = asFloat ? std::numeric_limits<float>::max_digits10
                                  : std::numeric_limits<double>::max_digits10;
    for (int digits = 1; digits < maxDigits; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, value);
        if (asFloat ? std::strtof(text, nullptr) == float(value)
                    : std::strtod(text, nullptr) == value)
            return text;
    }
    std::snprintf(text, sizeof text, "%.*g", maxDigits, value);
    return text;
}

std::string formatPoint(const glm::vec3& p) {
    std::string text = "(";
    return text.append(formatNumber(p.x))
        .append(", ")
        .append(formatNumber(p.y))
        .append(", ")
        .append(formatNumber(p.z))
        .append(")");
}

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

Result<std::optional<std::int64_t>> gpuMaxBufferBytes() {
    const char* value = std::getenv(kGpuMaxBufferBytesVariable);
    if (value == nullptr) return std::nullopt;
    auto bytes = parseWholeNumber(kGpuMaxBufferBytesVariable, value, 1,
                                  std::numeric_limits<std::int64_t>::max());
    if (!bytes) return fail(bytes.error() + " (bytes)");
    return *bytes;
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
    if (const auto search = parseNeighborSearch(text)) return *search;
    return fail(std::string(flag) + ": " + quote(text) +
                " is not allowed; must be all-pairs or grid");
}

Result<std::vector<NeighborSearch>> parseNeighborSearchList(std::string_view flag,
                                                            std::string_view text) {
    return parseList(flag, text,
                     [&](std::string_view item) { return parseNeighborSearchFlag(flag, item); });
}

Result<void> checkOutputPath(std::string_view what, const std::string& path) {
    namespace fs = std::filesystem;
    const std::string where = std::string(what) + ": " + quote(path, 160) + ": ";
    if (path.empty()) return fail(std::string(what) + ": an empty file name is not allowed");
    std::error_code ec;
    if (fs::is_directory(path, ec)) return fail(where + "is a folder; give a file name");
    fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) folder = ".";
    const std::string folderName = quote(folder.string(), 120);  // both fit a 400-character line
    if (!fs::is_directory(folder, ec))
        return fail(where + "the folder " + folderName + " does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        return fail(where + "the folder " + folderName + " is not writable");
    // A name the file system cannot hold is found now, not when the run's output is renamed.
    const long nameMax = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    const std::size_t nameLength = fs::path(path).filename().string().size();
    struct stat info {};
    if ((nameMax > 0 && nameLength > static_cast<std::size_t>(nameMax)) ||
        (::stat(path.c_str(), &info) != 0 && errno == ENAMETOOLONG))
        return fail(where + "the name is too long for the file system (" +
                    std::to_string(nameLength) + " bytes; at most " + std::to_string(nameMax) +
                    " a name, " + std::to_string(PATH_MAX) + " a path)");
    // The file is replaced by a rename: a device, a FIFO or a socket in its place would be
    // replaced by a regular file (as root, /dev/null itself).
    if (::stat(path.c_str(), &info) != 0) return {};  // a new file
    if (!S_ISREG(info.st_mode))
        return fail(where +
                    "is not a regular file (a device, a FIFO or a socket); give a file's "
                    "path");
    // The file the shell sent this program's stdout or stderr to (as /dev/stdout, or by its
    // name): the rename would replace what the program and the shell wrote there.
    for (const int stream : {STDOUT_FILENO, STDERR_FILENO}) {
        struct stat streamInfo {};
        if (::fstat(stream, &streamInfo) == 0 && streamInfo.st_dev == info.st_dev &&
            streamInfo.st_ino == info.st_ino)
            return fail(where + "is where this program's standard " +
                        (stream == STDOUT_FILENO ? "output" : "error") +
                        " goes; give a file of its own");
    }
    return {};
}

Result<void> checkNotAnInput(std::string_view flag, const std::string& path,
                             std::initializer_list<NamedInput> inputs) {
    for (const NamedInput& input : inputs) {
        if (input.path.empty() || path.empty()) continue;
        std::error_code ec;
        // False, with an error, while the output does not exist yet: it cannot be the input.
        if (std::filesystem::equivalent(path, input.path, ec))
            return fail(std::string(flag) + ": " + quote(path, 200) + " is the same file as " +
                        std::string(input.flag) + "; give another path");
    }
    return {};
}

}  // namespace fishschool
