#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <glm/vec3.hpp>

namespace fishschool {

// How every message shows a value: the model's checks, the readers of files and flags, and both
// programs quote, cut and format with these, so the same value reads the same everywhere.

/// `text` as a message may show it: control characters, escape sequences and bytes that are not
/// UTF-8 written as `\n`, `\x1b`, ..., so that no input reaches the terminal raw; cut to at most
/// `maxChars` characters (with "...") so that a huge input never makes a huge message.
std::string printable(std::string_view text, std::size_t maxChars);

/// `text` in single quotes for an error message, as printable() writes it: the one way a value a
/// user gave is quoted, e.g. "'0x10'", "'ab\x1b[31m'", "'aaaa...' (120000 characters)".
std::string quote(std::string_view text, std::size_t maxChars = 40);

/// The longest error line the programs print (the values it quotes are cut shorter).
inline constexpr std::size_t kMaxMessageChars = 400;

/// A number as messages and the phase CSV write it: the fewest digits (at most 9) that read back
/// as the same float, whole numbers up to 2^24 in full: "0.05", "1000000", "1e+14",
/// "3.4028235e+38".
std::string formatNumber(double value);
/// Why a number is refused for a float, naming the range a float holds: "is beyond the range of
/// a float (-3.4028235e+38 to 3.4028235e+38)". Every reader of floats (config keys, varied values,
/// state files) says it so.
std::string beyondFloatRange();
/// A point as messages write it: "(x, y, z)", each as formatNumber.
std::string formatPoint(const glm::vec3& p);

}  // namespace fishschool
