#include "Messages.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

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

/// The code point of the well-formed UTF-8 sequence `piece`.
char32_t codePoint(std::string_view piece) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(piece[i]); };
    if (piece.size() == 2) return char32_t(byte(0) & 0x1F) << 6 | (byte(1) & 0x3F);
    if (piece.size() == 3)
        return char32_t(byte(0) & 0x0F) << 12 | char32_t(byte(1) & 0x3F) << 6 | (byte(2) & 0x3F);
    return char32_t(byte(0) & 0x07) << 18 | char32_t(byte(1) & 0x3F) << 12 |
           char32_t(byte(2) & 0x3F) << 6 | (byte(3) & 0x3F);
}

/// Characters that print nothing yet change what a terminal shows: the byte order mark and
/// zero-width ones (U+FEFF, U+200B to U+200F), the bidirectional marks, embeddings, overrides
/// and isolates (U+061C, U+202A to U+202E, U+2066 to U+2069) that reorder the text around them,
/// and the line and paragraph separators (U+2028, U+2029).
bool isInvisibleFormat(char32_t c) {
    return c == 0xFEFF || (c >= 0x200B && c <= 0x200F) || c == 0x061C ||
           (c >= 0x2028 && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
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
        char escaped[12] = "";
        if (c == '\n' || c == '\t' || c == '\r') {
            std::snprintf(escaped, sizeof escaped, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
        } else if (c >= 0x80) {
            if (const std::size_t n = printableUtf8Length(text.substr(i))) {
                piece = text.substr(i, n);
                if (const char32_t point = codePoint(piece); isInvisibleFormat(point))
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(point));
            } else {
                std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            }
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

std::string beyondFloatRange() {
    const std::string most = formatNumber(std::numeric_limits<float>::max());
    return "is beyond the range of a float (-" + most + " to " + most + ")";
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

}  // namespace fishschool
