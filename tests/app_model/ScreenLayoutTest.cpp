// The window's geometry: where the tank is framed beside the panel and clear of the overlay, and
// how much of a picture a rectangle covers.

#include <gtest/gtest.h>

#include <vector>

#include "app_model/ScreenLayout.h"

namespace fishschool::app {
namespace {

TEST(ScreenLayout, TheCoveredShareOfAPolygonIsExact) {
    const std::vector<glm::vec2> square =
        convexHull({{0.0f, 0.0f}, {10.0f, 0.0f}, {10.0f, 10.0f}, {0.0f, 10.0f}, {5.0f, 5.0f}});
    ASSERT_EQ(square.size(), 4u) << "the inner point is not on the hull";
    EXPECT_FLOAT_EQ(polygonArea(square), 100.0f);
    const ScreenRect left{-5.0f, -5.0f, 5.0f, 20.0f}, top{0.0f, 0.0f, 10.0f, 2.0f};
    EXPECT_DOUBLE_EQ(coveredShare(square, std::vector<ScreenRect>{left}), 0.5);
    // Two rectangles that overlap count their common part once: 50 + 20 - 10.
    EXPECT_NEAR(coveredShare(square, std::vector<ScreenRect>{left, top}), 0.6, 1e-6);
    EXPECT_DOUBLE_EQ(coveredShare(square, std::vector<ScreenRect>{{20.0f, 0.0f, 30.0f, 5.0f}}),
                     0.0);
    // A triangle half under a rectangle over its right half.
    const std::vector<glm::vec2> triangle =
        convexHull({{0.0f, 0.0f}, {10.0f, 0.0f}, {0.0f, 10.0f}});
    EXPECT_NEAR(coveredShare(triangle, std::vector<ScreenRect>{{5.0f, -1.0f, 20.0f, 20.0f}}), 0.25,
                1e-6);
}

TEST(ScreenLayout, TheTankIsFramedBesideThePanelAndClearOfASmallOverlay) {
    const ScreenRect window{0.0f, 0.0f, 1280.0f, 720.0f};
    const ScreenRect free = besideThePanel(window, 500.0f);
    EXPECT_EQ(free, (ScreenRect{500.0f, 0.0f, 1280.0f, 720.0f}));
    // A panel over most of the window leaves too little: the tank is framed in all of it.
    EXPECT_EQ(besideThePanel(window, 1100.0f), window);

    // Two lines at the top right: the rows under them.
    const ScreenRect compact = overlayRectAt(free, Corner::TopRight, {360.0f, 48.0f});
    EXPECT_EQ(compact, (ScreenRect{910.0f, 10.0f, 1270.0f, 58.0f}));
    EXPECT_EQ(framingRegion(free, compact), (ScreenRect{500.0f, 68.0f, 1280.0f, 720.0f}));
    // At the bottom left, the rows above it.
    const ScreenRect below = overlayRectAt(free, Corner::BottomLeft, {360.0f, 48.0f});
    EXPECT_EQ(framingRegion(free, below), (ScreenRect{500.0f, 0.0f, 1280.0f, 652.0f}));
    // A tall, narrow overlay: the columns beside it frame the tank larger.
    const ScreenRect tall = overlayRectAt(free, Corner::TopRight, {120.0f, 600.0f});
    EXPECT_EQ(framingRegion(free, tall), (ScreenRect{500.0f, 0.0f, 1140.0f, 720.0f}));
    // One that would leave less than half the tank's size: the tank is framed behind it.
    const ScreenRect huge = overlayRectAt(free, Corner::TopRight, {700.0f, 500.0f});
    EXPECT_EQ(framingRegion(free, huge), free);
    EXPECT_EQ(framingRegion(free, ScreenRect{}), free);
}

TEST(ScreenLayout, AFramingNarrowerThanTheTankIsSizedByItsWidth) {
    EXPECT_FLOAT_EQ(framedSize({0.0f, 0.0f, 1600.0f, 900.0f}), 900.0f);
    EXPECT_FLOAT_EQ(framedSize({0.0f, 0.0f, 460.0f, 600.0f}), 400.0f);
}

}  // namespace
}  // namespace fishschool::app
