// How messages show values a user gave (core/Messages.h): nothing reaches the terminal that
// could change what it shows.

#include <gtest/gtest.h>

#include "core/Messages.h"

namespace fishschool {
namespace {

TEST(Messages, InvisibleAndReorderingCharactersAreEscaped) {
    // A byte order mark, a zero-width space, a right-to-left override and an isolate.
    EXPECT_EQ(quote("\xEF\xBB\xBF"
                    "a.json"),
              "'\\ufeffa.json'");
    EXPECT_EQ(quote("a\xE2\x80\x8B"
                    "b"),
              "'a\\u200bb'");
    EXPECT_EQ(printable("evil\xE2\x80\xAEtxt.exe", 100), "evil\\u202etxt.exe");
    EXPECT_EQ(printable("x\xE2\x81\xA6y", 100), "x\\u2066y");
    // Visible characters beyond ASCII stay as they are.
    EXPECT_EQ(quote("Fisch\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x90\x9F"),
              "'Fisch\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x90\x9F'");
    // An escape counts its width against the limit, as the others do.
    EXPECT_EQ(printable(std::string(3, 'a') + "\xEF\xBB\xBF", 8), "aaa... (6 characters)");
}

}  // namespace
}  // namespace fishschool
