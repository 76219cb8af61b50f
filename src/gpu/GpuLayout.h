#pragma once

// The fish as the GL storage buffer holds it (std430). Defined once here; the shaders include
// the matching GLSL declaration from shaders/fish_layout.glsl, and the static_asserts below
// keep the two in step.

#include <cstddef>

#include <glm/vec4.hpp>

namespace fishschool::gpu {

/// One fish in the 2N storage buffer. w components are padding (std430 aligns vec3 to 16 bytes).
struct GpuFish {
    glm::vec4 position;      ///< xyz m
    glm::vec4 velocity;      ///< xyz m/s
    glm::vec4 acceleration;  ///< xyz m/s^2
};

static_assert(sizeof(GpuFish) == 48, "GpuFish must match the std430 Fish struct in GLSL");
static_assert(offsetof(GpuFish, position) == 0);
static_assert(offsetof(GpuFish, velocity) == 16);
static_assert(offsetof(GpuFish, acceleration) == 32);

}  // namespace fishschool::gpu
