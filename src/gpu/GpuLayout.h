#pragma once

// The data the GL compute backend shares with its shaders, defined once here. The GLSL side is
// shaders/fish_layout.glsl; the static_asserts pin every offset the shaders rely on.

#include <cstddef>
#include <cstdint>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace fishschool::gpu {

/// One fish in the 2N storage buffer (std430: a vec3 followed by a 4-byte member shares its
/// 16-byte slot).
struct GpuFish {
    glm::vec3 position;  ///< m
    std::uint32_t id;    ///< upload index, so a reordered school downloads in upload order
    glm::vec3 velocity;  ///< m/s
    float padding0;
    glm::vec3 acceleration;  ///< m/s^2
    float padding1;
};

static_assert(sizeof(GpuFish) == 48, "GpuFish must match struct Fish in fish_layout.glsl");
static_assert(offsetof(GpuFish, position) == 0);
static_assert(offsetof(GpuFish, id) == 12);
static_assert(offsetof(GpuFish, velocity) == 16);
static_assert(offsetof(GpuFish, acceleration) == 32);

/// A rock: xyz centre, w radius.
using GpuRock = glm::vec4;

/// The step's parameters (std140 uniform block StepParams).
struct GpuStepParams {
    glm::vec4 radiiSquared;  ///< cohesion, separation, alignment; w: cos(viewAngle / 2)
    glm::vec4 weights;       ///< kCohesion, kSeparation, kAlignment; w: 1 when seeing all around
    glm::vec4 limits;        ///< maxAcceleration, maxVelocity, dt, lockVerticalSteering (0 or 1)
    glm::vec4 bounds;        ///< xyz half extents of the tank
    glm::vec4 gridOrigin;    ///< xyz origin of the grid, w cell size
    glm::uvec4 gridDims;     ///< xyz cells per axis, w cells searched on each side (reach)
    glm::uvec4 counts;       ///< fish, rocks, first fish read, first fish written
};

static_assert(sizeof(GpuStepParams) == 112,
              "GpuStepParams must match StepParams in fish_layout.glsl");
static_assert(offsetof(GpuStepParams, gridDims) == 80);
static_assert(offsetof(GpuStepParams, counts) == 96);

/// Binding points shared with the shaders.
enum Binding : unsigned {
    kParamsBinding = 0,          ///< uniform StepParams
    kFishBinding = 1,            ///< buffer FishBuffer: the 2N fish
    kRockBinding = 2,            ///< buffer RockBuffer
    kCellCountBinding = 3,       ///< buffer CellCounts: fish per cell
    kCellStartBinding = 4,       ///< buffer CellStarts: first sorted slot per cell, cells + 1
    kFishCellBinding = 5,        ///< buffer FishCells: (cell, rank in cell) per fish
    kBlockSumBinding = 6,        ///< buffer BlockSums: scan partial sums
    kSortedPositionBinding = 7,  ///< buffer SortedPositions: positions in cell order, packed
    kStagingBinding = 8,         ///< buffer Staging: the current half, copied for read-back
};

}  // namespace fishschool::gpu
