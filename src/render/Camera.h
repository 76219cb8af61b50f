#pragma once

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

namespace fishschool::render {

/// An orbit camera around a target: drag to orbit, drag to pan, wheel to zoom.
class OrbitCamera {
  public:
    /// Frames a tank of half extents `bounds` from the default angle, in the framing aspect, or
    /// straight from above (a flat school, in the plane y = 0).
    void reset(const glm::vec3& bounds, bool fromAbove = false);
    /// Frames a tank of half extents `bounds` from the current angle (the tank was resized).
    void fit(const glm::vec3& bounds);
    /// The width / height of the part of the window the tank is framed in: beside the panel,
    /// so a narrow one (a small window) frames it from further away. A camera that framed the
    /// tank and has not been moved since frames it again in the new shape.
    void setFramingAspect(float aspect);
    /// Whether the camera still frames the tank as reset() or fit() left it (not orbited,
    /// panned or zoomed since).
    bool framed() const { return framed_; }
    void orbit(float dxPixels, float dyPixels);
    void pan(float dxPixels, float dyPixels, float viewportHeight);
    void zoom(float wheelSteps);
    /// Moves the point looked at toward `point` over `seconds` of wall time, smoothly (most of
    /// the way in kFollowSeconds), at the same angle and distance: a camera that follows a
    /// school in open water.
    void follow(const glm::vec3& point, float seconds);
    static constexpr float kFollowSeconds = 0.4f;
    glm::vec3 target() const { return target_; }

    glm::vec3 eye() const;
    /// The unit direction the camera looks along.
    glm::vec3 forward() const;
    /// How many pixels long a 1 m object 1 m ahead is drawn in a viewport this many pixels high.
    float focalPixels(float viewportHeight) const;
    static constexpr float kFieldOfViewDegrees = 50.0f;  ///< vertical
    glm::mat4 view() const;
    /// `shiftX` moves the picture's centre right by that fraction of the half width (lens shift).
    glm::mat4 projection(float aspect, float shiftX = 0.0f) const;
    float distance() const { return distance_; }

  private:
    glm::vec3 target_{0.0f};
    float yaw_ = 0.6f;     // radians about y
    float pitch_ = 0.35f;  // radians above the horizon
    float distance_ = 100.0f;
    float farPlane_ = 1000.0f;
    glm::vec3 bounds_{0.0f};
    float framingAspect_ = 16.0f / 9.0f;
    bool framed_ = false;
};

}  // namespace fishschool::render
