#pragma once

// The data the GL compute backend shares with its shaders. It is defined once, in
// shaders/gpu_layout.h, which GLSL includes too; the static_asserts here pin every offset the
// shaders rely on (std430 for the fish, std140 for the parameters).

#include <cstddef>
#include <cstdint>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace fishschool::gpu {

/// The GLSL names of shaders/gpu_layout.h, so that its text reads as C++ too.
namespace layout {
using vec3 = glm::vec3;
using vec4 = glm::vec4;
using uvec4 = glm::uvec4;
using uint = std::uint32_t;

#include "gpu_layout.h"
}  // namespace layout

/// One fish in the 2N storage buffer.
using GpuFish = layout::Fish;
/// The step's parameters (the std140 uniform block StepParams).
using GpuStepParams = layout::StepParamsData;
/// A rock: xyz centre, w radius.
using GpuRock = glm::vec4;

using layout::kBlockSumBinding;
using layout::kCellCountBinding;
using layout::kCellStartBinding;
using layout::kFishBinding;
using layout::kFishCellBinding;
using layout::kFlowBinding;
using layout::kParamsBinding;
using layout::kRockBinding;
using layout::kSortedPositionBinding;
using layout::kStagingBinding;

static_assert(sizeof(GpuFish) == 48, "Fish in gpu_layout.h: std430 size");
static_assert(offsetof(GpuFish, position) == 0);
static_assert(offsetof(GpuFish, id) == 12);
static_assert(offsetof(GpuFish, velocity) == 16);
static_assert(offsetof(GpuFish, padding0) == 28);
static_assert(offsetof(GpuFish, acceleration) == 32);
static_assert(offsetof(GpuFish, padding1) == 44);

static_assert(sizeof(GpuStepParams) == 176, "StepParamsData in gpu_layout.h: std140 size");
static_assert(offsetof(GpuStepParams, radiiSquared) == 0);
static_assert(offsetof(GpuStepParams, weights) == 16);
static_assert(offsetof(GpuStepParams, limits) == 32);
static_assert(offsetof(GpuStepParams, bounds) == 48);
static_assert(offsetof(GpuStepParams, gridOrigin) == 64);
static_assert(offsetof(GpuStepParams, gridDims) == 80);
static_assert(offsetof(GpuStepParams, counts) == 96);
static_assert(offsetof(GpuStepParams, target) == 112);
static_assert(offsetof(GpuStepParams, avoidance) == 128);
static_assert(offsetof(GpuStepParams, flowOrigin) == 144);
static_assert(offsetof(GpuStepParams, flowDims) == 160);

static_assert(sizeof(GpuRock) == 16, "RockBuffer in fish_layout.glsl: std430 vec4");

}  // namespace fishschool::gpu
