#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/SimParams.h"
#include "core/TextInput.h"

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
