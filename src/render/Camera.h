#pragma once

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include <vector>

namespace fishschool::render {

/// An orbit camera around a target: drag to orbit, drag to pan, wheel to zoom.
class OrbitCamera {
  public:
    /// Frames a tank of half extents `bounds` from the default angle, in the framing aspect, or
    /// straight from above (a flat school, in the plane y = 0).
    void reset(const glm::vec3& bounds, bool fromAbove = false);
    /// Frames a tank of half extents `bounds` from the current angle (the tank was resized).
    void fit(const glm::vec3& bounds);
    /// The part of the window the tank is framed in: its width / height, and its height as a
    /// share of the window's (the overlay's rows left out). Beside the panel a narrow part (a
    /// small window) frames it from further away. A camera that framed the tank and has not been
    /// moved since frames it again in the new shape.
    void setFraming(float aspect, float heightShare = 1.0f);
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
    /// `shift` moves the picture's centre right and up by that fraction of the half width and
    /// height (lens shift).
    glm::mat4 projection(float aspect, glm::vec2 shift = glm::vec2(0.0f)) const;
    float distance() const { return distance_; }

  private:
    glm::vec3 target_{0.0f};
    float yaw_ = 0.6f;     // radians about y
    float pitch_ = 0.35f;  // radians above the horizon
    float distance_ = 100.0f;
    float farPlane_ = 1000.0f;
    glm::vec3 bounds_{0.0f};
    float framingAspect_ = 16.0f / 9.0f;
    float framingHeightShare_ = 1.0f;
    bool framed_ = false;
};

/// The lens shift of projection() that moves the picture's centre by `pixels` (x right, y down)
/// in a window of `size` pixels.
glm::vec2 lensShift(glm::vec2 pixels, glm::vec2 size);

/// The corners of the box [-bounds, bounds] where `camera` draws them in a window of `size`
/// (x right, y down, in the units of `size`), its picture's centre moved by `shift` in those
/// units; the corners behind the camera are left out.
std::vector<glm::vec2> boxCornersOnScreen(const OrbitCamera& camera, const glm::vec3& bounds,
                                          glm::vec2 size, glm::vec2 shift);

}  // namespace fishschool::render
