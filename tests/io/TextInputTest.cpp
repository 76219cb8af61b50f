#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "fishschool/SimParams.h"
#include "io/OutputFiles.h"
#include "io/TextInput.h"

namespace fishschool {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TextInput, SplitsAListAndRefusesEmptyItems) {
    EXPECT_THAT(*splitList("--backend", "cpu,tbb,gpu"), ElementsAre("cpu", "tbb", "gpu"));
    EXPECT_THAT(*splitList("--backend", "cpu"), ElementsAre("cpu"));
    for (const char* bad : {"", ",", "cpu,", ",cpu", "cpu,,tbb"}) {
        const auto items = splitList("--backend", bad);
        ASSERT_FALSE(items) << bad;
        EXPECT_THAT(items.error(), HasSubstr("--backend")) << bad;
        EXPECT_THAT(items.error(), HasSubstr("empty item")) << bad;
    }
}

TEST(TextInput, FishCountsAreWholeNumbersInRange) {
    EXPECT_THAT(*parseFishCounts("--sweep", "0,100,16000000"), ElementsAre(0, 100, 16'000'000));
    for (const char* bad : {"10x", "x", "-1", "2.5", " 10", "16000001", "99999999999999999999"}) {
        const auto counts = parseFishCounts("--sweep", bad);
        ASSERT_FALSE(counts) << bad;
        EXPECT_THAT(counts.error(), HasSubstr("--sweep: '")) << bad;
        EXPECT_THAT(counts.error(), HasSubstr("16000000")) << bad;
    }
    const auto zero = parseFishCounts("--fish", "0", 1);
    ASSERT_FALSE(zero);
    EXPECT_THAT(zero.error(), HasSubstr("from 1 to"));
}

TEST(TextInput, WholeNumbersArePlainDecimalDigitsInRange) {
    EXPECT_EQ(*parseWholeNumber("--steps", "0", 0, 10), 0);
    EXPECT_EQ(*parseWholeNumber("--steps", "10", 0, 10), 10);
    EXPECT_EQ(*parseWholeNumber("--x", "-5", -5, 5), -5);
    EXPECT_EQ(*parseWholeNumber("--x", "9223372036854775807", 0, INT64_MAX), INT64_MAX);
    for (const char* bad : {"", " 5", "5 ", "+5", "0x10", "1e3", "2.5", "5x", "-", "--5", "11",
                            "-1", "99999999999999999999", "\t5"}) {
        const auto n = parseWholeNumber("--steps", bad, 0, 10);
        ASSERT_FALSE(n) << bad;
        EXPECT_EQ(n.error(), "--steps: " + quote(bad) +
                                 " is not allowed; must be a whole number from 0 to 10");
    }
    // CLI11 names the flag itself: without a name the message starts at the value.
    EXPECT_EQ(parseWholeNumber("", "x", 1, 2).error(),
              "'x' is not allowed; must be a whole number from 1 to 2");
    EXPECT_EQ(*parseUnsigned64("--seed", "18446744073709551615"), UINT64_MAX);
    // "-0" is 0 for every whole number, as a JSON config reads it.
    EXPECT_EQ(*parseUnsigned64("--seed", "-0"), 0u);
    EXPECT_EQ(*parseUnsigned64("--seed", "-000"), 0u);
    EXPECT_EQ(*parseWholeNumber("--fish", "-0", 0, 10), 0);
    for (const char* bad : {"", "-1", "-", "-01", "18446744073709551616", "0x5", " 1"}) {
        const auto n = parseUnsigned64("--seed", bad);
        ASSERT_FALSE(n) << bad;
        EXPECT_THAT(n.error(), HasSubstr("from 0 to 18446744073709551615")) << bad;
    }
}

