// On software GL the fish's level of detail follows the frame's budget (DetailBudget.h).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "app_model/DetailBudget.h"

namespace fishschool::app {
namespace {

constexpr std::array<float, 2> kLevels = {9.0f, 6.0f};

/// `frames` frames of `ms` each; the thresholds after the last.
std::array<float, 2> frames(DetailBudget& budget, int count, double ms) {
    std::array<float, 2> levels = kLevels;
    for (int k = 0; k < count; ++k) levels = budget.add(ms, kLevels);
    return levels;
}

TEST(DetailBudget, SlowFramesCoarsenTheDetailStepByStepUpToTheCoarsest) {
    DetailBudget budget;
    EXPECT_EQ(frames(budget, DetailBudget::kFramesPerChange - 1, 45.0), kLevels);
    const auto once = frames(budget, 1, 45.0);
    EXPECT_FLOAT_EQ(once[0], 9.0f * DetailBudget::kStep);
    EXPECT_FLOAT_EQ(once[1], 6.0f * DetailBudget::kStep);
    frames(budget, 100 * DetailBudget::kFramesPerChange, 45.0);
    EXPECT_FLOAT_EQ(budget.scale(), DetailBudget::kMostScale);
}

TEST(DetailBudget, FastFramesGoBackToTheRenderersOwnDetailAndNoFiner) {
    DetailBudget budget;
    frames(budget, 4 * DetailBudget::kFramesPerChange, 45.0);
    ASSERT_GT(budget.scale(), 2.0f);
    // Within the budget but above its half: kept, so the levels do not flicker.
    const float kept = budget.scale();
    frames(budget, 4 * DetailBudget::kFramesPerChange, 15.0);
    EXPECT_EQ(budget.scale(), kept);
    EXPECT_EQ(frames(budget, 100 * DetailBudget::kFramesPerChange, 2.0), kLevels);
    EXPECT_EQ(budget.scale(), 1.0f);
}

TEST(DetailBudget, TheMeanOfAChangesFramesDecidesAndBadTimesAreIgnored) {
    DetailBudget budget;
    // One slow frame among fast ones: the mean (under the budget) keeps the detail.
    frames(budget, DetailBudget::kFramesPerChange - 1, 12.0);
    frames(budget, 1, 40.0);
    EXPECT_EQ(budget.scale(), 1.0f);
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), -1.0,
                       std::numeric_limits<double>::infinity()})
        frames(budget, 3 * DetailBudget::kFramesPerChange, bad);
    EXPECT_EQ(budget.scale(), 1.0f);
}

}  // namespace
}  // namespace fishschool::app
