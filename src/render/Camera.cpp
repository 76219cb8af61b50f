#include "Camera.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/vec4.hpp>

namespace fishschool::render {
namespace {

/// Below this width / height the tank's width, not its height, sets the distance.
constexpr float kNarrowMargin = 1.15f;

}  // namespace

void OrbitCamera::reset(const glm::vec3& bounds, bool fromAbove) {
    // From above: as steep as orbit() goes, so the view's up (along -z) stays defined.
    yaw_ = fromAbove ? 0.0f : 0.6f;
    pitch_ = fromAbove ? 1.5f : 0.35f;
    fit(bounds);
}

void OrbitCamera::fit(const glm::vec3& bounds) {
    target_ = glm::vec3(0.0f, -0.2f * bounds.y, 0.0f);
    const float radius = glm::length(bounds);
    // 2.1 radii fit the tank in the height; a framing narrower than that needs the width to
    // hold it, further away by the ratio (with a margin for the near corners' perspective).
    // A part of the window shorter than the window (the overlay's rows left out) takes the
    // tank that much smaller.
    const float narrow = std::max(1.0f, kNarrowMargin / framingAspect_) / framingHeightShare_;
    distance_ = 2.1f * radius * narrow;
    farPlane_ = 20.0f * radius * narrow;
    bounds_ = bounds;
    framed_ = true;
}

void OrbitCamera::setFraming(float aspect, float heightShare) {
    aspect = std::clamp(aspect, 0.1f, 10.0f);
    heightShare = std::clamp(heightShare, 0.1f, 1.0f);
    if (std::abs(aspect - framingAspect_) <= 0.01f * framingAspect_ &&
        std::abs(heightShare - framingHeightShare_) <= 0.01f * framingHeightShare_)
        return;
    framingAspect_ = aspect;
    framingHeightShare_ = heightShare;
    if (framed_) fit(bounds_);
}

void OrbitCamera::orbit(float dx, float dy) {
    framed_ = false;
    yaw_ += dx * 0.005f;
    pitch_ = std::clamp(pitch_ + dy * 0.005f, -1.5f, 1.5f);
}

void OrbitCamera::pan(float dx, float dy, float viewportHeight) {
    framed_ = false;
    const glm::vec3 forward = glm::normalize(target_ - eye());
    const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0, 1, 0)));
    const glm::vec3 up = glm::cross(right, forward);
    const float unitsPerPixel = 2.0f * distance_ *
                                std::tan(0.5f * glm::radians(kFieldOfViewDegrees)) /
                                std::max(viewportHeight, 1.0f);
    target_ += (-dx * right + dy * up) * unitsPerPixel;
}

void OrbitCamera::zoom(float steps) {
    framed_ = false;
    distance_ = std::clamp(distance_ * std::pow(0.9f, steps), 1.0f, farPlane_ * 0.5f);
}

void OrbitCamera::follow(const glm::vec3& point, float seconds) {
    if (!(seconds > 0.0f) || !std::isfinite(point.x + point.y + point.z)) return;
    framed_ = false;
    // Exponential smoothing: the same path whatever the frame rate.
    target_ = point + (target_ - point) * std::exp(-seconds / kFollowSeconds);
}

glm::vec3 OrbitCamera::eye() const {
    return target_ + distance_ * glm::vec3(std::cos(pitch_) * std::sin(yaw_), std::sin(pitch_),
                                           std::cos(pitch_) * std::cos(yaw_));
}

glm::vec3 OrbitCamera::forward() const {
    return glm::normalize(target_ - eye());
}

float OrbitCamera::focalPixels(float viewportHeight) const {
    return 0.5f * viewportHeight / std::tan(0.5f * glm::radians(kFieldOfViewDegrees));
}

glm::mat4 OrbitCamera::view() const {
    return glm::lookAt(eye(), target_, glm::vec3(0, 1, 0));
}

glm::mat4 OrbitCamera::projection(float aspect, glm::vec2 shift) const {
    const glm::mat4 lens = glm::translate(glm::mat4(1.0f), glm::vec3(shift, 0.0f));
    return lens * glm::perspective(glm::radians(kFieldOfViewDegrees), aspect,
                                   std::max(0.1f, distance_ * 0.01f), farPlane_);
}

glm::vec2 lensShift(glm::vec2 pixels, glm::vec2 size) {
    return {2.0f * pixels.x / std::max(size.x, 1.0f), -2.0f * pixels.y / std::max(size.y, 1.0f)};
}

std::vector<glm::vec2> boxCornersOnScreen(const OrbitCamera& camera, const glm::vec3& bounds,
                                          glm::vec2 size, glm::vec2 shift) {
    const glm::mat4 viewProjection =
        camera.projection(size.x / std::max(size.y, 1.0f), lensShift(shift, size)) * camera.view();
    std::vector<glm::vec2> corners;
    for (int corner = 0; corner < 8; ++corner) {
        const glm::vec3 p((corner & 1 ? 1.0f : -1.0f) * bounds.x,
                          (corner & 2 ? 1.0f : -1.0f) * bounds.y,
                          (corner & 4 ? 1.0f : -1.0f) * bounds.z);
        const glm::vec4 clip = viewProjection * glm::vec4(p, 1.0f);
        if (clip.w <= 0.0f) continue;
        corners.emplace_back((clip.x / clip.w + 1.0f) * 0.5f * size.x,
                             (1.0f - clip.y / clip.w) * 0.5f * size.y);
    }
    return corners;
}

}  // namespace fishschool::render