TEST(TextInput, NumbersInMessagesAreShortAndReadBackTheSame) {
    // A float product such as maxVelocity * dt is written as the user would write it.
    EXPECT_EQ(formatNumber(0.05f), "0.05");
    EXPECT_EQ(formatNumber(1.0f * 0.05f), "0.05");
    EXPECT_EQ(formatNumber(0.1), "0.1");
    EXPECT_EQ(formatNumber(0.1 + 0.2), "0.3");  // a double sum: the float it stands for
    EXPECT_EQ(formatNumber(1e6f), "1000000");
    EXPECT_EQ(formatNumber(16777216.0), "16777216");
    EXPECT_EQ(formatNumber(-3.0), "-3");
    // Beyond 2^24 a float's whole value has digits nobody typed: 1e14f is 100000000376832.
    EXPECT_EQ(formatNumber(1e14f), "1e+14");
    EXPECT_EQ(formatNumber(3e10f), "3e+10");
    EXPECT_EQ(formatNumber(1.5e-7f), "1.5e-07");
    EXPECT_EQ(formatNumber(std::numeric_limits<float>::max()), "3.4028235e+38");
    EXPECT_EQ(formatNumber(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(formatNumber(1.0f / 3.0f), "0.33333334");
    // As many digits as it takes to read back the same float, and never more than 9.
    for (const float f : {1.0f / 3.0f, 3.14159265f, std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::denorm_min(), 0.0166666675f, 123456.789f}) {
        const std::string text = formatNumber(f);
        EXPECT_EQ(std::strtof(text.c_str(), nullptr), f) << text;
        std::string digits;
        for (const char c : text.substr(0, text.find('e')))
            if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits += c;
        EXPECT_LE(digits.size(), 9u) << text;
    }
    // A double beyond a float's range reads back as the same double.
    for (const double d : {1e300, -2.5e-310, 1.2345678901234567e200}) {
        EXPECT_EQ(std::strtod(formatNumber(d).c_str(), nullptr), d) << formatNumber(d);
    }
}

TEST(TextInput, TheFirstUnknownFlagIsFoundBeforeTheEndOfTheFlags) {
    const auto known = [](std::string_view name) { return name == "--steps" || name == "-h"; };
    using Args = std::vector<std::string_view>;
    EXPECT_EQ(firstUnknownFlag(Args{"--steps", "5", "-h"}, known), std::nullopt);
    EXPECT_EQ(firstUnknownFlag(Args{"--steps=5", "--step", "5"}, known), "--step");
    // Negative numbers and words after a '-' are values, and "--" ends the flags.
    EXPECT_EQ(firstUnknownFlag(Args{"--steps", "-4", "-.5", "-inf", "--", "--nope"}, known),
              std::nullopt);
    EXPECT_EQ(firstUnknownFlag(Args{"-x"}, known), "-x");
    EXPECT_EQ(firstUnknownFlag(Args{"-", "file"}, known), std::nullopt);
}

TEST(TextInput, AnUnknownFlagIsNamedWithTheClosestWhenItIsNear) {
    const std::vector<std::string> flags{"--steps", "--state-out", "--state-in", "--seed"};
    EXPECT_EQ(unknownFlagMessage("--sate-out", flags, "x simulate"),
              "unknown flag '--sate-out'; did you mean --state-out? (see x simulate --help)");
    EXPECT_EQ(unknownFlagMessage("--stpes", flags, "x"),
              "unknown flag '--stpes'; did you mean --steps? (see x --help)");
    // Five letters from the closest: no guess.
    EXPECT_EQ(unknownFlagMessage("--zzzzz", flags, "x"), "unknown flag '--zzzzz' (see x --help)");
    EXPECT_EQ(unknownFlagMessage("--s", {}, "x"), "unknown flag '--s' (see x --help)");
    // A huge or hostile flag is quoted as every value is: cut and escaped.
    const std::string huge = "--" + std::string(100000, 'a') + "\x1b";
    EXPECT_LT(unknownFlagMessage(huge, flags, "x").size(), 200u);
}

TEST(TextInput, QuotedTextIsCutShort) {
    EXPECT_EQ(quote("abc"), "'abc'");
    EXPECT_EQ(quote(std::string(40, 'a')), "'" + std::string(40, 'a') + "'");
    EXPECT_EQ(quote(std::string(1000, 'a'), 4), "'aaaa...' (1000 characters)");
    EXPECT_LE(parseFishCount("--fish", std::string(100'000, '9')).error().size(), 300u);
}

TEST(TextInput, AnOutputMayNotBeAnInputUnderAnySpelling) {
    const auto dir = std::filesystem::temp_directory_path() / "fishschool-same-file-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "sub");
    const std::string config = (dir / "c.json").string();
    std::ofstream(config) << "{}";
    std::filesystem::create_symlink(config, dir / "link.json");
    for (const std::string& same :
         {config, (dir / "sub" / ".." / "c.json").string(), (dir / "link.json").string()}) {
        const auto refused = checkNotAnInput("--state-out", same, {{"--config", config}});
        ASSERT_FALSE(refused) << same;
        EXPECT_THAT(refused.error(), HasSubstr("is the same file as --config")) << same;
    }
    EXPECT_TRUE(checkNotAnInput("--state-out", (dir / "new.csv").string(), {{"--config", config}}));
    EXPECT_TRUE(checkNotAnInput("--state-out", config, {{"--config", ""}}));
    std::filesystem::remove_all(dir);
}

TEST(TextInput, AnOutputPathNeedsAWritableFolder) {
    const auto dir = std::filesystem::temp_directory_path() / "fishschool-text-input-test";
    std::filesystem::create_directories(dir);
    EXPECT_TRUE(checkOutputPath("--csv", (dir / "out.csv").string()));
    const auto missing = checkOutputPath("--csv", (dir / "nope" / "out.csv").string());
    ASSERT_FALSE(missing);
    EXPECT_THAT(missing.error(), HasSubstr("does not exist"));
    const auto folder = checkOutputPath("--csv", dir.string());
    ASSERT_FALSE(folder);
    EXPECT_THAT(folder.error(), HasSubstr("is a folder"));
    EXPECT_FALSE(checkOutputPath("--csv", ""));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fishschool
