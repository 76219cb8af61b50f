// The orbit camera's framing (at 800 x 600 the panel left one corner of the tank in
// view, and C did not frame it in the rest).

#include <gtest/gtest.h>

#include <cmath>

#include <glm/geometric.hpp>
#include <glm/vec4.hpp>

#include "render/Camera.h"

namespace fishschool::render {
namespace {

/// The largest |x| and |y| of the tank's corners on screen, in normalized device coordinates of
/// a view `aspect` wide: within 1 the whole tank is in view.
glm::vec2 cornersExtent(const OrbitCamera& camera, const glm::vec3& bounds, float aspect) {
    const glm::mat4 viewProjection = camera.projection(aspect) * camera.view();
    glm::vec2 extent(0.0f);
    for (int corner = 0; corner < 8; ++corner) {
        const glm::vec3 p((corner & 1 ? 1.0f : -1.0f) * bounds.x,
                          (corner & 2 ? 1.0f : -1.0f) * bounds.y,
                          (corner & 4 ? 1.0f : -1.0f) * bounds.z);
        const glm::vec4 clip = viewProjection * glm::vec4(p, 1.0f);
        extent = glm::max(extent, glm::abs(glm::vec2(clip) / clip.w));
    }
    return extent;
}

TEST(OrbitCamera, TheTankIsFramedInTheShapeLeftBesideThePanel) {
    const glm::vec3 tank(60.0f, 25.0f, 40.0f);
    // 800 x 600 with a panel of 320 pixels: 480 x 600 to frame the tank in.
    for (const float aspect : {16.0f / 9.0f, 480.0f / 600.0f, 0.4f}) {
        OrbitCamera camera;
        camera.setFraming(aspect);
        camera.reset(tank);
        const glm::vec2 extent = cornersExtent(camera, tank, aspect);
        EXPECT_LE(extent.x, 1.0f) << "a tank's side is cut off at aspect " << aspect;
        EXPECT_LE(extent.y, 1.0f) << "the tank's top or bottom is cut off at aspect " << aspect;
    }
}

TEST(OrbitCamera, AFramedCameraFollowsTheFramingAMovedOneStays) {
    const glm::vec3 tank(60.0f, 25.0f, 40.0f);
    OrbitCamera camera;
    camera.reset(tank);
    const float wide = camera.distance();
    camera.setFraming(0.5f);  // the panel opened in a small window
    EXPECT_GT(camera.distance(), wide);
    EXPECT_LE(cornersExtent(camera, tank, 0.5f).x, 1.0f);
    camera.zoom(3.0f);
    ASSERT_FALSE(camera.framed());
    const float zoomed = camera.distance();
    camera.setFraming(1.5f);
    EXPECT_EQ(camera.distance(), zoomed) << "the user's own view was moved";
    camera.reset(tank);  // key C
    EXPECT_TRUE(camera.framed());
    EXPECT_LE(cornersExtent(camera, tank, 1.5f).x, 1.0f);
}

TEST(OrbitCamera, TheTankIsFramedInAPartOfTheWindowWithTheLensShifted) {
    // 1280 x 720 with the panel's 500 columns and the overlay's top 100 rows left out.
    const glm::vec3 tank(40.0f, 20.0f, 40.0f);
    const glm::vec2 window(1280.0f, 720.0f);
    const glm::vec2 lo(500.0f, 100.0f), hi(1280.0f, 720.0f);
    OrbitCamera camera;
    camera.setFraming((hi.x - lo.x) / (hi.y - lo.y), (hi.y - lo.y) / window.y);
    camera.reset(tank);
    const glm::vec2 shift = 0.5f * (lo + hi) - 0.5f * window;
    const auto corners = boxCornersOnScreen(camera, tank, window, shift);
    ASSERT_EQ(corners.size(), 8u);
    glm::vec2 least(1e9f), most(-1e9f);
    for (const glm::vec2 corner : corners) {
        least = glm::min(least, corner);
        most = glm::max(most, corner);
    }
    EXPECT_GE(least.x, lo.x);
    EXPECT_GE(least.y, lo.y);
    EXPECT_LE(most.x, hi.x);
    EXPECT_LE(most.y, hi.y);
    // Centred there, and not drawn small: more than half of the part's height.
    EXPECT_NEAR(0.5f * (least.x + most.x), 0.5f * (lo.x + hi.x), 0.1f * (hi.x - lo.x));
    EXPECT_GT(most.y - least.y, 0.5f * (hi.y - lo.y));
}

TEST(OrbitCamera, AFollowingCameraClosesOnThePointAtItsAngleAndDistance) {
    OrbitCamera camera;
    camera.reset({40.0f, 20.0f, 40.0f});
    const glm::vec3 point(5000.0f, -30.0f, 200.0f);
    const glm::vec3 offset = camera.eye() - camera.target();
    // Sixty frames of 1/60 s or three of 1/3 s: the same place after a second.
    OrbitCamera fast = camera, slow = camera;
    for (int frame = 0; frame < 60; ++frame) fast.follow(point, 1.0f / 60.0f);
    for (int frame = 0; frame < 3; ++frame) slow.follow(point, 1.0f / 3.0f);
    EXPECT_LT(glm::length(fast.target() - slow.target()), 1e-2f * glm::length(point));
    const float left = std::exp(-1.0f / OrbitCamera::kFollowSeconds);
    EXPECT_NEAR(glm::length(fast.target() - point), left * glm::length(point - camera.target()),
                1.0f);
    for (int frame = 0; frame < 600; ++frame) fast.follow(point, 1.0f / 60.0f);
    EXPECT_LT(glm::length(fast.target() - point), 1e-5f * glm::length(point));  // float
    EXPECT_LT(glm::length((fast.eye() - fast.target()) - offset), 1e-3f) << "angle and distance";
    EXPECT_FALSE(fast.framed());
    // A point not there (NaN) or no time leaves it where it is.
    const glm::vec3 before = fast.target();
    fast.follow(glm::vec3(std::nanf("")), 0.1f);
    fast.follow(glm::vec3(0.0f), 0.0f);
    EXPECT_EQ(fast.target(), before);
}

}  // namespace
}  // namespace fishschool::render
