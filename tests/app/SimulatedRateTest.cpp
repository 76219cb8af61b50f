// The overlay's real rate of simulated time (it said "x1" while the school ran at a
// third of real time).

#include <gtest/gtest.h>

#include "app/SimulatedRate.h"

namespace fishschool::app {
namespace {

TEST(SimulatedRate, MeasuresSimulatedSecondsPerWallSecondOverItsWindow) {
    SimulatedRate rate(2.0);
    EXPECT_FALSE(rate.rate()) << "no rate before any time has passed";
    // 60 frames a second, a third of a frame's time simulated in each.
    for (int frame = 0; frame <= 180; ++frame) rate.add(frame / 60.0, frame / 180.0);
    ASSERT_TRUE(rate.rate());
    EXPECT_NEAR(*rate.rate(), 1.0 / 3.0, 1e-9);
    EXPECT_TRUE(rate.behind(1.0));
    EXPECT_FALSE(rate.behind(0.25));
    // Then at full speed: once the window has passed, the slow part is forgotten.
    for (int frame = 181; frame <= 420; ++frame) rate.add(frame / 60.0, 1.0 + (frame - 180) / 60.0);
    EXPECT_NEAR(*rate.rate(), 1.0, 1e-9);
    EXPECT_FALSE(rate.behind(1.0));
}

TEST(SimulatedRate, ANewSchoolOrAPauseStartsAgain) {
    SimulatedRate rate(2.0);
    for (int frame = 0; frame <= 120; ++frame) rate.add(frame / 60.0, frame / 60.0);
    ASSERT_TRUE(rate.rate());
    rate.add(2.1, 0.0);  // reset: the clock went back
    EXPECT_FALSE(rate.rate());
    for (int frame = 0; frame <= 120; ++frame) rate.add(3.0 + frame / 60.0, 5.0);
    EXPECT_NEAR(*rate.rate(), 0.0, 1e-12);
    rate.restart();
    EXPECT_FALSE(rate.rate());
    EXPECT_FALSE(rate.behind(1.0)) << "no measure is not behind";
}

}  // namespace
}  // namespace fishschool::app
